package ledger

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

func seeded() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// reserve picks count keys of [0, keySpace) for one execution, as versioned_key draws them
// (interp/keys.go): each distinct from those it holds and from every key in flight.
func reserve(l *WriteLedger, count int, keySpace int64, rng *rand.Rand) ([]Write, error) {
	var picked []Write
	for range count {
		w, err := l.Pick(picked, keySpace, func(slots int64) int64 { return rng.Int64N(slots) })
		if err != nil {
			l.Failed(picked, false)
			return nil, err
		}
		picked = append(picked, w)
	}
	return picked, nil
}

func TestPickDrawsDistinctOwnedKeysWithIncreasingVersions(t *testing.T) {
	cases := []struct {
		worker, workers int
		keySpace        int64
		count           int
	}{
		{0, 1, 10, 10},
		{1, 3, 30, 10},
		{2, 3, 1000, 50},
	}
	for _, c := range cases {
		l := NewWriteLedger(c.worker, c.workers)
		writes, err := reserve(l, c.count, c.keySpace, seeded())
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		seen := map[int64]bool{}
		for _, w := range writes {
			if seen[w.Key] || w.Key%int64(c.workers) != int64(c.worker) || w.Version != 1 || w.Key >= c.keySpace {
				t.Errorf("%+v: bad write %+v in %v", c, w, writes)
			}
			seen[w.Key] = true
		}
		if len(writes) != c.count {
			t.Errorf("%+v: %d writes", c, len(writes))
		}
	}
}

func TestKeysInFlightAreNotPickedAndVersionsFollowCommits(t *testing.T) {
	l := NewWriteLedger(0, 1)
	rng := seeded()
	first, err := reserve(l, 2, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	second, err := reserve(l, 1, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range first {
		if w.Key == second[0].Key {
			t.Fatalf("key %d picked while in flight", w.Key)
		}
	}
	var busy *KeyBusyError
	if _, err := reserve(l, 1, 3, rng); !errors.As(err, &busy) || busy.Slots != 3 {
		t.Fatalf("a full key space gave %v; want a KeyBusyError over 3 slots", err)
	}
	l.Committed(first)
	l.Failed(second, true)
	again, err := reserve(l, 3, 3, rng)
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
	l.Saw(5, v(2), &mine)  // late (another shard's poller): distinct
	l.Saw(5, v(2), &mine)  // duplicate
	l.Saw(5, v(1), &mine)  // duplicate, below the highest
	l.Saw(6, v(1), &other) // foreign
	l.Saw(7, nil, &mine)   // no version: foreign
	l.Saw(8, v(1), nil)    // no writer: foreign
	l.Saw(2, v(4), &mine)
	rows, dups, foreign := l.Rows()
	if !reflect.DeepEqual(rows, [][3]int64{{2, 4, 1}, {5, 3, 3}}) || dups != 3 || foreign != 3 {
		t.Errorf("rows %v dups %d foreign %d", rows, dups, foreign)
	}
}

// The window of versions told late from repeated is the SeenWindow newest up to the highest: a jump
// past it forgets the older ones, and a version further below counts as a duplicate.
func TestSeenLedgerTellsLateVersionsWithinTheWindow(t *testing.T) {
	if protocol.SeenWindow > 64 {
		t.Fatalf("SeenWindow %d does not fit the ledger's uint64", protocol.SeenWindow)
	}
	l := NewSeenLedger([]string{"run/0"})
	w := "run/0"
	v := func(n int64) *int64 { return &n }
	oldest := int64(100 - protocol.SeenWindow + 1)
	for _, n := range []int64{1, 100, oldest, oldest - 1, 99, 1, 99, 100} {
		l.Saw(9, v(n), &w)
	}
	// received once each: 1, 100, oldest, 99; duplicates: oldest-1 (below), 1 (below), 99, 100
	rows, dups, _ := l.Rows()
	if !reflect.DeepEqual(rows, [][3]int64{{9, 100, 4}}) || dups != 4 {
		t.Errorf("rows %v dups %d", rows, dups)
	}
}
