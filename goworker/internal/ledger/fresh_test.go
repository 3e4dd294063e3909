package ledger

import (
	"reflect"
	"testing"
)

// TestFreshKeysAreWorkersLedgerPy: the keys of workers/ledger.py FreshKeys("def-e2e", 2).key(w, n),
// printed by the Python implementation, and each decodes to (w, n).
func TestFreshKeysAreWorkersLedgerPy(t *testing.T) {
	f := NewFreshKeys("def-e2e", 2)
	for _, c := range []struct {
		worker int
		n, key int64
	}{
		{0, 0, 4675083636742374982}, {1, 0, 6852426419210797659}, {0, 1, 6723926192465526384},
		{1, 7, 5053423244776999809}, {0, 123456789, 6756767052345983928},
	} {
		if got := f.Key(c.worker, c.n); got != c.key {
			t.Errorf("Key(%d, %d) = %d; Python's is %d", c.worker, c.n, got, c.key)
		}
		if w, n, ok := f.Decode(c.key); !ok || w != c.worker || n != c.n {
			t.Errorf("Decode(%d) = (%d, %d, %v); want (%d, %d)", c.key, w, n, ok, c.worker, c.n)
		}
	}
	for _, key := range []int64{0, 41, FreshKeyBase - 1} {
		if _, _, ok := f.Decode(key); ok {
			t.Errorf("Decode(%d): a key below 2^62 is no new key", key)
		}
	}
}

func TestRangeSetMergesTouchingRanges(t *testing.T) {
	var s RangeSet
	for _, n := range []int64{5, 3, 4, 10, 8} {
		if !s.Add(n) {
			t.Fatalf("Add(%d) said it was there", n)
		}
	}
	if s.Add(4) {
		t.Error("Add(4) twice said it was new")
	}
	s.AddRange(11, 13)
	want := [][2]int64{{3, 6}, {8, 9}, {10, 13}}
	if got := s.Ranges(); !reflect.DeepEqual(got, want) {
		t.Errorf("ranges %v; want %v", got, want)
	}
	s.AddRange(6, 10)
	if got := s.Ranges(); !reflect.DeepEqual(got, [][2]int64{{3, 13}}) {
		t.Errorf("after [6, 10): %v; want [[3 13]]", got)
	}
}

// TestFreshWritesAreKeptAsRanges: committed and unknown-outcome new keys go to ranges of their
// numbers, not to ledger rows; the watcher's side counts a number seen twice as a duplicate.
func TestFreshWritesAreKeptAsRanges(t *testing.T) {
	fresh := NewFreshKeys("run", 2)
	l := NewWriteLedger(1, 2)
	l.SetFresh(fresh)
	var writes []Write
	for range 5 {
		writes = append(writes, l.ReserveFresh())
	}
	for i, w := range writes {
		if w.Key != fresh.Key(1, int64(i)) || w.Version != 1 {
			t.Errorf("fresh write %d is %+v; want key %d version 1", i, w, fresh.Key(1, int64(i)))
		}
	}
	l.Committed(writes[:2])
	l.Failed(writes[2:3], true)
	l.Failed(writes[3:4], false)
	l.Committed(writes[4:])
	m := l.Message(1, "run/1")
	if len(m.Ledger) != 0 || !reflect.DeepEqual(m.FreshCommitted, [][2]int64{{0, 2}, {4, 5}}) ||
		!reflect.DeepEqual(m.FreshUncertain, [][2]int64{{2, 3}}) || len(m.UncertainKeys) != 0 {
		t.Errorf("message %+v", m)
	}
	seen := NewSeenLedger(WriterIDs("run", 2))
	seen.SetFresh(fresh)
	writer := "run/1"
	one := int64(1)
	for _, w := range []Write{writes[0], writes[1], writes[0], writes[4]} {
		seen.Saw(w.Key, &one, &writer)
	}
	got := seen.Message(0)
	if got.Duplicates != 1 || len(got.Received) != 0 || !reflect.DeepEqual(got.FreshReceived, map[int][][2]int64{1: {{0, 2}, {4, 5}}}) {
		t.Errorf("watcher ledger %+v", got)
	}
}

func TestWriterIDIsCutAt64(t *testing.T) {
	long := "r" + string(make([]byte, 70))
	if got := WriterID("run", 3); got != "run/3" {
		t.Errorf("WriterID = %q", got)
	}
	if got := WriterID(long, 1); len(got) != 64 || got != (long + "/1")[:64] {
		t.Errorf("a long run id's writer id is %d bytes", len(got))
	}
}
