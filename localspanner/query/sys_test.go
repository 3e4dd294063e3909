package query

import (
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
)

// sysSource serves one SPANNER_SYS table from an SQLite table, as the stats layer does.
type sysSource struct{ CurrentRows }

var queryStatsTable = &schema.Table{Name: "QUERY_STATS_TOP_MINUTE", SQLName: `"qs"`, Columns: []*schema.Column{
	{Name: "INTERVAL_END", Type: tTimestamp, SQLName: `"interval_end"`},
	{Name: "TEXT", Type: tString, SQLName: `"text"`},
	{Name: "EXECUTION_COUNT", Type: tInt64, SQLName: `"execution_count"`},
	{Name: "AVG_LATENCY_SECONDS", Type: tFloat64, SQLName: `"avg_latency_seconds"`},
}}

func (sysSource) SysTable(name string) (*schema.Table, schema.From, bool) {
	if name != "QUERY_STATS_TOP_MINUTE" {
		return nil, schema.From{}, false
	}
	return queryStatsTable, schema.From{SQL: "(SELECT * FROM qs_data)"}, true
}

func (sysSource) Key() string { return "sys-test" }

func TestSpannerSys(t *testing.T) {
	cat, db := newTestDB(t)
	mustExec(t, db, `CREATE TABLE qs_data (interval_end TEXT, text TEXT, execution_count INTEGER, avg_latency_seconds REAL)`)
	mustExec(t, db, `INSERT INTO qs_data VALUES
		('2024-01-01T00:01:00.000000000Z', 'SELECT 1', 3, 0.5),
		('2024-01-01T00:02:00.000000000Z', 'SELECT 2', 4, 0.25),
		('2024-01-01T00:02:00.000000000Z', 'SELECT * FROM SPANNER_SYS.X', 1, 1)`)
	q := "SELECT TEXT, EXECUTION_COUNT, AVG_LATENCY_SECONDS FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE " +
		"WHERE INTERVAL_END = (SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE) AND TEXT NOT LIKE '%SPANNER_SYS%'"
	plan, err := Compile(cat, q, nil, sysSource{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rowsOf(db, plan.SQL, plan.Args, plan.Decode)
	if err != nil {
		t.Fatalf("%s: %v", plan.SQL, err)
	}
	if strings.Join(got, ";") != "SELECT 2,4,0.25" {
		t.Errorf("got %v", got)
	}
	if plan.Fields[1].Type.Code != spannerpb.TypeCode_INT64 || plan.Fields[0].Name != "TEXT" {
		t.Errorf("fields %v", plan.Fields)
	}
	if _, err := Compile(cat, "SELECT * FROM SPANNER_SYS.NOPE", nil, sysSource{}); err == nil || !strings.Contains(err.Error(), "Table not found: SPANNER_SYS.NOPE") {
		t.Errorf("unknown SPANNER_SYS table: %v", err)
	}
}
