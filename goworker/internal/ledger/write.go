// Package ledger is the reconciliation bookkeeping of workers/interp/ledger.py: versions a
// definition's operations wrote (versioned_key, fresh_key), and versions its watch saw.
package ledger

import (
	"fmt"
	"sort"
	"sync"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// MaxPickTries bounds the search for a free key.
const MaxPickTries = 1000

// KeyBusyError says no free key could be found: the key space is too small for the writes in
// flight.
type KeyBusyError struct{ Slots int64 }

func (e *KeyBusyError) Error() string {
	return fmt.Sprintf("no free key among %d owned keys: raise updater.key_space or lower parallelism", e.Slots)
}

// Write is one row of a transaction: a key and the version it gets.
type Write struct {
	Key     int64
	Version int64
}

type committed struct{ version, count int64 }

// WriteLedger keeps per key the next version to write, the last committed one and how many
// committed. A key is never written by two transactions at once (Pick skips keys in flight), so
// a key's versions commit in increasing order. Worker i of n owns the keys k % n == i.
type WriteLedger struct {
	worker, workers int64
	mu              sync.Mutex
	next            map[int64]int64
	committed       map[int64]committed
	inFlight        map[int64]struct{}
	uncertain       map[int64]struct{}
	// new keys (ReserveFresh): numbered per worker, kept as ranges of their numbers
	fresh          *FreshKeys
	freshNext      int64
	freshCommitted RangeSet
	freshUncertain RangeSet
}

func NewWriteLedger(worker, workers int) *WriteLedger {
	return &WriteLedger{
		worker: int64(worker), workers: int64(workers),
		next: map[int64]int64{}, committed: map[int64]committed{},
		inFlight: map[int64]struct{}{}, uncertain: map[int64]struct{}{},
	}
}

// slotsOf is how many keys of [0, keySpace) this worker owns (at least 1).
func (l *WriteLedger) slotsOf(keySpace int64) int64 {
	return max(1, (keySpace-l.worker+l.workers-1)/l.workers)
}

// Pick reserves one more key of [0, keySpace) for an execution that holds picked (distinct from
// them and from every key in flight), drawing slots with draw (a uniform draw in [0, slots)); it
// gives up after MaxPickTries + len(picked) + 1 tries. The caller releases picked (Failed) when
// the execution fails.
func (l *WriteLedger) Pick(picked []Write, keySpace int64, draw func(slots int64) int64) (Write, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tries := MaxPickTries + len(picked) + 1
	return l.pickLocked(&tries, l.slotsOf(keySpace), draw)
}

// pickLocked draws until a key not in flight comes up, at most *tries times (counted down).
func (l *WriteLedger) pickLocked(tries *int, slots int64, draw func(int64) int64) (Write, error) {
	for *tries > 0 {
		*tries--
		key := draw(slots)*l.workers + l.worker
		if _, ok := l.inFlight[key]; ok {
			continue // every key picked for this execution is in flight too
		}
		version := l.next[key]
		if version == 0 {
			version = 1
		}
		l.next[key] = version + 1
		l.inFlight[key] = struct{}{}
		return Write{key, version}, nil
	}
	return Write{}, &KeyBusyError{Slots: slots}
}

// SetFresh makes ReserveFresh draw this run's new keys (FreshKeys).
func (l *WriteLedger) SetFresh(fresh *FreshKeys) { l.fresh = fresh }

// ReserveFresh is this worker's next new key (version 1): FreshKeys.Key(worker, n), n = 0, 1, 2...
func (l *WriteLedger) ReserveFresh() Write {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.freshNext
	l.freshNext++
	return Write{l.fresh.Key(int(l.worker), n), 1}
}

// freshNumber is the number of one of this worker's new keys (ok false for a key of the key space).
func (l *WriteLedger) freshNumber(key int64) (int64, bool) {
	if l.fresh == nil {
		return 0, false
	}
	worker, n, ok := l.fresh.Decode(key)
	return n, ok && int64(worker) == l.worker
}

// Committed records a committed transaction.
func (l *WriteLedger) Committed(writes []Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range writes {
		if n, ok := l.freshNumber(w.Key); ok {
			l.freshCommitted.Add(n)
			continue
		}
		c := l.committed[w.Key]
		l.committed[w.Key] = committed{w.Version, c.count + 1}
		delete(l.inFlight, w.Key)
	}
}

// Failed records a failed transaction; if it may have committed anyway its keys leave the proof.
func (l *WriteLedger) Failed(writes []Write, outcomeUnknown bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range writes {
		if n, ok := l.freshNumber(w.Key); ok {
			if outcomeUnknown {
				l.freshUncertain.Add(n)
			}
			continue
		}
		delete(l.inFlight, w.Key)
		if outcomeUnknown {
			l.uncertain[w.Key] = struct{}{}
		}
	}
}

// Rows is [key, last_version, versions_committed] per key, and the uncertain keys, sorted.
func (l *WriteLedger) Rows() ([][3]int64, []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rows := make([][3]int64, 0, len(l.committed))
	for k, c := range l.committed {
		rows = append(rows, [3]int64{k, c.version, c.count})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	uncertain := make([]int64, 0, len(l.uncertain))
	for k := range l.uncertain {
		uncertain = append(uncertain, k)
	}
	sort.Slice(uncertain, func(i, j int) bool { return uncertain[i] < uncertain[j] })
	return rows, uncertain
}

// Fresh are the ranges [lo, hi) of the numbers of this worker's new keys committed, and of those
// whose commit's outcome is unknown.
func (l *WriteLedger) Fresh() (committed, uncertain [][2]int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.freshCommitted.Ranges(), l.freshUncertain.Ranges()
}

// Message is the WritersStopped of worker, whose writes carry writerID: the ledger rows, the
// uncertain keys and the new keys' ranges (workers/ledger.py WriteLedger.message).
func (l *WriteLedger) Message(worker int, writerID string) *protocol.WritersStopped {
	rows, uncertain := l.Rows()
	committed, unknown := l.Fresh()
	return &protocol.WritersStopped{Worker: worker, WriterID: writerID, Ledger: rows, UncertainKeys: uncertain,
		FreshCommitted: committed, FreshUncertain: unknown}
}

// WriterID names one worker's writes in a run (the WriterId column): f"{run_id}/{worker}"[:64].
func WriterID(runID string, worker int) string {
	id := fmt.Sprintf("%s/%d", runID, worker)
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// WriterIDs are the writer ids of every worker of a run.
func WriterIDs(runID string, workers int) []string {
	ids := make([]string, workers)
	for i := range ids {
		ids[i] = WriterID(runID, i)
	}
	return ids
}
