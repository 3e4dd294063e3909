package stats

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

func TestIntervalsShowOnlyClosedMinutes(t *testing.T) {
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := New()
	now := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	c.now = func() time.Time { return now }
	c.RecordQuery(db, "SELECT 1", "", 0.002, 0.001, 3, 30, 10, false)
	c.RecordQuery(db, "SELECT 1", "", 0.004, 0.003, 5, 50, 20, false)
	c.RecordCommit(db, "write T(Id)", "", true, false, 2, 0, 0.001, 0.002)
	c.RecordCommit(db, "write T(Id)", "", false, true, 0, 0, 0.003, 0.004)
	c.RecordRead(db, "tg", []string{"T.V", "T.Id"}, false, true, 0.001, 2, 20)
	c.RecordRead(db, "tg", []string{"T.V", "T.Id"}, false, false, 0.003, 4, 40)
	conflict := []LockRequest{{"T.V", "ReaderShared", "a"}, {"T.V", "WriterShared", "b"}}
	c.RecordLockConflict(db, "T(7)", 0.25, conflict)
	c.RecordLockConflict(db, "T(7)", 0.5, conflict) // the same samples are kept once
	tables := c.For(db)

	tests := []struct {
		name    string
		at      time.Time
		table   string
		wantRow []any // nil: no rows
	}{
		{"minute still open", now, "QUERY_STATS_TOP_MINUTE", nil},
		{"minute closed", now.Add(time.Minute), "QUERY_STATS_TOP_MINUTE",
			[]any{"2026-01-01T10:01:00.000000000Z", "", "SELECT 1", 0.0, nil, 2.0, 0.003, 4.0, 40.0, 15.0, 0.002, 0.0}},
		{"totals", now.Add(time.Minute), "QUERY_STATS_TOTAL_MINUTE",
			[]any{"2026-01-01T10:01:00.000000000Z", 2.0, 0.003, 4.0, 40.0, 15.0, 0.002, 0.0}},
		{"10 minutes still open", now.Add(time.Minute), "QUERY_STATS_TOP_10MINUTE", nil},
		{"transactions", now.Add(time.Minute), "TXN_STATS_TOTAL_MINUTE",
			// two attempts, one aborted; participants average over the committed one
			[]any{"2026-01-01T10:01:00.000000000Z", 2.0, 1.0, 0.002, 0.003, 2.0}},
		{"reads", now.Add(time.Minute), "READ_STATS_TOP_MINUTE",
			[]any{"2026-01-01T10:01:00.000000000Z", "tg", "READ", []any{"T.Id", "T.V"}, nil, 2.0, 3.0, 30.0, 0.002, 0.0, 0.0, 0.0, 1.0, 0.0}},
		{"read totals", now.Add(time.Minute), "READ_STATS_TOTAL_MINUTE",
			[]any{"2026-01-01T10:01:00.000000000Z", 2.0, 3.0, 30.0, 0.002, 0.0, 0.0, 0.0, 1.0}},
		{"locks", now.Add(time.Minute), "LOCK_STATS_TOP_MINUTE",
			[]any{"2026-01-01T10:01:00.000000000Z", "T(7)", 0.75, []any{[]any{"T.V", "ReaderShared", "a"}, []any{"T.V", "WriterShared", "b"}}}},
		{"lock totals", now.Add(time.Minute), "LOCK_STATS_TOTAL_MINUTE", []any{"2026-01-01T10:01:00.000000000Z", 0.75}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := tc.at
			c.now = func() time.Time { return now }
			var rows [][]any
			if err := json.Unmarshal([]byte(tables.rowsJSON(tc.table)), &rows); err != nil {
				t.Fatal(err)
			}
			if tc.wantRow == nil {
				if len(rows) != 0 {
					t.Fatalf("rows %v, want none", rows)
				}
				return
			}
			if len(rows) != 1 {
				t.Fatalf("rows %v, want one", rows)
			}
			for i, want := range tc.wantRow {
				if want == nil {
					continue // the fingerprint
				}
				got := rows[0][i]
				if f, ok := want.(float64); ok {
					g, _ := got.(float64)
					if d := g - f; d > 1e-9 || d < -1e-9 {
						t.Errorf("column %d = %v, want %v", i, got, want)
					}
				} else if !reflect.DeepEqual(got, want) {
					t.Errorf("column %d = %v, want %v", i, got, want)
				}
			}
		})
	}
	_, from, ok := tables.SysTable("query_stats_top_hour")
	if !ok || !strings.Contains(from.SQL, ":sys_query_stats_top_hour") {
		t.Errorf("SysTable fragment %q does not use its parameter", from.SQL)
	}
	if _, _, ok := tables.SysTable("NOPE_MINUTE"); ok {
		t.Errorf("unknown SPANNER_SYS table resolved")
	}
}

func TestCountersAreRunningTotalsOfCommittedTransactions(t *testing.T) {
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := New()
	c.RecordCommit(db, "write T(Id)", "", true, false, 1, 0.001, 0.003, 0.004)
	c.RecordCommit(db, "write T(Id)", "", true, false, 3, 0.003, 0.006, 0.007)
	c.RecordCommit(db, "write T(Id)", "", false, true, 0, 0, 0.5, 0.5) // aborted: not a commit
	var rows [][]float64
	if err := json.Unmarshal([]byte(c.For(db).countersJSON()), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("rows %v, want one", rows)
	}
	got := rows[0]
	want := []float64{2, 4, 0.009, 0.004}
	for i, w := range want {
		if d := got[i] - w; d > 1e-9 || d < -1e-9 {
			t.Errorf("column %s = %v, want %v", countersCols[i].name, got[i], w)
		}
	}
	if got[4] <= 0 {
		t.Errorf("PROCESS_CPU_SECONDS = %v, want the process's CPU time", got[4])
	}
	if got[5] != 0 {
		t.Errorf("SPLITS = %v of an empty database, want 0", got[5])
	}
}

// TestTagsGroupStatisticsAsSpannerDoes: "Statistics for multiple queries with the same tag string
// are grouped in a single row with the REQUEST_TAG matching the tag string" and FPRINT "is the hash
// of the request tag if present, otherwise the hash of TEXT" (Spanner's query statistics docs);
// TXN_STATS likewise by TRANSACTION_TAG, else by the transaction's shape.
func TestTagsGroupStatisticsAsSpannerDoes(t *testing.T) {
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := New()
	now := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	c.now = func() time.Time { return now }
	c.RecordQuery(db, "SELECT 1", "app-a", 0.002, 0.001, 1, 1, 1, false)
	c.RecordQuery(db, "SELECT 2", "app-a", 0.002, 0.001, 1, 1, 1, false)
	c.RecordQuery(db, "SELECT 1", "", 0.002, 0.001, 1, 1, 1, false)
	c.RecordQuery(db, "SELECT 1", "app-b", 0.002, 0.001, 1, 1, 1, false)
	c.RecordCommit(db, "write T(Id)", "txn-a", true, false, 1, 0, 0.001, 0.002)
	c.RecordCommit(db, "write U(Id)", "txn-a", true, false, 1, 0, 0.001, 0.002)
	c.RecordCommit(db, "write T(Id)", "", true, false, 1, 0, 0.001, 0.002)
	now = now.Add(time.Minute)
	tables := c.For(db)
	count := func(table string, tagCol, countCol int) map[string]float64 {
		var rows [][]any
		if err := json.Unmarshal([]byte(tables.rowsJSON(table)), &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, r := range rows {
			tag, _ := r[tagCol].(string)
			n, _ := r[countCol].(float64)
			out[tag] += n
			if _, twice := out[tag+"#rows"]; twice {
				t.Errorf("%s: two rows for tag %q: %v", table, tag, rows)
			}
			out[tag+"#rows"] = 1
		}
		return out
	}
	q := count("QUERY_STATS_TOP_MINUTE", 1, 5)
	if q["app-a"] != 2 || q["app-b"] != 1 || q[""] != 1 || len(q) != 6 {
		t.Errorf("query rows by REQUEST_TAG: %v, want app-a 2, app-b 1, untagged 1", q)
	}
	x := count("TXN_STATS_TOP_MINUTE", 1, 3)
	if x["txn-a"] != 2 || x[""] != 1 || len(x) != 4 {
		t.Errorf("transaction rows by TRANSACTION_TAG: %v, want txn-a 2, untagged 1", x)
	}
}
