package ledger

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
)

// FreshKeyBase is where new keys start (workers/ledger.py FRESH_KEY_BASE): 2^62 + a 61-bit number,
// above every key of a key space.
const FreshKeyBase = int64(1) << 62

const (
	freshMask       = uint64(1)<<61 - 1
	freshMultiplier = uint64(0x9E3779B97F4A7C15) & freshMask // odd: a bijection mod 2^61
)

// freshInverse is freshMultiplier's inverse mod 2^61 (Newton's iteration: each step doubles the
// correct low bits of an odd number's inverse).
var freshInverse = func() uint64 {
	x := freshMultiplier
	for range 6 {
		x *= 2 - freshMultiplier*x
	}
	return x & freshMask
}()

// FreshKeys are a run's new keys (workers/ledger.py FreshKeys): the n-th of worker w is a
// bijection of (w, n), so a key tells whose and which it was and the ledgers keep ranges of n.
type FreshKeys struct {
	workers int64
	offset  uint64
}

func NewFreshKeys(runID string, workers int) *FreshKeys {
	sum := sha256.Sum256([]byte(runID))
	return &FreshKeys{workers: int64(workers), offset: binary.BigEndian.Uint64(sum[:8]) & freshMask}
}

// Key is worker's n-th new key.
func (f *FreshKeys) Key(worker int, n int64) int64 {
	index := (f.offset + uint64(n)*uint64(f.workers) + uint64(worker)) & freshMask
	return FreshKeyBase + int64(index*freshMultiplier&freshMask)
}

// Decode is (worker, n) of a new key of this run; ok false for a key outside the new keys' range.
func (f *FreshKeys) Decode(key int64) (worker int, n int64, ok bool) {
	if key < FreshKeyBase || uint64(key-FreshKeyBase) > freshMask {
		return 0, 0, false
	}
	index := (uint64(key-FreshKeyBase)*freshInverse - f.offset) & freshMask
	return int(index % uint64(f.workers)), int64(index / uint64(f.workers)), true
}

// RangeSet is a set of integers as disjoint, non-adjacent sorted ranges [lo, hi)
// (model/ranges.py RangeSet).
type RangeSet struct{ r [][2]int64 }

// Has says whether n is in the set.
func (s *RangeSet) Has(n int64) bool {
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i][1] > n })
	return i < len(s.r) && s.r[i][0] <= n
}

// Add adds n; false if it was there already.
func (s *RangeSet) Add(n int64) bool {
	if s.Has(n) {
		return false
	}
	s.AddRange(n, n+1)
	return true
}

// AddRange adds every integer of [lo, hi), merging with the ranges it touches.
func (s *RangeSet) AddRange(lo, hi int64) {
	if hi <= lo {
		return
	}
	first := sort.Search(len(s.r), func(i int) bool { return s.r[i][1] >= lo })   // ends at or after lo
	last := sort.Search(len(s.r), func(i int) bool { return s.r[i][0] > hi }) - 1 // starts at or before hi
	if first <= last {
		lo, hi = min(lo, s.r[first][0]), max(hi, s.r[last][1])
	}
	s.r = append(s.r[:first], append([][2]int64{{lo, hi}}, s.r[last+1:]...)...)
}

// Ranges are the set's ranges, sorted (never nil).
func (s *RangeSet) Ranges() [][2]int64 {
	out := make([][2]int64, len(s.r))
	copy(out, s.r)
	return out
}

func (s *RangeSet) String() string { return fmt.Sprint(s.r) }
