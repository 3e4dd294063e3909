package ledger

import (
	"sort"
	"sync"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// SeenLedger keeps per key of this run's writers the highest version seen and how many distinct
// versions (workers/interp/ledger.py SeenLedger). A key's versions commit in increasing order and one
// poller receives them in that order, but pollers of different shards do not: a key whose shard
// column changed between two versions can have the lower one received after the higher. So it also
// keeps which of the key's protocol.SeenWindow versions up to the highest were received (bit i:
// version highest-i); a version is a duplicate when received before, or below that window.
type SeenLedger struct {
	writerIDs  map[string]struct{}
	fresh      *FreshKeys // nil: no new keys told apart
	mu         sync.Mutex
	seen       map[int64]seenKey
	freshSeen  map[int]*RangeSet // worker -> numbers of its new keys seen
	Duplicates int64
	Foreign    int64
}

type seenKey struct {
	highest, distinct int64
	bits              uint64
}

func NewSeenLedger(writerIDs []string) *SeenLedger {
	ids := make(map[string]struct{}, len(writerIDs))
	for _, id := range writerIDs {
		ids[id] = struct{}{}
	}
	return &SeenLedger{writerIDs: ids, seen: map[int64]seenKey{}, freshSeen: map[int]*RangeSet{}}
}

// SetFresh tells the run's new keys (FreshKeys) apart: kept as ranges of their numbers per worker.
func (l *SeenLedger) SetFresh(fresh *FreshKeys) { l.fresh = fresh }

// Saw records one change; version or writerID nil (NULL) counts as foreign.
func (l *SeenLedger) Saw(key int64, version *int64, writerID *string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if version == nil || writerID == nil {
		l.Foreign++
		return
	}
	if _, ok := l.writerIDs[*writerID]; !ok {
		l.Foreign++
		return
	}
	if l.fresh != nil {
		if worker, n, ok := l.fresh.Decode(key); ok {
			seen := l.freshSeen[worker]
			if seen == nil {
				seen = &RangeSet{}
				l.freshSeen[worker] = seen
			}
			if !seen.Add(n) {
				l.Duplicates++
			}
			return
		}
	}
	s := l.seen[key]
	v := *version
	switch {
	case v > s.highest:
		if above := v - s.highest; above < protocol.SeenWindow {
			s.bits = s.bits<<above | 1
		} else {
			s.bits = 1
		}
		s.highest = v
	case s.highest-v < protocol.SeenWindow && s.bits>>(s.highest-v)&1 == 0:
		s.bits |= 1 << (s.highest - v) // late, from another shard
	default:
		l.Duplicates++
		return
	}
	s.distinct++
	l.seen[key] = s
}

// Rows is [key, highest_version, distinct_versions] per key, sorted, with the duplicate and
// foreign counts.
func (l *SeenLedger) Rows() ([][3]int64, int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rows := make([][3]int64, 0, len(l.seen))
	for k, s := range l.seen {
		rows = append(rows, [3]int64{k, s.highest, s.distinct})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	return rows, l.Duplicates, l.Foreign
}

// FreshReceived is, per worker, the ranges [lo, hi) of the numbers of its new keys seen.
func (l *SeenLedger) FreshReceived() map[int][][2]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int][][2]int64, len(l.freshSeen))
	for w, s := range l.freshSeen {
		out[w] = s.Ranges()
	}
	return out
}

// Message is worker's WatcherLedger (workers/ledger.py SeenLedger.message).
func (l *SeenLedger) Message(worker int) *protocol.WatcherLedger {
	rows, dups, foreign := l.Rows()
	return &protocol.WatcherLedger{Worker: worker, Received: rows, Duplicates: dups, Foreign: foreign,
		FreshReceived: l.FreshReceived()}
}
