package exec

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/query"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// DMLResult is the result of one DML statement.
type DMLResult struct {
	Count       int64
	Fields      []*spannerpb.StructType_Field // THEN RETURN columns
	Rows        [][]*structpb.Value           // THEN RETURN rows
	Partitioned bool                          // Count is a lower bound
	// Undeclared are a PLAN-mode statement's undeclared parameters (PlanDML).
	Undeclared []*spannerpb.StructType_Field

	plan *query.DMLPlan
	args []any
	hash uint64 // of the rows the statement's plan yielded
}

// CheckDMLTransaction refuses DML outside a read-write or partitioned DML
// transaction with the codes and messages of the official emulator
// (frontend/handlers/queries.cc): INVALID_ARGUMENT for a single-use transaction
// (DmlDoesNotSupportSingleUseTransaction) and for a read-only one
// (ReadOnlyTransactionDoesNotSupportDml), which the Python DB-API turns into
// ProgrammingError.
func CheckDMLTransaction(t *txn.Txn, singleUse bool) error {
	if singleUse {
		return spanerr.InvalidArgument("DML statements may not be performed in single-use transactions, to avoid replay.")
	}
	if t.ReadOnly {
		return spanerr.InvalidArgument("DML statements can only be performed in a read-write or partitioned-dml transaction. Current transaction type is ReadOnly.")
	}
	return nil
}

// DML runs one DML statement in t; in a partitioned DML transaction it also
// commits it.
func (e *Engine) DML(ctx context.Context, t *txn.Txn, st Statement) (*DMLResult, error) {
	if t.Partitioned {
		if err := checkPartitionedDML(t, st); err != nil {
			return nil, err
		}
	}
	res, err := e.BatchDML(ctx, t, []Statement{st})
	if err != nil {
		return nil, err
	}
	if t.Partitioned {
		if _, err := e.Txns.Commit(ctx, t, nil); err != nil {
			return nil, err
		}
		res[0].Partitioned = true
	}
	return res[0], nil
}

// PlanDML analyses one DML statement without running it (query_mode PLAN, as
// Spanner: a plan, no rows changed): its tables, columns and parameter types are
// checked, and its THEN RETURN columns come back as the result's fields.
func (e *Engine) PlanDML(t *txn.Txn, st Statement) (*DMLResult, error) {
	qp, err := toParams(st.Params, st.Types)
	if err != nil {
		return nil, err
	}
	d, err := query.Describe(t.DB.Catalog(), st.SQL, qp, t.Source(), true)
	if err != nil {
		return nil, err
	}
	return &DMLResult{Fields: d.Fields, Undeclared: d.Undeclared}, nil
}

// checkPartitionedDML refuses what Partitioned DML cannot run: it applies UPDATE
// and DELETE statements partition by partition, so an INSERT has no partition.
func checkPartitionedDML(t *txn.Txn, st Statement) error {
	qp, err := toParams(st.Params, st.Types)
	if err != nil {
		return err
	}
	plan, err := query.CompileDML(t.DB.Catalog(), st.SQL, qp, t.Source())
	if err != nil {
		return err
	}
	if plan.Kind != query.DMLUpdate && plan.Kind != query.DMLDelete {
		return spanerr.InvalidArgument("INSERT is not supported for Partitioned DML")
	}
	return query.CheckFullyPartitionable(t.DB.Catalog(), st.SQL)
}

// BatchDML runs DML statements in order in a read-write transaction, stopping
// at the first that fails: it returns the results of the statements before it and
// its error. They run on the writer with the transaction's earlier writes applied
// once (each statement sees them and the statements before it), and each
// statement's own writes are applied there too, so that a duplicate key or a
// missing parent fails that statement, as in Spanner. Successful statements'
// writes are buffered in the transaction.
func (e *Engine) BatchDML(ctx context.Context, t *txn.Txn, stmts []Statement) ([]*DMLResult, error) {
	if err := CheckDMLTransaction(t, false); err != nil {
		return nil, err
	}
	db := t.DB
	src := t.Source()
	seq := t.ReadSeq()
	pending := t.Pending()
	var results []*DMLResult
	var stmtErr error
	err := db.WithPending(ctx, pending, func(q storage.Querier, apply func(*storage.Mutation) error) error {
		applied := len(pending) // the transaction's writes each statement sees
		for _, st := range stmts {
			if n, ok := t.DMLReplay(st.Seqno); ok && st.Seqno != 0 {
				results = append(results, &DMLResult{Count: n})
				continue
			}
			start := time.Now()
			res, m, err := runDML(ctx, db, src, q, apply, st)
			// DML statements appear in the query statistics, as in Spanner.
			sec := time.Since(start).Seconds()
			var rows int64
			if res != nil {
				rows = res.Count
			}
			e.recordQuery(db, st, sec, sec, rows, 0, rows, err != nil)
			if err != nil {
				stmtErr = err
				return nil
			}
			if m != nil {
				if err := t.Buffer(m); err != nil {
					return err
				}
			}
			if res.plan.Kind == query.DMLUpdate || res.plan.Kind == query.DMLDelete {
				t.RecordQueryRead(seq, []*schema.Table{res.plan.Table}, res.plan.SQL, res.args, res.hash, applied)
			}
			if m != nil {
				applied++
			}
			t.RecordDML(st.Seqno, res.Count)
			results = append(results, res)
		}
		return nil
	})
	if err != nil {
		return results, err
	}
	return results, stmtErr
}

// runDML compiles and runs one DML statement on the writer (q, apply) and returns
// its result and the mutation it makes (nil when it matched no row).
func runDML(ctx context.Context, db *storage.DB, src *storage.Source, q storage.Querier, apply func(*storage.Mutation) error, st Statement) (*DMLResult, *storage.Mutation, error) {
	qp, err := toParams(st.Params, st.Types)
	if err != nil {
		return nil, nil, err
	}
	plan, err := query.CompileDML(db.Catalog(), st.SQL, qp, src)
	if err != nil {
		return nil, nil, err
	}
	args := plan.Args
	if extra := src.Args(plan.SQL); len(extra) > 0 {
		args = append(append([]any(nil), plan.Args...), extra...)
	}
	res := &DMLResult{Fields: plan.Returning, plan: plan, args: args}
	h := storage.NewRowHash()
	rows, err := q(ctx, plan.SQL, args...)
	if err != nil {
		return nil, nil, err
	}
	var cells [][]any
	err = storage.ScanRows(rows, func(row []any) error {
		h.Add(row)
		cells = append(cells, row[:len(plan.Columns)])
		if len(plan.Returning) > 0 {
			vals, err := plan.DecodeReturning(row)
			if err != nil {
				return err
			}
			res.Rows = append(res.Rows, vals)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	res.hash = h.Sum()
	res.Count = int64(len(cells))
	if len(cells) == 0 {
		return res, nil, nil
	}
	m, err := dmlMutation(plan, cells)
	if err != nil {
		return nil, nil, err
	}
	if err := apply(m); err != nil {
		return nil, nil, err
	}
	if m.Op == storage.OpInsertOrIgnore {
		res.Count -= int64(m.Ignored)
	}
	return res, m, nil
}

// dmlMutation turns the rows a DML plan yielded into one mutation.
func dmlMutation(plan *query.DMLPlan, cells [][]any) (*storage.Mutation, error) {
	tb := plan.Table
	switch plan.Kind {
	case query.DMLInsert:
		return &storage.Mutation{Op: storage.OpInsert, Table: tb, Columns: plan.Columns, Rows: cells}, nil
	case query.DMLInsertOrUpdate:
		return &storage.Mutation{Op: storage.OpInsertOrUpdate, Table: tb, Columns: plan.Columns, Rows: cells}, nil
	case query.DMLInsertOrIgnore:
		return &storage.Mutation{Op: storage.OpInsertOrIgnore, Table: tb, Columns: plan.Columns, Rows: cells}, nil
	case query.DMLUpdate:
		return &storage.Mutation{Op: storage.OpUpdate, Table: tb, Columns: plan.Columns, Rows: cells}, nil
	case query.DMLDelete:
		keys := make([][]any, len(cells))
		for i, c := range cells {
			keys[i] = c[:len(tb.PrimaryKey)]
		}
		return &storage.Mutation{Op: storage.OpDelete, Table: tb, KeySet: storage.KeySet{Keys: keys}}, nil
	}
	return nil, spanerr.Unimplemented("DML kind %d is not supported", plan.Kind)
}
