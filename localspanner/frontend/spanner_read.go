package frontend

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
	"github.com/spanload/spanload/localspanner/value"
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

func readSpec(cat *schema.Catalog, req *spannerpb.ReadRequest) (*storage.ReadSpec, error) {
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
		return nil, spanerr.InvalidArgument("Read needs at least one column.")
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
	err = s.readIn(ctx, sess.DB, sel, req, w)
	if err != nil {
		s.failBegin(sel)
	}
	return err
}

func (s *spannerServer) readIn(ctx context.Context, db *storage.DB, sel selected, req *spannerpb.ReadRequest, w *resultWriter) error {
	t := sel.t
	spec, err := readSpec(db.Catalog(), req)
	if err != nil {
		return err
	}
	fields := make([]*spannerpb.StructType_Field, len(spec.Columns))
	for i, c := range spec.Columns {
		fields[i] = &spannerpb.StructType_Field{Name: c.Name, Type: c.Type}
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
	meta := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: fields}}
	if sel.begun || (t.ReadOnly && sel.singleUse && req.GetTransaction().GetSingleUse().GetReadOnly().GetReturnReadTimestamp()) {
		meta.Transaction = txnPB(t, sel.begun)
	}
	w.setMeta(meta)
	kind := readKind{tables: []*schema.Table{spec.Table}, snap: snap}
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
		return w.row(vals)
	})
	if err != nil {
		return err
	}
	return w.finish(nil)
}
