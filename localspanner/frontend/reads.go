package frontend

import (
	"context"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// readKind says how a read-write transaction's read is checked at commit.
type readKind struct {
	tables []*schema.Table
	// keys, when set, are the full primary keys of tables[0] the read selected:
	// the read conflicts only with writes to those rows.
	keys [][]any
	// snap, when set, is the strong snapshot a single-use read runs in.
	snap *storage.Snapshot
}

// strongSnapshot fixes the snapshot of a single-use strong read, so that the read
// timestamp it reports is exact. It returns nil for other reads. q and args, when
// q is set, are the one statement the read runs in the snapshot: it starts there.
func strongSnapshot(ctx context.Context, t *txn.Txn, q string, args []any) (*storage.Snapshot, error) {
	if !t.ReadOnly || !t.Strong {
		return nil, nil
	}
	var snap *storage.Snapshot
	var err error
	if q != "" {
		snap, err = t.DB.StrongRead(ctx, q, args)
	} else {
		snap, err = t.DB.StrongSnapshot(ctx)
	}
	if err != nil {
		return nil, err
	}
	t.StrongTS = snap.TS
	return snap, nil
}

// runRead runs a read (SQLite text and arguments) in transaction t and calls fn
// for each row. In a read-write transaction with buffered writes, the read sees
// them (read-your-writes); otherwise it reads from the reader pool. A read-write
// transaction records what it read, for the conflict check at commit.
//
// It returns the number of rows SQLite stepped through in full table scans (0 when
// the read ran on the writer).
func runRead(ctx context.Context, t *txn.Txn, q string, args []any, kind readKind, fn func(row []any) error) (int64, error) {
	db := t.DB
	if kind.snap != nil {
		return kind.snap.Read(ctx, q, args, fn)
	}
	if t.ReadOnly {
		return db.Read(ctx, q, args, fn)
	}
	seq := t.ReadSeq()
	if pending := t.Pending(); len(pending) > 0 {
		// Rows are collected under the commit lock and sent after it is released,
		// so a slow or vanished client never holds up commits.
		var rowsRead [][]any
		err := db.WithPending(ctx, pending, func(query storage.Querier, _ func(*storage.Mutation) error) error {
			rows, err := query(ctx, q, args...)
			if err != nil {
				return err
			}
			return storage.ScanRows(rows, func(row []any) error {
				rowsRead = append(rowsRead, row)
				return nil
			})
		})
		if err != nil {
			return 0, err
		}
		t.RecordTableRead(seq, kind.tables...)
		for _, row := range rowsRead {
			if err := fn(row); err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	h := storage.NewRowHash()
	fullscan, err := db.Read(ctx, q, args, func(row []any) error {
		h.Add(row)
		return fn(row)
	})
	if err != nil {
		return 0, err
	}
	if kind.keys != nil {
		t.RecordKeyRead(seq, kind.tables[0], kind.keys)
	} else {
		t.RecordQueryRead(seq, kind.tables, q, args, h.Sum())
	}
	return fullscan, nil
}
