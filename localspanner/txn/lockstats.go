package txn

import (
	"time"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

// Lock modes as Spanner's lock statistics name them: a read-write transaction's read
// takes ReaderShared, its write WriterShared, and a write of what it read Exclusive
// ("an upgrade from a ReaderShared lock").
const (
	ReaderShared = "ReaderShared"
	WriterShared = "WriterShared"
	Exclusive    = "Exclusive"
)

// existsColumn is the column a conflict on a row's existence names: Spanner's docs call
// `_exists` "an internal field that is used to check whether a certain row exists or not".
const existsColumn = "_exists"

// LockRequest is one side of a lock conflict: a column (table.column), the lock mode
// and the tag of the transaction that requested it.
type LockRequest struct {
	Column, Mode, Tag string
}

// LockConflict is one conflict between read-write transactions, as the commit check
// sees it: a transaction read a row (or a range) that another one then wrote and
// committed first. The transactions here are optimistic, so the reader never waits
// for the writer's lock: it loses at its commit (ABORTED). Wait is the time from its
// read to that abort, the time its work was held on the conflicting data and lost.
type LockConflict struct {
	// RowRange is the row key ("Table(1,2)") or the start of the row range
	// ("Table(+)" for a whole table) the conflict was on.
	RowRange string
	Wait     time.Duration
	Requests []LockRequest
}

// commitWrites is what one commit wrote, kept while a transaction that read before it
// may still commit: its tag, the shape of its writes, and the keys and tables it had
// read itself (its writes there were Exclusive locks). It keeps no row data.
type commitWrites struct {
	tag    string
	writes []writeShape
	read   []string
}

type writeShape struct {
	table string
	cols  []*schema.Column // nil for a delete
}

func newCommitWrites(tag string, reads []readItem, muts []*storage.Mutation) commitWrites {
	w := commitWrites{tag: tag, writes: make([]writeShape, len(muts))}
	for i, m := range muts {
		w.writes[i] = writeShape{table: m.Table.Name, cols: m.Columns}
	}
	for _, r := range reads {
		if r.key != "" {
			w.read = append(w.read, r.key)
		} else {
			w.read = append(w.read, r.tables...)
		}
	}
	return w
}

// columnsOf are the columns the commit wrote in table (existsColumn for a delete, or
// when the table was written only by a parent's cascade).
func (w commitWrites) columnsOf(table string) []string {
	var cols []string
	for _, s := range w.writes {
		if s.table != table {
			continue
		}
		if s.cols == nil {
			cols = appendOnce(cols, existsColumn)
		}
		for _, c := range s.cols {
			cols = appendOnce(cols, c.Name)
		}
	}
	if len(cols) == 0 {
		cols = []string{existsColumn}
	}
	return cols
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func appendOnce(s []string, x string) []string {
	if contains(s, x) {
		return s
	}
	return append(s, x)
}

// conflictOf describes the conflict that made read r of a transaction tagged tag
// fail its commit check (under no lock of the caller).
func (c *conflicts) conflictOf(r *readItem, tag string, now time.Time) LockConflict {
	c.mu.Lock()
	defer c.mu.Unlock()
	table, rowRange := r.table, r.table+"(+)"
	var ts int64
	if r.key != "" {
		ts = max(c.keyWrite[r.key], c.rangeWrite[r.table])
		rowRange = r.table + "(" + storage.KeyText(r.keyVals) + ")"
	} else {
		for _, t := range r.tables {
			if w := c.tableWrite[t]; w > ts {
				ts, table, rowRange = w, t, t+"(+)"
			}
		}
	}
	w := c.commits[ts]
	wrote := w.columnsOf(table)
	read := r.cols
	if len(read) == 0 || r.table != table {
		read = []string{existsColumn}
	}
	// The columns both sides touched when there are any; else each side's own.
	var both []string
	for _, x := range read {
		if contains(wrote, x) {
			both = append(both, x)
		}
	}
	if len(both) > 0 {
		read, wrote = both, both
	}
	mode := WriterShared
	if contains(w.read, r.key) || contains(w.read, table) {
		mode = Exclusive
	}
	out := LockConflict{RowRange: rowRange, Wait: now.Sub(r.at)}
	for _, col := range read {
		out.Requests = append(out.Requests, LockRequest{Column: table + "." + col, Mode: ReaderShared, Tag: tag})
	}
	for _, col := range wrote {
		out.Requests = append(out.Requests, LockRequest{Column: table + "." + col, Mode: mode, Tag: w.tag})
	}
	return out
}
