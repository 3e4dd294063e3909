package frontend

import (
	"encoding/binary"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// chunkBytes is the approximate size at which a stream of rows is cut into
// another PartialResultSet.
const chunkBytes = 256 << 10

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
	Bytes    int64
	Returned int64
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
	if w.rs != nil {
		w.rs.Rows = append(w.rs.Rows, &structpb.ListValue{Values: vals})
		for _, v := range vals {
			w.Bytes += int64(valueSize(v))
		}
		return nil
	}
	for _, v := range vals {
		n := valueSize(v)
		w.size += n
		w.Bytes += int64(n)
	}
	w.pending = append(w.pending, vals...)
	if w.size >= chunkBytes {
		return w.flush(nil, false)
	}
	return nil
}

func (w *resultWriter) flush(stats *spannerpb.ResultSetStats, last bool) error {
	prs := &spannerpb.PartialResultSet{Values: w.pending, Stats: stats, Last: last}
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
	if w.rs != nil {
		w.rs.Stats = stats
		return nil
	}
	return w.flush(stats, true)
}
