package txn

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

// conflicts tracks, per database, when each row key and table was last written,
// so that a committing read-write transaction can check that nothing it read has
// changed since it read it (optimistic concurrency: serializable, no locks held
// while a transaction runs, so an abandoned transaction never blocks anyone).
type conflicts struct {
	mu         sync.Mutex
	keyWrite   map[string]int64       // storage.KeyString -> commit ts (µs)
	tableWrite map[string]int64       // table name -> commit ts of any write
	rangeWrite map[string]int64       // table name -> commit ts of a write by range/cascade
	commits    map[int64]commitWrites // commit ts -> what it wrote, for lock statistics
}

func newConflicts() *conflicts {
	return &conflicts{keyWrite: map[string]int64{}, tableWrite: map[string]int64{}, rangeWrite: map[string]int64{}, commits: map[int64]commitWrites{}}
}

// readItem is something a transaction read at a point after the commit with
// timestamp seq was visible: one row key of table, or (key == "") the result of a
// query over tables (sql and args, whose rows hashed to hash), or (sql == "")
// tables as a whole.
type readItem struct {
	table  string
	tables []string
	key    string
	seq    int64
	sql    string
	args   []any
	hash   uint64
	// pending is how many of the transaction's own writes the read saw (applied
	// before it ran): the check at commit runs the query again with them applied.
	pending int
	// keyVals is the key of a key read, cols the columns a Read RPC read (nil for a
	// query) and at when the read ran: what a lock conflict on it reports.
	keyVals []any
	cols    []string
	at      time.Time
}

// changedSince checks the read items against the writes committed since they were
// read. It returns the first item that certainly changed, or the query reads whose
// tables were written (they changed only if running them again gives other rows).
func (c *conflicts) changedSince(reads []readItem) (changed *readItem, recheck []readItem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, r := range reads {
		if r.key != "" {
			if c.keyWrite[r.key] > r.seq || c.rangeWrite[r.table] > r.seq {
				return &reads[i], nil
			}
			continue
		}
		written := false
		for _, t := range r.tables {
			if c.tableWrite[t] > r.seq {
				written = true
				break
			}
		}
		if !written {
			continue
		}
		if r.sql == "" {
			return &reads[i], nil
		}
		recheck = append(recheck, r)
	}
	return nil, recheck
}

// record notes the writes of a commit at ts (w describes them for lock statistics).
func (c *conflicts) record(ts int64, muts []*storage.Mutation, w commitWrites, cascades func(table string) []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.commits[ts] = w
	for _, m := range muts {
		name := m.Table.Name
		c.tableWrite[name] = ts
		if m.Op == storage.OpDelete {
			if m.KeySet.All || len(m.KeySet.Ranges) > 0 {
				c.rangeWrite[name] = ts
			}
			for _, k := range m.KeySet.Keys {
				c.keyWrite[storage.KeyString(name, k)] = ts
			}
			for _, child := range cascades(name) {
				c.tableWrite[child] = ts
				c.rangeWrite[child] = ts
			}
			continue
		}
		pos := keyPos(m)
		key := make([]any, len(pos))
		for _, row := range m.Rows {
			for i, p := range pos {
				key[i] = row[p]
			}
			c.keyWrite[storage.KeyString(name, key)] = ts
		}
		if m.Op == storage.OpReplace {
			for _, child := range cascades(name) {
				c.tableWrite[child] = ts
				c.rangeWrite[child] = ts
			}
		}
	}
}

// prune forgets key writes at or before oldest (no active transaction read earlier).
func (c *conflicts) prune(oldest int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, ts := range c.keyWrite {
		if ts <= oldest {
			delete(c.keyWrite, k)
		}
	}
	// A conflict needs a commit after a live read: older commits are never asked about.
	for ts := range c.commits {
		if ts <= oldest {
			delete(c.commits, ts)
		}
	}
}

func keyPos(m *storage.Mutation) []int {
	pos := make([]int, len(m.Table.PrimaryKey))
	for i, k := range m.Table.PrimaryKey {
		for j, c := range m.Columns {
			if c == k.Column {
				pos[i] = j
			}
		}
	}
	return pos
}

// changedAfterOwnWrites runs the reads that saw the transaction's own writes again,
// with those writes applied (muts in the order they were buffered), and returns
// the first whose rows changed. If the writes no longer apply (another commit took
// a key they insert), what the reads saw changed too.
func changedAfterOwnWrites(ctx context.Context, db *storage.DB, muts []*storage.Mutation, reads []readItem) *readItem {
	sort.SliceStable(reads, func(i, j int) bool { return reads[i].pending < reads[j].pending })
	qs := make([]storage.PendingQuery, len(reads))
	for i, r := range reads {
		qs[i] = storage.PendingQuery{Pending: r.pending, SQL: r.sql, Args: r.args}
	}
	sums, err := db.HashesWithPending(ctx, muts, qs)
	if err != nil {
		return &reads[0]
	}
	for i := range reads {
		if sums[i] != reads[i].hash {
			return &reads[i]
		}
	}
	return nil
}
