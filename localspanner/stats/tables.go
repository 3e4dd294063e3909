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
	code spannerpb.TypeCode
}

var (
	queryTopCols = []column{
		{"INTERVAL_END", spannerpb.TypeCode_TIMESTAMP}, {"REQUEST_TAG", spannerpb.TypeCode_STRING}, {"TEXT", spannerpb.TypeCode_STRING},
		{"TEXT_TRUNCATED", spannerpb.TypeCode_BOOL}, {"TEXT_FINGERPRINT", spannerpb.TypeCode_INT64},
		{"EXECUTION_COUNT", spannerpb.TypeCode_INT64}, {"AVG_LATENCY_SECONDS", spannerpb.TypeCode_FLOAT64},
		{"AVG_ROWS", spannerpb.TypeCode_FLOAT64}, {"AVG_BYTES", spannerpb.TypeCode_FLOAT64},
		{"AVG_ROWS_SCANNED", spannerpb.TypeCode_FLOAT64}, {"AVG_CPU_SECONDS", spannerpb.TypeCode_FLOAT64},
		{"ALL_FAILED_EXECUTION_COUNT", spannerpb.TypeCode_INT64},
	}
	queryTotalCols = []column{
		{"INTERVAL_END", spannerpb.TypeCode_TIMESTAMP},
		{"EXECUTION_COUNT", spannerpb.TypeCode_INT64}, {"AVG_LATENCY_SECONDS", spannerpb.TypeCode_FLOAT64},
		{"AVG_ROWS", spannerpb.TypeCode_FLOAT64}, {"AVG_BYTES", spannerpb.TypeCode_FLOAT64},
		{"AVG_ROWS_SCANNED", spannerpb.TypeCode_FLOAT64}, {"AVG_CPU_SECONDS", spannerpb.TypeCode_FLOAT64},
		{"ALL_FAILED_EXECUTION_COUNT", spannerpb.TypeCode_INT64},
	}
	txnTopCols = []column{
		{"INTERVAL_END", spannerpb.TypeCode_TIMESTAMP}, {"TRANSACTION_TAG", spannerpb.TypeCode_STRING}, {"FPRINT", spannerpb.TypeCode_INT64},
		{"COMMIT_ATTEMPT_COUNT", spannerpb.TypeCode_INT64}, {"COMMIT_ABORT_COUNT", spannerpb.TypeCode_INT64},
		{"AVG_COMMIT_LATENCY_SECONDS", spannerpb.TypeCode_FLOAT64}, {"AVG_TOTAL_LATENCY_SECONDS", spannerpb.TypeCode_FLOAT64},
		{"AVG_PARTICIPANTS", spannerpb.TypeCode_FLOAT64},
	}
	txnTotalCols = txnTopCols[:1:1]
)

func init() {
	txnTotalCols = append(txnTotalCols, txnTopCols[3:]...)
}

var periods = map[string]time.Duration{"MINUTE": time.Minute, "10MINUTE": 10 * time.Minute, "HOUR": time.Hour}

// tableOf parses a SPANNER_SYS table name into its kind and period.
func tableOf(name string) (kind string, period time.Duration, cols []column, ok bool) {
	for _, k := range []string{"QUERY_STATS_TOP_", "QUERY_STATS_TOTAL_", "TXN_STATS_TOP_", "TXN_STATS_TOTAL_"} {
		if p, found := strings.CutPrefix(name, k); found {
			d, ok := periods[p]
			if !ok {
				return "", 0, nil, false
			}
			switch k {
			case "QUERY_STATS_TOP_":
				cols = queryTopCols
			case "QUERY_STATS_TOTAL_":
				cols = queryTotalCols
			case "TXN_STATS_TOP_":
				cols = txnTopCols
			default:
				cols = txnTotalCols
			}
			return k, d, cols, true
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
		tb.Columns = append(tb.Columns, &schema.Column{Name: c.name, Type: &spannerpb.Type{Code: c.code}, SQLName: q, Position: i})
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
	for _, kind := range []string{"QUERY_STATS_TOP_", "QUERY_STATS_TOTAL_", "TXN_STATS_TOP_", "TXN_STATS_TOTAL_"} {
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
