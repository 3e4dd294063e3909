// Package ledger is the reconciliation bookkeeping of workers/ledger.py: versions the updater
// wrote, and versions the watcher saw.
package ledger

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
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
// committed. A key is never written by two transactions at once (Reserve skips keys in flight),
// so a key's versions commit in increasing order. Worker i of n owns the keys k % n == i.
type WriteLedger struct {
	worker, workers int64
	mu              sync.Mutex
	keySpace        int64
	rng             *rand.Rand
	next            map[int64]int64
	committed       map[int64]committed
	inFlight        map[int64]struct{}
	uncertain       map[int64]struct{}
}

func NewWriteLedger(worker, workers int, keySpace int64, rng *rand.Rand) *WriteLedger {
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return &WriteLedger{
		worker: int64(worker), workers: int64(workers), keySpace: keySpace, rng: rng,
		next: map[int64]int64{}, committed: map[int64]committed{},
		inFlight: map[int64]struct{}{}, uncertain: map[int64]struct{}{},
	}
}

func (l *WriteLedger) ownedSlots() int64 {
	return max(1, (l.keySpace-l.worker+l.workers-1)/l.workers)
}

func (l *WriteLedger) SetKeySpace(n int64) {
	l.mu.Lock()
	l.keySpace = n
	l.mu.Unlock()
}

// Reserve picks count distinct keys not in flight with the version each will get. fresh picks
// keys above the key space (new rows, for batch inserts).
func (l *WriteLedger) Reserve(count int, fresh bool) ([]Write, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	slots := l.ownedSlots()
	high := (int64(1) << 62) / l.workers
	picked := make([]Write, 0, count)
	seen := make(map[int64]struct{}, count)
	for tries := 0; len(picked) < count; tries++ {
		if tries > MaxPickTries+count {
			for _, w := range picked {
				delete(l.inFlight, w.Key)
			}
			return nil, &KeyBusyError{Slots: slots}
		}
		var slot int64
		if fresh {
			slot = slots + l.rng.Int64N(high-slots)
		} else {
			slot = l.rng.Int64N(slots)
		}
		key := slot*l.workers + l.worker
		if _, ok := seen[key]; ok {
			continue
		}
		if _, ok := l.inFlight[key]; ok {
			continue
		}
		version := l.next[key]
		if version == 0 {
			version = 1
		}
		l.next[key] = version + 1
		seen[key] = struct{}{}
		l.inFlight[key] = struct{}{}
		picked = append(picked, Write{key, version})
	}
	return picked, nil
}

// Committed records a committed transaction.
func (l *WriteLedger) Committed(writes []Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range writes {
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
