package txn

import (
	"sync"

	"github.com/spanload/spanload/localspanner/storage"
)

// conflicts tracks, per database, when each row key and table was last written,
// so that a committing read-write transaction can check that nothing it read has
// changed since it read it (optimistic concurrency: serializable, no locks held
// while a transaction runs, so an abandoned transaction never blocks anyone).
type conflicts struct {
	mu         sync.Mutex
	keyWrite   map[string]int64 // storage.KeyString -> commit ts (µs)
	tableWrite map[string]int64 // table name -> commit ts of any write
	rangeWrite map[string]int64 // table name -> commit ts of a write by range/cascade
}

func newConflicts() *conflicts {
	return &conflicts{keyWrite: map[string]int64{}, tableWrite: map[string]int64{}, rangeWrite: map[string]int64{}}
}

// readItem is something a transaction read: one row key, or (key == "") a whole
// table, at a point after the commit with timestamp seq was visible.
type readItem struct {
	table string
	key   string
	seq   int64
}

// changedSince reports the first read item written after it was read.
func (c *conflicts) changedSince(reads []readItem) (readItem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range reads {
		if r.key == "" {
			if c.tableWrite[r.table] > r.seq {
				return r, true
			}
			continue
		}
		if c.keyWrite[r.key] > r.seq || c.rangeWrite[r.table] > r.seq {
			return r, true
		}
	}
	return readItem{}, false
}

// record notes the writes of a commit at ts.
func (c *conflicts) record(ts int64, muts []*storage.Mutation, cascades func(table string) []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
