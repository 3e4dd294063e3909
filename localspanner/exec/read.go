package exec

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/query"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
	"github.com/spanload/spanload/localspanner/value"
)

// readKind says how a read-write transaction's read is checked at commit.
type readKind struct {
	tables []*schema.Table
	// keys, when set, are the full primary keys of tables[0] the read selected:
	// the read conflicts only with writes to those rows.
	keys [][]any
	// cols are the columns a Read RPC reads (nil for a query), for lock statistics.
	cols []string
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
		h := storage.NewRowHash()
		err := db.WithPending(ctx, pending, func(query storage.Querier, _ func(*storage.Mutation) error) error {
			rows, err := query(ctx, q, args...)
			if err != nil {
				return err
			}
			return storage.ScanRows(rows, func(row []any) error {
				h.Add(row)
				rowsRead = append(rowsRead, row)
				return nil
			})
		})
		if err != nil {
			return 0, err
		}
		if kind.keys != nil {
			t.RecordKeyRead(seq, kind.tables[0], kind.keys, kind.cols)
		} else {
			t.RecordQueryRead(seq, kind.tables, q, args, h.Sum(), len(pending))
		}
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
		t.RecordKeyRead(seq, kind.tables[0], kind.keys, kind.cols)
	} else {
		t.RecordQueryRead(seq, kind.tables, q, args, h.Sum(), 0)
	}
	return fullscan, nil
}

// ReadArgs is a Read request: columns of a table (or of one of its indexes) for a
// set of keys.
type ReadArgs struct {
	Table   string
	Index   string
	Columns []string
	KeySet  *spannerpb.KeySet
	Limit   int64
	// RequestTag and Partitioned (the read has a partition token) are for READ_STATS.
	RequestTag  string
	Partitioned bool
}

func readSpec(cat *schema.Catalog, req ReadArgs) (*storage.ReadSpec, error) {
	if req.Table == "" {
		return nil, spanerr.InvalidArgument("Mutation does not specify table.") // the emulator's text for a Read too
	}
	t, ok := cat.Table(req.Table)
	if !ok {
		return nil, spanerr.NotFound("Table not found: %s", req.Table)
	}
	spec := &storage.ReadSpec{Table: t, Limit: req.Limit}
	if req.Index != "" {
		ix, ok := cat.Index(req.Index)
		if !ok || ix.Table != t {
			return nil, spanerr.NotFound("Index not found on table %s: %s", t.Name, req.Index)
		}
		spec.Index = ix
	}
	if len(req.Columns) == 0 {
		return nil, spanerr.InvalidArgument("No value provided for required field: ReadRequest.columns")
	}
	for _, name := range req.Columns {
		c, ok := t.Column(name)
		if !ok {
			return nil, spanerr.NotFound("Column not found in table %s: %s", t.Name, name)
		}
		if spec.Index != nil && !indexCovers(spec.Index, c) {
			return nil, spanerr.Unimplemented("Reading non-indexed columns using an index is not supported. Consider adding %s to the index using a STORING clause.", c.Name)
		}
		spec.Columns = append(spec.Columns, c)
	}
	ks, err := txn.ConvertKeySet(spec.KeyParts(), req.KeySet)
	if err != nil {
		return nil, err
	}
	spec.KeySet = ks
	return spec, nil
}

func indexCovers(ix *schema.Index, c *schema.Column) bool {
	for _, k := range ix.Keys {
		if k.Column == c {
			return true
		}
	}
	for _, k := range ix.Table.PrimaryKey {
		if k.Column == c {
			return true
		}
	}
	for _, sc := range ix.Storing {
		if sc == c {
			return true
		}
	}
	return false
}

// Read runs a read in t on db, passing the rows to sink.
func (e *Engine) Read(ctx context.Context, db *storage.DB, t *txn.Txn, req ReadArgs, sink Sink) (err error) {
	if t.Partitioned {
		return errPartitionedQuery
	}
	spec, err := readSpec(db.Catalog(), req)
	if err != nil {
		return err
	}
	fields := make([]*spannerpb.StructType_Field, len(spec.Columns))
	for i, c := range spec.Columns {
		fields[i] = &spannerpb.StructType_Field{Name: c.Name, Type: c.Type}
	}
	if db.Dialect() == schema.PostgreSQL {
		query.PGAnnotate(fields)
	}
	src := t.Source()
	q, args, err := spec.SQL(src)
	if err != nil {
		return err
	}
	snap, err := strongSnapshot(ctx, t, q, args)
	if err != nil {
		return err
	}
	if snap != nil {
		defer snap.Close()
	}
	sink.Start(fields)
	cpu := startCPU()
	defer func() {
		used := cpu.stop(0)
		if e.Stats != nil && err == nil {
			rows, bytes := sink.Sent()
			cols := make([]string, len(spec.Columns))
			for i, c := range spec.Columns {
				cols[i] = spec.Table.Name + "." + c.Name
			}
			e.Stats.RecordRead(db, req.RequestTag, cols, req.Partitioned, !t.ReadOnly, used.Seconds(), rows, bytes)
		}
	}()
	kind := readKind{tables: []*schema.Table{spec.Table}, snap: snap, cols: make([]string, len(spec.Columns))}
	for i, c := range spec.Columns {
		kind.cols[i] = c.Name
	}
	if spec.Index == nil && !spec.KeySet.All && len(spec.KeySet.Ranges) == 0 {
		kind.keys = spec.KeySet.Keys
	}
	_, err = runRead(ctx, t, q, args, kind, func(row []any) error {
		vals := make([]*structpb.Value, len(row))
		for i, x := range row {
			v, err := value.FromSQLite(x, spec.Columns[i].Type)
			if err != nil {
				return err
			}
			vals[i] = v
		}
		return sink.Row(vals)
	})
	return err
}
