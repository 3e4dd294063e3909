package stats

import (
	"database/sql"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/value"
)

type column struct {
	name string
	typ  *spannerpb.Type
}

func col(name string, code spannerpb.TypeCode) column {
	return column{name, &spannerpb.Type{Code: code}}
}

const (
	tTimestamp = spannerpb.TypeCode_TIMESTAMP
	tString    = spannerpb.TypeCode_STRING
	tInt64     = spannerpb.TypeCode_INT64
	tFloat64   = spannerpb.TypeCode_FLOAT64
	tBool      = spannerpb.TypeCode_BOOL
	tBytes     = spannerpb.TypeCode_BYTES
)

// sampleLockRequestsType is LOCK_STATS' SAMPLE_LOCK_REQUESTS: ARRAY<STRUCT<column STRING,
// lock_mode STRING, transaction_tag STRING>> (Spanner's lock statistics docs).
var sampleLockRequestsType = &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: &spannerpb.Type{
	Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "column", Type: &spannerpb.Type{Code: tString}},
		{Name: "lock_mode", Type: &spannerpb.Type{Code: tString}},
		{Name: "transaction_tag", Type: &spannerpb.Type{Code: tString}},
	}},
}}

var (
	queryTopCols = []column{
		col("INTERVAL_END", tTimestamp), col("REQUEST_TAG", tString), col("TEXT", tString),
		col("TEXT_TRUNCATED", tBool), col("TEXT_FINGERPRINT", tInt64),
		col("EXECUTION_COUNT", tInt64), col("AVG_LATENCY_SECONDS", tFloat64),
		col("AVG_ROWS", tFloat64), col("AVG_BYTES", tFloat64),
		col("AVG_ROWS_SCANNED", tFloat64), col("AVG_CPU_SECONDS", tFloat64),
		col("ALL_FAILED_EXECUTION_COUNT", tInt64),
	}
	queryTotalCols = []column{
		col("INTERVAL_END", tTimestamp),
		col("EXECUTION_COUNT", tInt64), col("AVG_LATENCY_SECONDS", tFloat64),
		col("AVG_ROWS", tFloat64), col("AVG_BYTES", tFloat64),
		col("AVG_ROWS_SCANNED", tFloat64), col("AVG_CPU_SECONDS", tFloat64),
		col("ALL_FAILED_EXECUTION_COUNT", tInt64),
	}
	txnTopCols = []column{
		col("INTERVAL_END", tTimestamp), col("TRANSACTION_TAG", tString), col("FPRINT", tInt64),
		col("COMMIT_ATTEMPT_COUNT", tInt64), col("COMMIT_ABORT_COUNT", tInt64),
		col("AVG_COMMIT_LATENCY_SECONDS", tFloat64), col("AVG_TOTAL_LATENCY_SECONDS", tFloat64),
		col("AVG_PARTICIPANTS", tFloat64),
	}
	txnTotalCols = txnTopCols[:1:1]
	// readTotalCols and readTopCols are Spanner's read statistics tables, in its docs' order.
	readTotalCols = []column{
		col("INTERVAL_END", tTimestamp), col("EXECUTION_COUNT", tInt64),
		col("AVG_ROWS", tFloat64), col("AVG_BYTES", tFloat64), col("AVG_CPU_SECONDS", tFloat64),
		col("AVG_LOCKING_DELAY_SECONDS", tFloat64), col("AVG_CLIENT_WAIT_SECONDS", tFloat64),
		col("AVG_LEADER_REFRESH_DELAY_SECONDS", tFloat64), col("RUN_IN_RW_TRANSACTION_EXECUTION_COUNT", tInt64),
	}
	readTopCols = []column{
		col("INTERVAL_END", tTimestamp), col("REQUEST_TAG", tString), col("READ_TYPE", tString),
		{"READ_COLUMNS", &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: &spannerpb.Type{Code: tString}}},
		col("FPRINT", tInt64),
	}
	lockTopCols = []column{
		col("INTERVAL_END", tTimestamp), col("ROW_RANGE_START_KEY", tBytes), col("LOCK_WAIT_SECONDS", tFloat64),
		{"SAMPLE_LOCK_REQUESTS", sampleLockRequestsType},
	}
	lockTotalCols = []column{col("INTERVAL_END", tTimestamp), col("TOTAL_LOCK_WAIT_SECONDS", tFloat64)}
)

func init() {
	txnTotalCols = append(txnTotalCols, txnTopCols[3:]...)
	readTopCols = append(readTopCols, readTotalCols[1:]...)
	readTopCols = append(readTopCols, col("AVG_DISK_IO_COST", tFloat64))
}

var periods = map[string]time.Duration{"MINUTE": time.Minute, "10MINUTE": 10 * time.Minute, "HOUR": time.Hour}

// kinds are the SPANNER_SYS table families by name prefix, with their columns.
var kinds = map[string]*[]column{
	"QUERY_STATS_TOP_": &queryTopCols, "QUERY_STATS_TOTAL_": &queryTotalCols,
	"TXN_STATS_TOP_": &txnTopCols, "TXN_STATS_TOTAL_": &txnTotalCols,
	"READ_STATS_TOP_": &readTopCols, "READ_STATS_TOTAL_": &readTotalCols,
	"LOCK_STATS_TOP_": &lockTopCols, "LOCK_STATS_TOTAL_": &lockTotalCols,
}

// tableOf parses a SPANNER_SYS table name into its kind and period.
func tableOf(name string) (kind string, period time.Duration, cols []column, ok bool) {
	for k, c := range kinds {
		if p, found := strings.CutPrefix(name, k); found {
			d, ok := periods[p]
			if !ok {
				return "", 0, nil, false
			}
			return k, d, *c, true
		}
	}
	return "", 0, nil, false
}

func paramName(name string) string { return "sys_" + strings.ToLower(name) }

// Tables serves the SPANNER_SYS tables of one database.
type Tables struct {
	c  *Collector
	db *storage.DB
}

// For returns the SPANNER_SYS tables of db (set it as db.Sys).
func (c *Collector) For(db *storage.DB) *Tables { return &Tables{c: c, db: db} }

// SysTable implements storage.SysTables.
func (t *Tables) SysTable(name string) (*schema.Table, schema.From, bool) {
	if strings.EqualFold(name, CountersTable) {
		return sysTable(name, countersCols)
	}
	_, _, cols, ok := tableOf(strings.ToUpper(name))
	if !ok {
		return nil, schema.From{}, false
	}
	return sysTable(name, cols)
}

// sysTable is a SPANNER_SYS table whose rows come as a JSON parameter.
func sysTable(name string, cols []column) (*schema.Table, schema.From, bool) {
	tb := &schema.Table{Name: "SPANNER_SYS." + strings.ToUpper(name)}
	var sel []string
	for i, c := range cols {
		q := `"` + c.name + `"`
		tb.Columns = append(tb.Columns, &schema.Column{Name: c.name, Type: c.typ, SQLName: q, Position: i})
		sel = append(sel, "json_extract(value, '$["+strconv.Itoa(i)+"]') AS "+q)
	}
	return tb, schema.From{SQL: "(SELECT " + strings.Join(sel, ", ") + " FROM json_each(:" + paramName(name) + "))"}, true
}

// SysArgs implements storage.SysTables.
func (t *Tables) SysArgs(sqlText string) []any {
	var args []any
	if strings.Contains(sqlText, ":"+paramName(CountersTable)) {
		args = append(args, sql.Named(paramName(CountersTable), t.countersJSON()))
	}
	for kind := range kinds {
		for p := range periods {
			name := kind + p
			if strings.Contains(sqlText, ":"+paramName(name)) {
				args = append(args, sql.Named(paramName(name), t.rowsJSON(name)))
			}
		}
	}
	return args
}

func jfloat(f float64) json.RawMessage { return json.RawMessage(strconv.FormatFloat(f, 'e', -1, 64)) }

func avg(sum float64, n int64) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// rowsJSON renders a table's rows as a JSON array of arrays in the storage encoding.
func (t *Tables) rowsJSON(name string) string {
	kind, period, _, _ := tableOf(name)
	ivs := t.c.of(t.db).intervals(t.c.now(), period)
	var rows [][]any
	for _, iv := range ivs {
		end := time.Unix(iv.end, 0).UTC().Format(value.StorageTimestampLayout)
		switch kind {
		case "QUERY_STATS_TOP_":
			qs := make([]*queryAgg, 0, len(iv.queries))
			for _, q := range iv.queries {
				qs = append(qs, q)
			}
			sort.Slice(qs, func(i, j int) bool { return qs[i].cpu > qs[j].cpu })
			if len(qs) > topN {
				qs = qs[:topN]
			}
			for _, q := range qs {
				n := q.count
				rows = append(rows, []any{end, q.tag, q.text, 0, q.fprint, n, jfloat(avg(q.latency, n)), jfloat(avg(float64(q.rows), n)),
					jfloat(avg(float64(q.bytes), n)), jfloat(avg(float64(q.scanned), n)), jfloat(avg(q.cpu, n)), q.failed})
			}
		case "QUERY_STATS_TOTAL_":
			var tot queryAgg
			for _, q := range iv.queries {
				tot.count += q.count
				tot.failed += q.failed
				tot.latency += q.latency
				tot.cpu += q.cpu
				tot.rows += q.rows
				tot.bytes += q.bytes
				tot.scanned += q.scanned
			}
			n := tot.count
			rows = append(rows, []any{end, n, jfloat(avg(tot.latency, n)), jfloat(avg(float64(tot.rows), n)),
				jfloat(avg(float64(tot.bytes), n)), jfloat(avg(float64(tot.scanned), n)), jfloat(avg(tot.cpu, n)), tot.failed})
		case "TXN_STATS_TOP_":
			for _, x := range iv.txns {
				n := x.attempts
				rows = append(rows, []any{end, x.tag, x.fprint, n, x.aborts, jfloat(avg(x.commitLatency, n)), jfloat(avg(x.totalLat, n)), jfloat(avg(float64(x.participants), x.committed))})
			}
		case "TXN_STATS_TOTAL_":
			var tot txnAgg
			for _, x := range iv.txns {
				tot.attempts += x.attempts
				tot.aborts += x.aborts
				tot.commitLatency += x.commitLatency
				tot.totalLat += x.totalLat
				tot.participants += x.participants
				tot.committed += x.committed
			}
			n := tot.attempts
			rows = append(rows, []any{end, n, tot.aborts, jfloat(avg(tot.commitLatency, n)), jfloat(avg(tot.totalLat, n)), jfloat(avg(float64(tot.participants), tot.committed))})
		case "READ_STATS_TOP_", "READ_STATS_TOTAL_":
			rows = append(rows, readRows(end, iv, kind == "READ_STATS_TOP_")...)
		case "LOCK_STATS_TOP_", "LOCK_STATS_TOTAL_":
			rows = append(rows, lockRows(end, iv, kind == "LOCK_STATS_TOP_")...)
		}
	}
	if rows == nil {
		return "[]"
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return "[]"
	}
	return string(b)
}
