// Package nullspanner is a Spanner server that does nothing: every data call is answered at once
// with a canned response, so that a load generator against it measures only its own client cost
// (bench/worker_runtime.py). Nothing is stored; reads return no rows; every commit succeeds.
package nullspanner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// data answers the Spanner data API.
type data struct {
	spannerpb.UnimplementedSpannerServer
	ids atomic.Uint64
}

func (d *data) next(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, d.ids.Add(1))
}

func (d *data) session(database string, multiplexed bool) *spannerpb.Session {
	return &spannerpb.Session{
		Name:        database + "/sessions/" + d.next("s"),
		CreateTime:  timestamppb.Now(),
		Multiplexed: multiplexed,
	}
}

func (d *data) CreateSession(_ context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	return d.session(req.Database, req.GetSession().GetMultiplexed()), nil
}

func (d *data) BatchCreateSessions(_ context.Context, req *spannerpb.BatchCreateSessionsRequest) (*spannerpb.BatchCreateSessionsResponse, error) {
	out := &spannerpb.BatchCreateSessionsResponse{}
	for range req.SessionCount {
		out.Session = append(out.Session, d.session(req.Database, false))
	}
	return out, nil
}

func (d *data) GetSession(_ context.Context, req *spannerpb.GetSessionRequest) (*spannerpb.Session, error) {
	return &spannerpb.Session{Name: req.Name, CreateTime: timestamppb.Now()}, nil
}

func (d *data) DeleteSession(context.Context, *spannerpb.DeleteSessionRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (d *data) transaction() *spannerpb.Transaction {
	return &spannerpb.Transaction{Id: []byte(d.next("t")), ReadTimestamp: timestamppb.Now()}
}

func (d *data) BeginTransaction(context.Context, *spannerpb.BeginTransactionRequest) (*spannerpb.Transaction, error) {
	return d.transaction(), nil
}

func (d *data) Commit(context.Context, *spannerpb.CommitRequest) (*spannerpb.CommitResponse, error) {
	return &spannerpb.CommitResponse{CommitTimestamp: timestamppb.Now()}, nil
}

func (d *data) Rollback(context.Context, *spannerpb.RollbackRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// metadata is the result set metadata of a query or read: the transaction it began, if asked to.
func (d *data) metadata(sel *spannerpb.TransactionSelector, fields []*spannerpb.StructType_Field) *spannerpb.ResultSetMetadata {
	md := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: fields}}
	if sel.GetBegin() != nil {
		md.Transaction = d.transaction()
	}
	return md
}

func isDML(sql string) bool {
	word, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
	switch strings.ToUpper(word) {
	case "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}

// result is the canned answer to a statement: DML changed one row; CURRENT_TIMESTAMP() is now;
// any other query has no rows.
func (d *data) result(req *spannerpb.ExecuteSqlRequest) *spannerpb.ResultSet {
	if isDML(req.Sql) {
		return &spannerpb.ResultSet{
			Metadata: d.metadata(req.Transaction, nil),
			Stats:    &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}},
		}
	}
	if strings.Contains(strings.ToUpper(req.Sql), "CURRENT_TIMESTAMP()") {
		field := &spannerpb.StructType_Field{Name: "", Type: &spannerpb.Type{Code: spannerpb.TypeCode_TIMESTAMP}}
		now := time.Now().UTC().Format(time.RFC3339Nano)
		return &spannerpb.ResultSet{
			Metadata: d.metadata(req.Transaction, []*spannerpb.StructType_Field{field}),
			Rows:     []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue(now)}}},
		}
	}
	return &spannerpb.ResultSet{Metadata: d.metadata(req.Transaction, nil)}
}

func (d *data) ExecuteSql(_ context.Context, req *spannerpb.ExecuteSqlRequest) (*spannerpb.ResultSet, error) {
	return d.result(req), nil
}

func (d *data) ExecuteStreamingSql(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	rs := d.result(req)
	var values []*structpb.Value
	for _, row := range rs.Rows {
		values = append(values, row.Values...)
	}
	return stream.Send(&spannerpb.PartialResultSet{Metadata: rs.Metadata, Values: values, Stats: rs.Stats, Last: true})
}

func (d *data) ExecuteBatchDml(_ context.Context, req *spannerpb.ExecuteBatchDmlRequest) (*spannerpb.ExecuteBatchDmlResponse, error) {
	out := &spannerpb.ExecuteBatchDmlResponse{}
	for i := range req.Statements {
		rs := &spannerpb.ResultSet{Stats: &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}}
		if i == 0 {
			rs.Metadata = d.metadata(req.Transaction, nil)
		}
		out.ResultSets = append(out.ResultSets, rs)
	}
	return out, nil
}

func (d *data) Read(_ context.Context, req *spannerpb.ReadRequest) (*spannerpb.ResultSet, error) {
	return &spannerpb.ResultSet{Metadata: d.metadata(req.Transaction, nil)}, nil
}

func (d *data) StreamingRead(req *spannerpb.ReadRequest, stream spannerpb.Spanner_StreamingReadServer) error {
	return stream.Send(&spannerpb.PartialResultSet{Metadata: d.metadata(req.Transaction, nil), Last: true})
}
