package ledger

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

func seeded() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func TestReservePicksDistinctOwnedKeysWithIncreasingVersions(t *testing.T) {
	cases := []struct {
		worker, workers int
		keySpace        int64
		count           int
		fresh           bool
	}{
		{0, 1, 10, 10, false},
		{1, 3, 30, 10, false},
		{2, 3, 1000, 50, false},
		{0, 2, 10, 6, true},
	}
	for _, c := range cases {
		l := NewWriteLedger(c.worker, c.workers, c.keySpace, seeded())
		writes, err := l.Reserve(c.count, c.fresh)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		seen := map[int64]bool{}
		for _, w := range writes {
			if seen[w.Key] || w.Key%int64(c.workers) != int64(c.worker) || w.Version != 1 {
				t.Errorf("%+v: bad write %+v in %v", c, w, writes)
			}
			if inRange := w.Key < c.keySpace; inRange == c.fresh {
				t.Errorf("%+v: key %d (fresh keys lie above the key space, others in it)", c, w.Key)
			}
			seen[w.Key] = true
		}
		if len(writes) != c.count {
			t.Errorf("%+v: %d writes", c, len(writes))
		}
	}
}

func TestKeysInFlightAreNotPickedAndVersionsFollowCommits(t *testing.T) {
	l := NewWriteLedger(0, 1, 3, seeded())
	first, err := l.Reserve(2, false)
	if err != nil {
		t.Fatal(err)
	}
	second, err := l.Reserve(1, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range first {
		if w.Key == second[0].Key {
			t.Fatalf("key %d picked while in flight", w.Key)
		}
	}
	var busy *KeyBusyError
	if _, err := l.Reserve(1, false); !errors.As(err, &busy) || busy.Slots != 3 {
		t.Fatalf("a full key space gave %v; want a KeyBusyError over 3 slots", err)
	}
	l.Committed(first)
	l.Failed(second, true)
	again, err := l.Reserve(3, false)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[int64]int64{}
	for _, w := range again {
		versions[w.Key] = w.Version
	}
	for _, w := range first {
		if versions[w.Key] != 2 {
			t.Errorf("key %d: version %d after one commit; want 2", w.Key, versions[w.Key])
		}
	}
	if versions[second[0].Key] != 2 {
		t.Errorf("a failed version is not reused: got %d; want 2", versions[second[0].Key])
	}
	l.Committed(again)
	rows, uncertain := l.Rows()
	want := [][3]int64{}
	for k := range int64(3) {
		count := int64(2)
		if k == second[0].Key {
			count = 1
		}
		want = append(want, [3]int64{k, 2, count})
	}
	if !reflect.DeepEqual(rows, want) || !reflect.DeepEqual(uncertain, []int64{second[0].Key}) {
		t.Errorf("rows %v uncertain %v; want %v [%d]", rows, uncertain, want, second[0].Key)
	}
}

func TestSeenLedgerCountsDuplicatesAndForeignChanges(t *testing.T) {
	l := NewSeenLedger([]string{"run/0", "run/1"})
	mine, other := "run/1", "other/0"
	v := func(n int64) *int64 { return &n }
	l.Saw(5, v(1), &mine)
	l.Saw(5, v(3), &mine)
	l.Saw(5, v(3), &mine)  // duplicate
	l.Saw(5, v(2), &mine)  // older: duplicate
	l.Saw(6, v(1), &other) // foreign
	l.Saw(7, nil, &mine)   // no version: foreign
	l.Saw(8, v(1), nil)    // no writer: foreign
	l.Saw(2, v(4), &mine)
	rows, dups, foreign := l.Rows()
	if !reflect.DeepEqual(rows, [][3]int64{{2, 4, 1}, {5, 3, 2}}) || dups != 2 || foreign != 3 {
		t.Errorf("rows %v dups %d foreign %d", rows, dups, foreign)
	}
}
