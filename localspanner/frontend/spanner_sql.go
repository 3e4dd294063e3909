package frontend

import (
	"context"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/token"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/query"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

// isDML reports whether a statement starts with INSERT, UPDATE or DELETE (after
// comments and a statement hint), using memefish's lexer.
func isDML(sql string) (dml bool) {
	defer func() {
		if recover() != nil {
			dml = false // the query layer reports the syntax error
		}
	}()
	lx := &memefish.Lexer{File: &token.File{Buffer: sql}}
	depth := 0
	for i := 0; i < 64; i++ {
		if err := lx.NextToken(); err != nil || lx.Token.Kind == token.TokenEOF {
			return false
		}
		switch {
		case lx.Token.Kind == "@" && depth == 0:
			continue
		case lx.Token.Kind == "{":
			depth++
			continue
		case lx.Token.Kind == "}":
			depth--
			continue
		case depth > 0:
			continue
		}
		switch strings.ToUpper(lx.Token.Raw) {
		case "INSERT", "UPDATE", "DELETE":
			return true
		}
		return false
	}
	return false
}

func toParams(fields map[string]*structpb.Value, types map[string]*spannerpb.Type) (query.Params, error) {
	for name, t := range types {
		if err := checkType(t); err != nil {
			return nil, spanerr.InvalidArgument("Invalid type for parameter %s: %v", name, err)
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	p := make(query.Params, len(fields))
	for name, v := range fields {
		p[name] = query.Param{Value: v, Type: types[name]}
	}
	return p, nil
}

// checkType rejects malformed wire types (an ARRAY without element type, ...).
func checkType(t *spannerpb.Type) error {
	switch t.GetCode() {
	case spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED:
		return spanerr.InvalidArgument("type code is unspecified")
	case spannerpb.TypeCode_ARRAY:
		if t.ArrayElementType == nil {
			return spanerr.InvalidArgument("ARRAY type without an element type")
		}
		return checkType(t.ArrayElementType)
	case spannerpb.TypeCode_STRUCT:
		if t.StructType == nil {
			return spanerr.InvalidArgument("STRUCT type without fields")
		}
		for _, f := range t.StructType.Fields {
			if err := checkType(f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *spannerServer) ExecuteSql(ctx context.Context, req *spannerpb.ExecuteSqlRequest) (*spannerpb.ResultSet, error) {
	w := newResultWriter(nil, req.ResumeToken)
	if err := s.executeSQL(ctx, req, w); err != nil {
		return nil, err
	}
	return w.rs, nil
}

func (s *spannerServer) ExecuteStreamingSql(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	w := newResultWriter(stream.Send, req.ResumeToken)
	return s.executeSQL(stream.Context(), req, w)
}

func (s *spannerServer) executeSQL(ctx context.Context, req *spannerpb.ExecuteSqlRequest, w *resultWriter) error {
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return err
	}
	sel, err := s.resolve(sess, req.Transaction)
	if err != nil {
		return err
	}
	w.txn = sel.t
	if isDML(req.Sql) {
		res, err := s.executeDML(ctx, sel, req.Sql, req.GetParams().GetFields(), req.ParamTypes, req.Seqno)
		if err != nil {
			s.failBegin(sel)
			return err
		}
		if sel.t.Partitioned {
			if _, err := s.b.Txns.Commit(ctx, sel.t, nil); err != nil {
				return err
			}
			res.partitioned = true
		}
		meta := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: res.fields}}
		if sel.begun {
			meta.Transaction = txnPB(sel.t, true)
		}
		w.setMeta(meta)
		for _, r := range res.rows {
			if err := w.row(r); err != nil {
				return err
			}
		}
		stats := &spannerpb.ResultSetStats{}
		if res.partitioned {
			stats.RowCount = &spannerpb.ResultSetStats_RowCountLowerBound{RowCountLowerBound: res.count}
		} else {
			stats.RowCount = &spannerpb.ResultSetStats_RowCountExact{RowCountExact: res.count}
		}
		return w.finish(stats)
	}
	err = s.runQuery(ctx, sess.DB, sel, req, w)
	if err != nil {
		s.failBegin(sel)
	}
	return err
}

// failBegin discards a transaction begun inline by a request that failed: the
// client never learnt its ID.
func (s *spannerServer) failBegin(sel selected) {
	if sel.begun && sel.t != nil {
		s.b.Txns.Rollback(sel.t)
	}
}

func (s *spannerServer) runQuery(ctx context.Context, db *storage.DB, sel selected, req *spannerpb.ExecuteSqlRequest, w *resultWriter) error {
	t := sel.t
	start := time.Now()
	cpu := startCPU()
	defer func() {
		if cpu != nil {
			cpu.stop(0)
		}
	}()
	src := t.Source()
	params, err := toParams(req.GetParams().GetFields(), req.ParamTypes)
	if err != nil {
		return err
	}
	plan, err := query.Compile(db.Catalog(), req.Sql, params, src)
	if err != nil {
		return err
	}
	args := plan.Args
	if extra := src.Args(plan.SQL); len(extra) > 0 {
		args = append(append([]any(nil), plan.Args...), extra...)
	}
	snapSQL := plan.SQL
	if req.QueryMode == spannerpb.ExecuteSqlRequest_PLAN {
		snapSQL = "" // nothing runs: the snapshot only gives the read timestamp
	}
	snap, err := strongSnapshot(ctx, t, snapSQL, args)
	if err != nil {
		return err
	}
	if snap != nil {
		defer snap.Close()
	}
	meta := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: plan.Fields}}
	if sel.begun || (t.ReadOnly && sel.singleUse && req.GetTransaction().GetSingleUse().GetReadOnly().GetReturnReadTimestamp()) {
		meta.Transaction = txnPB(t, sel.begun)
	}
	w.setMeta(meta)
	if req.QueryMode == spannerpb.ExecuteSqlRequest_PLAN {
		return w.finish(&spannerpb.ResultSetStats{QueryPlan: queryPlan(plan.SQL)})
	}
	fullscan, err := runRead(ctx, t, plan.SQL, args, readKind{tables: plan.Tables, snap: snap}, func(row []any) error {
		vals, err := plan.Decode(row)
		if err != nil {
			return err
		}
		return w.row(vals)
	})
	if err != nil {
		s.recordQuery(db, req.Sql, start, w, true)
		return err
	}
	elapsed := time.Since(start)
	used := cpu.stop(elapsed)
	cpu = nil
	if s.b.Stats != nil {
		s.b.Stats.RecordQuery(db, req.Sql, elapsed.Seconds(), used.Seconds(), w.Returned, w.Bytes, storage.Scanned(w.Returned, fullscan), false)
	}
	var stats *spannerpb.ResultSetStats
	if req.QueryMode == spannerpb.ExecuteSqlRequest_PROFILE || req.QueryMode == spannerpb.ExecuteSqlRequest_WITH_STATS {
		stats = queryStats(elapsed, used, w.Returned, storage.Scanned(w.Returned, fullscan))
		if req.QueryMode == spannerpb.ExecuteSqlRequest_PROFILE {
			stats.QueryPlan = queryPlan(plan.SQL)
		}
	}
	return w.finish(stats)
}

func (s *spannerServer) recordQuery(db *storage.DB, sql string, start time.Time, w *resultWriter, failed bool) time.Duration {
	elapsed := time.Since(start)
	if s.b.Stats != nil {
		sec := elapsed.Seconds()
		s.b.Stats.RecordQuery(db, sql, sec, sec, w.Returned, w.Bytes, w.Returned, failed)
	}
	return elapsed
}

func queryStats(elapsed, cpu time.Duration, rows, scanned int64) *spannerpb.ResultSetStats {
	st, _ := structpb.NewStruct(map[string]any{
		"elapsed_time":      formatMs(float64(elapsed.Microseconds()) / 1000),
		"cpu_time":          formatMs(float64(cpu.Microseconds()) / 1000),
		"rows_returned":     itoa(rows),
		"rows_scanned":      itoa(scanned),
		"query_text":        "",
		"optimizer_version": "1",
	})
	return &spannerpb.ResultSetStats{QueryStats: st}
}

// queryPlan is a one-node plan that names the SQLite statement that ran.
func queryPlan(sqliteSQL string) *spannerpb.QueryPlan {
	meta, _ := structpb.NewStruct(map[string]any{"sqlite_statement": sqliteSQL})
	return &spannerpb.QueryPlan{PlanNodes: []*spannerpb.PlanNode{{
		Index: 0, Kind: spannerpb.PlanNode_RELATIONAL, DisplayName: "SQLite Query", Metadata: meta,
	}}}
}

type dmlResult struct {
	count       int64
	fields      []*spannerpb.StructType_Field
	rows        [][]*structpb.Value
	partitioned bool

	plan *query.DMLPlan
	args []any
	hash uint64 // of the rows the statement's plan yielded
}

// dmlStatement is one DML statement of a request.
type dmlStatement struct {
	sql    string
	params map[string]*structpb.Value
	types  map[string]*spannerpb.Type
	seqno  int64
}

func (s *spannerServer) executeDML(ctx context.Context, sel selected, sql string, params map[string]*structpb.Value, types map[string]*spannerpb.Type, seqno int64) (*dmlResult, error) {
	res, err := s.executeDMLs(ctx, sel, []dmlStatement{{sql: sql, params: params, types: types, seqno: seqno}})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// executeDMLs runs DML statements in order in a read-write transaction, stopping
// at the first that fails: it returns the results of the statements before it and
// its error. They run on the writer with the transaction's earlier writes applied
// once (each statement sees them and the statements before it), and each
// statement's own writes are applied there too, so that a duplicate key or a
// missing parent fails that statement, as in Spanner. Successful statements'
// writes are buffered in the transaction.
func (s *spannerServer) executeDMLs(ctx context.Context, sel selected, stmts []dmlStatement) ([]*dmlResult, error) {
	t := sel.t
	if t.ReadOnly {
		return nil, spanerr.FailedPrecondition("DML statements can only be performed in a read-write or partitioned-dml transaction.")
	}
	db := t.DB
	src := t.Source()
	seq := t.ReadSeq()
	pending := t.Pending()
	var results []*dmlResult
	var stmtErr error
	err := db.WithPending(ctx, pending, func(q storage.Querier, apply func(*storage.Mutation) error) error {
		sawWrites := len(pending) > 0
		for _, st := range stmts {
			if n, ok := t.DMLReplay(st.seqno); ok && st.seqno != 0 {
				results = append(results, &dmlResult{count: n})
				continue
			}
			start := time.Now()
			res, m, err := runDML(ctx, db, src, q, apply, st)
			if s.b.Stats != nil {
				// DML statements appear in the query statistics, as in Spanner.
				sec := time.Since(start).Seconds()
				var rows int64
				if res != nil {
					rows = res.count
				}
				s.b.Stats.RecordQuery(db, st.sql, sec, sec, rows, 0, rows, err != nil)
			}
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
				if !sawWrites {
					t.RecordQueryRead(seq, []*schema.Table{res.plan.Table}, res.plan.SQL, res.args, res.hash)
				} else {
					t.RecordTableRead(seq, res.plan.Table)
				}
			}
			sawWrites = sawWrites || m != nil
			t.RecordDML(st.seqno, res.count)
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
func runDML(ctx context.Context, db *storage.DB, src *storage.Source, q storage.Querier, apply func(*storage.Mutation) error, st dmlStatement) (*dmlResult, *storage.Mutation, error) {
	qp, err := toParams(st.params, st.types)
	if err != nil {
		return nil, nil, err
	}
	plan, err := query.CompileDML(db.Catalog(), st.sql, qp, src)
	if err != nil {
		return nil, nil, err
	}
	args := plan.Args
	if extra := src.Args(plan.SQL); len(extra) > 0 {
		args = append(append([]any(nil), plan.Args...), extra...)
	}
	res := &dmlResult{fields: plan.Returning, plan: plan, args: args}
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
			res.rows = append(res.rows, vals)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	res.hash = h.Sum()
	res.count = int64(len(cells))
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
		res.count -= int64(m.Ignored)
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

func (s *spannerServer) ExecuteBatchDml(ctx context.Context, req *spannerpb.ExecuteBatchDmlRequest) (*spannerpb.ExecuteBatchDmlResponse, error) {
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return nil, err
	}
	if len(req.Statements) == 0 {
		return nil, spanerr.InvalidArgument("No statements in batch DML request.")
	}
	sel, err := s.resolve(sess, req.Transaction)
	if err != nil {
		return nil, err
	}
	if sel.t.ReadOnly {
		s.failBegin(sel)
		return nil, spanerr.FailedPrecondition("DML statements can only be performed in a read-write transaction.")
	}
	resp := &spannerpb.ExecuteBatchDmlResponse{Status: status.New(0, "").Proto()}
	stmts := make([]dmlStatement, len(req.Statements))
	for i, st := range req.Statements {
		stmts[i] = dmlStatement{sql: st.Sql, params: st.GetParams().GetFields(), types: st.ParamTypes, seqno: req.Seqno*1000 + int64(i) + 1}
	}
	results, err := s.executeDMLs(ctx, sel, stmts)
	for i, res := range results {
		rs := &spannerpb.ResultSet{
			Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}},
			Stats:    &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: res.count}},
		}
		if i == 0 && sel.begun {
			rs.Metadata.Transaction = txnPB(sel.t, true)
		}
		resp.ResultSets = append(resp.ResultSets, rs)
	}
	if err != nil {
		if len(results) == 0 {
			s.failBegin(sel)
		}
		resp.Status = status.Convert(toStatus(err, nil)).Proto()
	}
	resp.PrecommitToken = precommitToken(sel.t)
	return resp, nil
}
