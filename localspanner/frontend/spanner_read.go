package frontend

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/storage"
)

func (s *spannerServer) Read(ctx context.Context, req *spannerpb.ReadRequest) (*spannerpb.ResultSet, error) {
	w := newResultWriter(nil, req.ResumeToken)
	if err := s.read(ctx, req, w); err != nil {
		return nil, err
	}
	return w.rs, nil
}

func (s *spannerServer) StreamingRead(req *spannerpb.ReadRequest, stream spannerpb.Spanner_StreamingReadServer) error {
	w := newResultWriter(stream.Send, req.ResumeToken)
	return s.read(stream.Context(), req, w)
}

func (s *spannerServer) read(ctx context.Context, req *spannerpb.ReadRequest, w *resultWriter) error {
	sess, err := s.b.Txns.Session(req.Session)
	if err != nil {
		return err
	}
	sel, err := s.resolve(sess, req.Transaction)
	if err != nil {
		return err
	}
	w.txn = sel.t
	tagTxn(sel.t, req.RequestOptions)
	if err := checkDirectedRead(req.DirectedReadOptions, sel); err != nil {
		s.failBegin(sel)
		return err
	}
	if len(req.PartitionToken) > 0 {
		if err := sel.t.CheckPartition(req.PartitionToken, sess.Name, readFingerprint(req.Table, req.Index, req.Columns, req.KeySet)); err != nil {
			s.failBegin(sel)
			return err
		}
	}
	err = s.readIn(ctx, sess.DB, sel, req, w)
	if err != nil {
		s.failBegin(sel)
	}
	return err
}

func (s *spannerServer) readIn(ctx context.Context, db *storage.DB, sel selected, req *spannerpb.ReadRequest, w *resultWriter) error {
	args := exec.ReadArgs{Table: req.Table, Index: req.Index, Columns: req.Columns, KeySet: req.KeySet, Limit: req.Limit,
		RequestTag: requestTag(req.RequestOptions), Partitioned: len(req.PartitionToken) > 0}
	returnTS := req.GetTransaction().GetSingleUse().GetReadOnly().GetReturnReadTimestamp()
	if err := s.b.Exec.Read(ctx, db, sel.t, args, w.sink(sel, returnTS)); err != nil {
		return err
	}
	return w.finish(nil)
}
