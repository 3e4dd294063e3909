// Package exec runs statements: it compiles them with package query, runs the
// plans in a transaction of package txn, turns DML into mutations, reads rows and
// records query statistics. The frontend decodes a request, hands it here and
// encodes what comes back; a second SQL dialect would compile to the same plans
// and run here too.
package exec

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// Stats receives what the server ran, for SPANNER_SYS tables.
type Stats interface {
	// RecordQuery records one query execution and its request tag ("" for none).
	RecordQuery(db *storage.DB, sql, tag string, latencySec, cpuSec float64, rows, bytes, scanned int64, failed bool)
	// RecordRead records one Read RPC: its request tag, the columns it read
	// (table.column), whether it had a partition token and ran in a read-write
	// transaction, its CPU and the rows and bytes it returned.
	RecordRead(db *storage.DB, tag string, columns []string, partitioned, inReadWrite bool, cpuSec float64, rows, bytes int64)
}

// Engine runs statements.
type Engine struct {
	Txns  *txn.Manager
	Stats Stats // nil: nothing is recorded
}

// Sink receives the result of a query or read: Start once, with the row type,
// after the read timestamp is fixed and before any row; then each row.
type Sink interface {
	Start(fields []*spannerpb.StructType_Field)
	Row(vals []*structpb.Value) error
	// Sent returns the rows and bytes the sink passed on so far.
	Sent() (rows, bytes int64)
}

// Statement is one SQL statement of a request, parameters as sent on the wire.
type Statement struct {
	SQL    string
	Params map[string]*structpb.Value
	Types  map[string]*spannerpb.Type
	Seqno  int64
	// RequestTag is the request's RequestOptions.request_tag, for statistics.
	RequestTag string
}

func (e *Engine) recordQuery(db *storage.DB, st Statement, latencySec, cpuSec float64, rows, bytes, scanned int64, failed bool) {
	if e.Stats != nil {
		e.Stats.RecordQuery(db, st.SQL, st.RequestTag, latencySec, cpuSec, rows, bytes, scanned, failed)
	}
}
