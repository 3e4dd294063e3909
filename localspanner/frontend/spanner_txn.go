package frontend

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/txn"
)

// selected is the transaction a request runs in.
type selected struct {
	t         *txn.Txn
	begun     bool // begun inline by this request: report it in the metadata
	singleUse bool
}

// resolve returns the transaction named by sel (single-use read-only when nil).
func (s *spannerServer) resolve(sess *txn.Session, sel *spannerpb.TransactionSelector) (selected, error) {
	switch x := sel.GetSelector().(type) {
	case nil:
		t, err := s.b.Txns.Begin(sess, nil, true)
		return selected{t: t, singleUse: true}, err
	case *spannerpb.TransactionSelector_SingleUse:
		if x.SingleUse.GetReadWrite() != nil {
			return selected{}, spanerr.InvalidArgument("Single-use read-write transactions are not supported for reads and queries; begin a transaction.")
		}
		t, err := s.b.Txns.Begin(sess, x.SingleUse, true)
		return selected{t: t, singleUse: true}, err
	case *spannerpb.TransactionSelector_Id:
		t, err := s.b.Txns.Txn(sess, x.Id)
		return selected{t: t}, err
	case *spannerpb.TransactionSelector_Begin:
		t, err := s.b.Txns.Begin(sess, x.Begin, false)
		return selected{t: t, begun: true}, err
	default:
		return selected{}, spanerr.InvalidArgument("unknown transaction selector %T", x)
	}
}

// checkDirectedRead refuses directed read options outside a read-only
// transaction: "DirectedReadOptions can only be specified for a read-only
// transaction, otherwise the API returns an INVALID_ARGUMENT error." This server
// has one replica, so in a read-only transaction they change nothing.
func checkDirectedRead(opts *spannerpb.DirectedReadOptions, sel selected) error {
	if opts != nil && !sel.t.ReadOnly {
		return spanerr.InvalidArgument("Directed reads can only be performed in a read-only transaction.")
	}
	return nil
}

// precommitToken is the token every response of a read-write transaction on a
// multiplexed session carries; the client returns the one with the highest
// sequence number in its Commit.
func precommitToken(t *txn.Txn) *spannerpb.MultiplexedSessionPrecommitToken {
	if t == nil || t.ReadOnly || !t.Session.Multiplexed {
		return nil
	}
	return &spannerpb.MultiplexedSessionPrecommitToken{PrecommitToken: []byte(t.ID), SeqNum: t.NextPrecommitSeq()}
}

// txnPB describes a transaction for responses.
func txnPB(t *txn.Txn, withID bool) *spannerpb.Transaction {
	pb := &spannerpb.Transaction{}
	if withID {
		pb.Id = []byte(t.ID)
		pb.PrecommitToken = precommitToken(t)
	}
	if t.ReadOnly {
		pb.ReadTimestamp = timestamppb.New(t.ReadTimestamp())
	}
	return pb
}

func (s *spannerServer) BeginTransaction(_ context.Context, req *spannerpb.BeginTransactionRequest) (*spannerpb.Transaction, error) {
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return nil, err
	}
	t, err := s.b.Txns.Begin(sess, req.Options, false)
	if err != nil {
		return nil, err
	}
	tagTxn(t, req.RequestOptions)
	return txnPB(t, true), nil
}

func (s *spannerServer) Commit(ctx context.Context, req *spannerpb.CommitRequest) (*spannerpb.CommitResponse, error) {
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return nil, err
	}
	var t *txn.Txn
	switch x := req.Transaction.(type) {
	case *spannerpb.CommitRequest_TransactionId:
		t, err = s.b.Txns.TxnToCommit(sess, x.TransactionId)
	case *spannerpb.CommitRequest_SingleUseTransaction:
		if x.SingleUseTransaction.GetReadWrite() == nil {
			return nil, spanerr.InvalidArgument("Commit of a single-use transaction needs read_write options.")
		}
		t, err = s.b.Txns.Begin(sess, x.SingleUseTransaction, true)
	default:
		return nil, spanerr.InvalidArgument("No value provided for required field: CommitRequest.transaction")
	}
	if err != nil {
		return nil, err
	}
	if err := t.CheckPrecommit(req.PrecommitToken); err != nil {
		return nil, err
	}
	tagTxn(t, req.RequestOptions)
	muts, err := txn.ConvertMutations(sess.DB.Catalog(), req.Mutations)
	if err != nil {
		s.b.Txns.Rollback(t)
		return nil, err
	}
	res, err := s.b.Txns.Commit(ctx, t, muts)
	if err != nil {
		return nil, err
	}
	resp := &spannerpb.CommitResponse{CommitTimestamp: timestamppb.New(res.TS)}
	if req.ReturnCommitStats {
		resp.CommitStats = &spannerpb.CommitResponse_CommitStats{MutationCount: res.Mutations}
	}
	return resp, nil
}

func (s *spannerServer) Rollback(_ context.Context, req *spannerpb.RollbackRequest) (*emptypb.Empty, error) {
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return nil, err
	}
	t, err := s.b.Txns.Txn(sess, req.TransactionId)
	if err != nil {
		// Rolling back an unknown or finished transaction is not an error in Spanner.
		return &emptypb.Empty{}, nil //nolint:nilerr // Spanner ignores it
	}
	s.b.Txns.Rollback(t)
	return &emptypb.Empty{}, nil
}
