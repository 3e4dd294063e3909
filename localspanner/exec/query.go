package exec

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/query"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// errPartitionedQuery answers a query or read in a partitioned DML transaction.
var errPartitionedQuery = spanerr.InvalidArgument("PartitionedDml Transactions may only be used to execute DML statements")

// QueryResult is what a query run measured.
type QueryResult struct {
	SQLiteSQL string // the compiled statement
	Elapsed   time.Duration
	CPU       time.Duration
	Scanned   int64
	// Undeclared are the parameters a PLAN-mode query uses but the request did not
	// declare, typed by their context (ResultSetMetadata.undeclared_parameters).
	Undeclared []*spannerpb.StructType_Field
}

// Query compiles st against db's catalog and runs it in t, passing the rows to
// sink. With planOnly it only compiles (and fixes the read timestamp of a strong
// single-use read): nothing runs and the result has only SQLiteSQL.
func (e *Engine) Query(ctx context.Context, db *storage.DB, t *txn.Txn, st Statement, planOnly bool, sink Sink) (*QueryResult, error) {
	if t.Partitioned {
		return nil, errPartitionedQuery
	}
	if call, ok, err := parseChangeStreamCall(db.Catalog(), st); ok {
		if err != nil {
			return nil, err
		}
		return e.streamQuery(ctx, db, st, call, sink)
	}
	start := time.Now()
	cpu := startCPU()
	defer func() {
		if cpu != nil {
			cpu.stop(0)
		}
	}()
	src := t.Source()
	params, err := toParams(st.Params, st.Types)
	if err != nil {
		return nil, err
	}
	if planOnly {
		return describeQuery(ctx, db, t, st, params, sink)
	}
	plan, err := query.Compile(db.Catalog(), st.SQL, params, src)
	if err != nil {
		return nil, err
	}
	args := plan.Args
	if extra := src.Args(plan.SQL); len(extra) > 0 {
		args = append(append([]any(nil), plan.Args...), extra...)
	}
	snap, err := strongSnapshot(ctx, t, plan.SQL, args)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		defer snap.Close()
	}
	sink.Start(plan.Fields)
	res := &QueryResult{SQLiteSQL: plan.SQL}
	fullscan, err := runRead(ctx, t, plan.SQL, args, readKind{tables: plan.Tables, snap: snap}, func(row []any) error {
		vals, err := plan.Decode(row)
		if err != nil {
			return err
		}
		return sink.Row(vals)
	})
	if err != nil {
		sec := time.Since(start).Seconds()
		rows, bytes := sink.Sent()
		e.recordQuery(db, st, sec, sec, rows, bytes, rows, true)
		return nil, err
	}
	res.Elapsed = time.Since(start)
	res.CPU = cpu.stop(res.Elapsed)
	cpu = nil
	rows, bytes := sink.Sent()
	res.Scanned = storage.Scanned(rows, fullscan)
	e.recordQuery(db, st, res.Elapsed.Seconds(), res.CPU.Seconds(), rows, bytes, res.Scanned, false)
	return res, nil
}

// describeQuery compiles a PLAN-mode query without running it, its undeclared
// parameters typed by their context, and fixes the read timestamp of a strong single-use read.
func describeQuery(ctx context.Context, db *storage.DB, t *txn.Txn, st Statement, params query.Params, sink Sink) (*QueryResult, error) {
	d, err := query.Describe(db.Catalog(), st.SQL, params, t.Source(), false)
	if err != nil {
		return nil, err
	}
	snap, err := strongSnapshot(ctx, t, "", nil) // nothing runs: the snapshot only gives the read timestamp
	if err != nil {
		return nil, err
	}
	if snap != nil {
		defer snap.Close()
	}
	sink.Start(d.Fields)
	return &QueryResult{SQLiteSQL: d.SQL, Undeclared: d.Undeclared}, nil
}

// streamQuery runs a change stream read and records it as a query: its latency is how long
// the stream stayed open, its CPU what reading and shaping the records took.
func (e *Engine) streamQuery(ctx context.Context, db *storage.DB, st Statement, call *csCall, sink Sink) (*QueryResult, error) {
	start := time.Now()
	cpu := startCPU()
	err := e.readChangeStream(ctx, db, call, sink)
	res := &QueryResult{Elapsed: time.Since(start)}
	res.CPU = cpu.stop(0)
	rows, bytes := sink.Sent()
	e.recordQuery(db, st, res.Elapsed.Seconds(), res.CPU.Seconds(), rows, bytes, rows, err != nil)
	return res, err
}
