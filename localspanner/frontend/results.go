package frontend

import (
	"encoding/binary"
	"unicode/utf8"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/txn"
)

// chunkBytes is the approximate size at which a stream of rows is cut into
// another PartialResultSet.
const chunkBytes = 256 << 10

// maxValueChunk is the longest piece of one string value a PartialResultSet
// carries; longer values are split (chunked_value), as Spanner does.
const maxValueChunk = 1 << 20

// resultWriter collects rows into one ResultSet (unary calls) or streams them as
// PartialResultSets with resume tokens (streaming calls).
type resultWriter struct {
	send func(*spannerpb.PartialResultSet) error // nil: unary
	rs   *spannerpb.ResultSet

	meta     *spannerpb.ResultSetMetadata
	metaSent bool
	pending  []*structpb.Value
	size     int
	rows     int64 // rows produced (including skipped ones)
	skip     int64 // rows to skip on resume
	Bytes    int64 // data bytes of the rows returned, as SPANNER_SYS counts them (see dataBytes)
	Returned int64

	// txn, when set, is the read-write transaction whose precommit token the
	// last response carries.
	txn       *txn.Txn
	precommit *spannerpb.MultiplexedSessionPrecommitToken
}

func newResultWriter(send func(*spannerpb.PartialResultSet) error, resumeToken []byte) *resultWriter {
	w := &resultWriter{send: send}
	if len(resumeToken) == 8 {
		w.skip = int64(binary.BigEndian.Uint64(resumeToken))
	}
	if send == nil {
		w.rs = &spannerpb.ResultSet{}
	}
	return w
}

func (w *resultWriter) setMeta(m *spannerpb.ResultSetMetadata) {
	w.meta = m
	if w.rs != nil {
		w.rs.Metadata = m
	}
}

func valueSize(v *structpb.Value) int {
	switch k := v.Kind.(type) {
	case *structpb.Value_StringValue:
		return len(k.StringValue) + 4
	case *structpb.Value_ListValue:
		n := 4
		for _, e := range k.ListValue.Values {
			n += valueSize(e)
		}
		return n
	default:
		return 8
	}
}

func (w *resultWriter) row(vals []*structpb.Value) error {
	w.rows++
	if w.rows <= w.skip {
		return nil
	}
	w.Returned++
	fields := w.meta.GetRowType().GetFields()
	for i, v := range vals {
		if i < len(fields) {
			w.Bytes += dataBytes(fields[i].GetType(), v)
		}
	}
	if w.rs != nil {
		w.rs.Rows = append(w.rs.Rows, &structpb.ListValue{Values: vals})
		return nil
	}
	for _, v := range vals {
		if sv, ok := v.Kind.(*structpb.Value_StringValue); ok && len(sv.StringValue) > maxValueChunk {
			rest, err := w.chunkString(sv.StringValue)
			if err != nil {
				return err
			}
			v = structpb.NewStringValue(rest)
		}
		w.size += valueSize(v)
		w.pending = append(w.pending, v)
	}
	if w.size >= chunkBytes {
		return w.flush(nil, false)
	}
	return nil
}

// chunkString sends the leading pieces of a long string value, each ending a
// PartialResultSet with chunked_value set (the client concatenates them with the
// next piece), and returns the last piece. Pieces end on UTF-8 boundaries.
func (w *resultWriter) chunkString(s string) (string, error) {
	for len(s) > maxValueChunk {
		cut := maxValueChunk
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.pending = append(w.pending, structpb.NewStringValue(s[:cut]))
		prs := &spannerpb.PartialResultSet{Values: w.pending, ChunkedValue: true}
		if !w.metaSent {
			prs.Metadata = w.meta
			w.metaSent = true
		}
		w.pending, w.size = nil, 0
		if err := w.send(prs); err != nil {
			return "", err
		}
		s = s[cut:]
	}
	return s, nil
}

func (w *resultWriter) flush(stats *spannerpb.ResultSetStats, last bool) error {
	prs := &spannerpb.PartialResultSet{Values: w.pending, Stats: stats, Last: last, PrecommitToken: w.precommit}
	if !w.metaSent {
		prs.Metadata = w.meta
		w.metaSent = true
	}
	if !last {
		tok := make([]byte, 8)
		binary.BigEndian.PutUint64(tok, uint64(w.rows))
		prs.ResumeToken = tok
	}
	w.pending, w.size = nil, 0
	return w.send(prs)
}

// finish ends the result with optional stats.
func (w *resultWriter) finish(stats *spannerpb.ResultSetStats) error {
	tok := precommitToken(w.txn)
	if w.rs != nil {
		w.rs.Stats = stats
		w.rs.PrecommitToken = tok
		return nil
	}
	w.precommit = tok
	return w.flush(stats, true)
}

// resultSink passes a statement's rows from exec to a resultWriter.
type resultSink struct {
	w        *resultWriter
	sel      selected
	returnTS bool // the single-use read-only selector asked for the read timestamp
}

// sink returns the exec.Sink that writes to w for a statement in sel.
func (w *resultWriter) sink(sel selected, returnTS bool) exec.Sink {
	return resultSink{w: w, sel: sel, returnTS: returnTS}
}

// Start sets the metadata, with the transaction when the client must learn it.
func (r resultSink) Start(fields []*spannerpb.StructType_Field) {
	t := r.sel.t
	meta := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: fields}}
	if r.sel.begun || (t.ReadOnly && r.sel.singleUse && r.returnTS) {
		meta.Transaction = txnPB(t, r.sel.begun)
	}
	r.w.setMeta(meta)
}

func (r resultSink) Row(vals []*structpb.Value) error { return r.w.row(vals) }

func (r resultSink) Sent() (rows, bytes int64) { return r.w.Returned, r.w.Bytes }

// Flush sends the rows held so far (a streaming call only): a change stream query
// delivers each record as it is made.
func (r resultSink) Flush() error {
	if r.w.send == nil || len(r.w.pending) == 0 {
		return nil
	}
	return r.w.flush(nil, false)
}
