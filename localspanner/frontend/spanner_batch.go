package frontend

import (
	"context"
	"crypto/rand"
	"crypto/sha256"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/txn"
)

// BatchWrite commits each mutation group in its own transaction and streams one
// response per group (groups are independent: one failing does not stop the rest).
func (s *spannerServer) BatchWrite(req *spannerpb.BatchWriteRequest, stream spannerpb.Spanner_BatchWriteServer) error {
	ctx := stream.Context()
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return err
	}
	rw := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}
	for i, g := range req.MutationGroups {
		resp := &spannerpb.BatchWriteResponse{Indexes: []int32{int32(i)}}
		ts, err := s.commitGroup(ctx, sess, rw, req.RequestOptions, g.Mutations)
		if err != nil {
			resp.Status = status.Convert(toStatus(err, nil)).Proto()
		} else {
			resp.Status = status.New(0, "").Proto()
			resp.CommitTimestamp = ts
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
	return nil
}

func (s *spannerServer) commitGroup(ctx context.Context, sess *txn.Session, opts *spannerpb.TransactionOptions, reqOpts *spannerpb.RequestOptions, muts []*spannerpb.Mutation) (*timestamppb.Timestamp, error) {
	t, err := s.b.Txns.Begin(sess, opts, true)
	if err != nil {
		return nil, err
	}
	tagTxn(t, reqOpts)
	sm, err := txn.ConvertMutations(sess.DB.Catalog(), muts)
	if err != nil {
		return nil, err
	}
	res, err := s.b.Txns.Commit(ctx, t, sm)
	if err != nil {
		return nil, err
	}
	return timestamppb.New(res.TS), nil
}

// partitions answers a partition request with a single partition: this server
// runs every query and read in one piece, so the token only needs to be opaque.
// check validates the request in its transaction before any partition is made.
func (s *spannerServer) partitions(session string, sel *spannerpb.TransactionSelector, opts *spannerpb.PartitionOptions, fingerprint string, check func(*txn.Session, *txn.Txn) error) (*spannerpb.PartitionResponse, error) {
	sess, err := s.b.Txns.Session(session)
	if err != nil {
		return nil, err
	}
	switch sel.GetSelector().(type) {
	case nil:
		return nil, spanerr.InvalidArgument("Invalid PartitionQuery/PartitionRead request: the transaction selector is required.")
	case *spannerpb.TransactionSelector_SingleUse:
		return nil, spanerr.InvalidArgument("Partition reads may not be performed in single-use transactions, since the response needs to be reused.")
	}
	if opts.GetPartitionSizeBytes() < 0 {
		return nil, spanerr.InvalidArgument("Invalid partition_options: bytes per batch must be greater than zero.")
	}
	if opts.GetMaxPartitions() < 0 {
		return nil, spanerr.InvalidArgument("Invalid partition_options: max partition count must be greater than zero.")
	}
	sl, err := s.resolve(sess, sel)
	if err != nil {
		return nil, err
	}
	if !sl.t.ReadOnly {
		s.failBegin(sl)
		return nil, spanerr.InvalidArgument("Partitioned reads can only be performed in a read-only transaction.")
	}
	if err := check(sess, sl.t); err != nil {
		s.failBegin(sl)
		return nil, err
	}
	token := make([]byte, 16)
	_, _ = rand.Read(token)
	sl.t.AddPartition(token, sess.Name, fingerprint)
	resp := &spannerpb.PartitionResponse{Partitions: []*spannerpb.Partition{{PartitionToken: token}}}
	if sl.begun {
		resp.Transaction = txnPB(sl.t, true)
	}
	return resp, nil
}

func (s *spannerServer) PartitionQuery(_ context.Context, req *spannerpb.PartitionQueryRequest) (*spannerpb.PartitionResponse, error) {
	fp := queryFingerprint(req.Sql, req.Params, req.ParamTypes)
	return s.partitions(req.Session, req.Transaction, req.PartitionOptions, fp, func(sess *txn.Session, t *txn.Txn) error {
		st := exec.Statement{SQL: req.Sql, Params: req.GetParams().GetFields(), Types: req.ParamTypes}
		return s.b.Exec.CheckPartitionQuery(sess.DB, t, st)
	})
}

func (s *spannerServer) PartitionRead(_ context.Context, req *spannerpb.PartitionReadRequest) (*spannerpb.PartitionResponse, error) {
	fp := readFingerprint(req.Table, req.Index, req.Columns, req.KeySet)
	return s.partitions(req.Session, req.Transaction, req.PartitionOptions, fp, func(sess *txn.Session, _ *txn.Txn) error {
		args := exec.ReadArgs{Table: req.Table, Index: req.Index, Columns: req.Columns, KeySet: req.KeySet}
		return s.b.Exec.CheckPartitionRead(sess.DB, args)
	})
}

// queryFingerprint identifies a query and its parameters, so that a partition
// token runs only the query it was made for.
func queryFingerprint(sql string, params *structpb.Struct, types map[string]*spannerpb.Type) string {
	return fingerprint(&spannerpb.ExecuteSqlRequest{Sql: sql, Params: params, ParamTypes: types})
}

// readFingerprint identifies a read, likewise.
func readFingerprint(table, index string, columns []string, keys *spannerpb.KeySet) string {
	return fingerprint(&spannerpb.ReadRequest{Table: table, Index: index, Columns: columns, KeySet: keys})
}

func fingerprint(m proto.Message) string {
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	sum := sha256.Sum256(b)
	return string(sum[:])
}
