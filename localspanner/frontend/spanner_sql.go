package frontend

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

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
	if err := checkDirectedRead(req.DirectedReadOptions, sel); err != nil {
		s.failBegin(sel)
		return err
	}
	if len(req.PartitionToken) > 0 {
		if err := sel.t.CheckPartition(req.PartitionToken, sess.Name, queryFingerprint(req.Sql, req.Params, req.ParamTypes)); err != nil {
			s.failBegin(sel)
			return err
		}
	}
	// Replay keys: request seqno*1000 for ExecuteSql, seqno*1000+i+1 for the i-th statement of
	// ExecuteBatchDml, so an ExecuteSql never replays a batch statement's row count (it did,
	// and skipped its write, when its seqno equalled a batch statement's index key).
	st := exec.Statement{SQL: req.Sql, Params: req.GetParams().GetFields(), Types: req.ParamTypes, Seqno: req.Seqno * 1000,
		RequestTag: requestTag(req.RequestOptions)}
	tagTxn(sel.t, req.RequestOptions)
	if exec.IsDML(req.Sql) {
		if err := exec.CheckDMLTransaction(sel.t, req.GetTransaction().GetSingleUse() != nil); err != nil {
			s.failBegin(sel)
			return err
		}
		var res *exec.DMLResult
		if req.QueryMode == spannerpb.ExecuteSqlRequest_PLAN {
			res, err = s.b.Exec.PlanDML(sel.t, st) // analysed, not run: nothing changes
		} else {
			res, err = s.b.Exec.DML(ctx, sel.t, st)
		}
		if err != nil {
			s.failBegin(sel)
			return err
		}
		meta := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: res.Fields}}
		if len(res.Undeclared) > 0 {
			meta.UndeclaredParameters = &spannerpb.StructType{Fields: res.Undeclared}
		}
		if sel.begun {
			meta.Transaction = txnPB(sel.t, true)
		}
		w.setMeta(meta)
		for _, r := range res.Rows {
			if err := w.row(r); err != nil {
				return err
			}
		}
		stats := &spannerpb.ResultSetStats{}
		if req.QueryMode == spannerpb.ExecuteSqlRequest_PLAN {
			stats.QueryPlan = queryPlan("")
		} else if res.Partitioned {
			stats.RowCount = &spannerpb.ResultSetStats_RowCountLowerBound{RowCountLowerBound: res.Count}
		} else {
			stats.RowCount = &spannerpb.ResultSetStats_RowCountExact{RowCountExact: res.Count}
		}
		return w.finish(stats)
	}
	planOnly := req.QueryMode == spannerpb.ExecuteSqlRequest_PLAN
	returnTS := req.GetTransaction().GetSingleUse().GetReadOnly().GetReturnReadTimestamp()
	res, err := s.b.Exec.Query(ctx, sess.DB, sel.t, st, planOnly, w.sink(sel, returnTS))
	if err != nil {
		s.failBegin(sel)
		return err
	}
	var stats *spannerpb.ResultSetStats
	switch req.QueryMode {
	case spannerpb.ExecuteSqlRequest_PLAN:
		stats = &spannerpb.ResultSetStats{QueryPlan: queryPlan(res.SQLiteSQL)}
		if len(res.Undeclared) > 0 && w.meta != nil {
			w.meta.UndeclaredParameters = &spannerpb.StructType{Fields: res.Undeclared}
		}
	case spannerpb.ExecuteSqlRequest_PROFILE, spannerpb.ExecuteSqlRequest_WITH_STATS:
		stats = queryStats(res.Elapsed, res.CPU, w.Returned, res.Scanned)
		if req.QueryMode == spannerpb.ExecuteSqlRequest_PROFILE {
			stats.QueryPlan = queryPlan(res.SQLiteSQL)
		}
	}
	return w.finish(stats)
}

// failBegin discards a transaction begun inline by a request that failed: the
// client never learnt its ID.
func (s *spannerServer) failBegin(sel selected) {
	if sel.begun && sel.t != nil {
		s.b.Txns.Rollback(sel.t)
	}
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
	if err := exec.CheckDMLTransaction(sel.t, req.GetTransaction().GetSingleUse() != nil); err != nil {
		s.failBegin(sel)
		return nil, err
	}
	resp := &spannerpb.ExecuteBatchDmlResponse{Status: status.New(0, "").Proto()}
	stmts := make([]exec.Statement, len(req.Statements))
	for i, st := range req.Statements {
		stmts[i] = exec.Statement{SQL: st.Sql, Params: st.GetParams().GetFields(), Types: st.ParamTypes, Seqno: req.Seqno*1000 + int64(i) + 1,
			RequestTag: requestTag(req.RequestOptions)}
	}
	tagTxn(sel.t, req.RequestOptions)
	results, err := s.b.Exec.BatchDML(ctx, sel.t, stmts)
	for i, res := range results {
		rs := &spannerpb.ResultSet{
			Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}},
			Stats:    &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: res.Count}},
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
	// The Go client takes the response's token, the Python client the first result
	// set's: both carry the same one.
	resp.PrecommitToken = precommitToken(sel.t)
	if len(resp.ResultSets) > 0 {
		resp.ResultSets[0].PrecommitToken = resp.PrecommitToken
	}
	return resp, nil
}
