package storage

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"

	"github.com/spanload/spanload/localspanner/schema"
)

func (d *DB) mutation(t *testing.T, op Op, table string, cols []string, rows ...[]any) *Mutation {
	t.Helper()
	tb, ok := d.Catalog().Table(table)
	if !ok {
		t.Fatalf("no table %s", table)
	}
	m := &Mutation{Op: op, Table: tb, Rows: rows}
	for _, c := range cols {
		col, ok := tb.Column(c)
		if !ok {
			t.Fatalf("no column %s", c)
		}
		m.Columns = append(m.Columns, col)
	}
	return m
}

// participants commits muts and returns the commit's participants.
func (d *DB) participants(t *testing.T, muts ...*Mutation) int {
	t.Helper()
	_, n, err := d.CommitSplits(context.Background(), muts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (d *DB) applyTest(t *testing.T, stmts ...string) {
	t.Helper()
	if _, err := d.ApplyDDL(context.Background(), stmts, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
}

func (d *DB) bounds(obj string) [][]any {
	d.splits.mu.Lock()
	defer d.splits.mu.Unlock()
	if s, ok := d.splits.objs[obj]; ok {
		return s.bounds
	}
	return nil
}

func pRows(from, to int64) [][]any {
	var rows [][]any
	for id := from; id <= to; id++ {
		rows = append(rows, []any{id, "p"})
	}
	return rows
}

func TestSplitDividesAtMedianWhenItPassesTheThreshold(t *testing.T) {
	db := openTestDB(t)
	db.applyTest(t, "ALTER DATABASE d SET OPTIONS (spanload_split_rows = 10)")
	if got := db.SplitRows(); got != 10 {
		t.Fatalf("split rows %d, want 10", got)
	}
	cols := []string{"Id", "Name"}
	// 9 rows: under the threshold, one split.
	db.participants(t, db.mutation(t, OpInsert, "P", cols, pRows(1, 9)...))
	if got := db.Splits()["table p"]; got != 1 {
		t.Fatalf("after 9 rows: %d splits, want 1", got)
	}
	// The 10th row passes it: divided at the median key, 6 (offset 5 of 1..10).
	db.participants(t, db.mutation(t, OpInsert, "P", cols, []any{int64(10), "p"}))
	if got, want := db.bounds("t:p"), [][]any{{int64(6)}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("bounds %v, want %v", got, want)
	}
	// Child rows count towards their parent's split: 5 children of Id 9 make the
	// right split (6..10, 5 rows) hold 10 rows, and it divides again.
	var kids [][]any
	for n := int64(1); n <= 5; n++ {
		kids = append(kids, []any{int64(9), n})
	}
	db.participants(t, db.mutation(t, OpInsert, "C", []string{"Id", "N"}, kids...))
	if got := db.Splits()["table p"]; got != 3 {
		t.Fatalf("after 5 children: %d splits (bounds %v), want 3", got, db.bounds("t:p"))
	}
}

func TestOverwritingRowsDoesNotDivide(t *testing.T) {
	db := openTestDB(t)
	db.applyTest(t, "ALTER DATABASE d SET OPTIONS (spanload_split_rows = 10)")
	for i := 0; i < 5; i++ {
		db.participants(t, db.mutation(t, OpInsertOrUpdate, "P", []string{"Id", "Name"}, pRows(1, 9)...))
	}
	if got := db.Splits()["table p"]; got != 1 {
		t.Fatalf("9 rows written 5 times: %d splits, want 1", got)
	}
	if got := db.splits.objs["t:p"].rows[0]; got != 9 {
		t.Fatalf("estimated rows %d, want 9", got)
	}
}

func TestParticipantsAreTheDistinctSplitsAWriteTouches(t *testing.T) {
	db := openTestDB(t)
	db.applyTest(t,
		"ALTER DATABASE d SET OPTIONS (spanload_split_rows = 10)",
		"CREATE TABLE T (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)",
		"CREATE INDEX TByV ON T (V)",
		"CREATE NULL_FILTERED INDEX TByVNF ON T (V)",
	)
	db.participants(t, db.mutation(t, OpInsert, "P", []string{"Id", "Name"}, pRows(1, 10)...)) // P: [..6) [6..)
	cols := []string{"Id", "Name"}
	tests := []struct {
		name string
		muts func() []*Mutation
		want int
	}{
		{"two rows in one split", func() []*Mutation {
			return []*Mutation{db.mutation(t, OpUpdate, "P", cols, []any{int64(1), "a"}, []any{int64(2), "b"})}
		}, 1},
		{"rows in both splits", func() []*Mutation {
			return []*Mutation{db.mutation(t, OpUpdate, "P", cols, []any{int64(1), "a"}, []any{int64(9), "b"})}
		}, 2},
		{"interleaved child in its parent's split", func() []*Mutation {
			return []*Mutation{
				db.mutation(t, OpUpdate, "P", cols, []any{int64(1), "c"}),
				db.mutation(t, OpInsert, "C", []string{"Id", "N"}, []any{int64(2), int64(1)}),
			}
		}, 1},
		{"point delete in the right split", func() []*Mutation {
			p, _ := db.Catalog().Table("C")
			return []*Mutation{{Op: OpDelete, Table: p, KeySet: KeySet{Keys: [][]any{{int64(7), int64(1)}}}}}
		}, 1},
		{"range delete over both splits", func() []*Mutation {
			p, _ := db.Catalog().Table("C")
			return []*Mutation{{Op: OpDelete, Table: p, KeySet: KeySet{Ranges: []KeyRange{{Start: []any{int64(3)}, End: []any{int64(8)}, StartClosed: true, EndClosed: true}}}}}
		}, 2},
		// Index entries are participants: the row's split plus each index's split.
		{"row with both index entries", func() []*Mutation {
			return []*Mutation{db.mutation(t, OpInsert, "T", []string{"Id", "V"}, []any{int64(1), int64(5)})}
		}, 3},
		{"NULL_FILTERED index has no entry for NULL", func() []*Mutation {
			return []*Mutation{db.mutation(t, OpInsert, "T", []string{"Id", "V"}, []any{int64(2), nil})}
		}, 2},
		{"update of an unindexed row only: none of the indexes", func() []*Mutation {
			return []*Mutation{db.mutation(t, OpUpdate, "T", []string{"Id"}, []any{int64(1)})}
		}, 1},
		{"delete removes the old entries", func() []*Mutation {
			tb, _ := db.Catalog().Table("T")
			return []*Mutation{{Op: OpDelete, Table: tb, KeySet: KeySet{Keys: [][]any{{int64(1)}}}}}
		}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := db.participants(t, tc.muts()...); got != tc.want {
				t.Fatalf("participants %d, want %d", got, tc.want)
			}
		})
	}
}

// An index of 10 entries divided at its median; moving an entry to the other split
// touches the row's split and both index splits, moving it within one split two.
func TestIndexEntriesMoveBetweenSplits(t *testing.T) {
	type update struct {
		cols []string
		row  []any
		want int
	}
	tests := []struct {
		name    string
		table   string
		index   string
		cols    []string
		row     func(id int64) []any
		obj     string
		bound   []any
		updates []update
	}{
		{
			// entries (V DESC, Id): 99,1 98,2 ... 90,10; the median (offset 5) is (94, 6)
			name: "descending index, values given", table: "CREATE TABLE T (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)",
			index: "CREATE INDEX TByV ON T (V DESC)", cols: []string{"Id", "V"},
			row: func(id int64) []any { return []any{id, 100 - id} }, obj: "i:tbyv", bound: []any{int64(94), int64(6)},
			updates: []update{
				{[]string{"Id", "V"}, []any{int64(1), int64(0)}, 3}, // (99,1) -> (0,1): the other split
				{[]string{"Id", "V"}, []any{int64(1), int64(1)}, 2}, // (0,1) -> (1,1): the same split
			},
		},
		{
			// entries (X, V, Id): 0,1,1 ... 0,10,10; a write of V alone reads X from the table
			name: "partial update, a key column read", table: "CREATE TABLE T (Id INT64 NOT NULL, V INT64, X INT64) PRIMARY KEY (Id)",
			index: "CREATE INDEX TByXV ON T (X, V)", cols: []string{"Id", "V", "X"},
			row: func(id int64) []any { return []any{id, id, int64(0)} }, obj: "i:tbyxv", bound: []any{int64(0), int64(6), int64(6)},
			updates: []update{
				{[]string{"Id", "V"}, []any{int64(1), int64(9)}, 3}, // (0,1,1) -> (0,9,1)
				{[]string{"Id", "V"}, []any{int64(7), int64(8)}, 2}, // (0,7,7) -> (0,8,7)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t)
			db.applyTest(t, "ALTER DATABASE d SET OPTIONS (spanload_split_rows = 10)", tc.table, tc.index)
			var rows [][]any
			for id := int64(1); id <= 10; id++ {
				rows = append(rows, tc.row(id))
			}
			db.participants(t, db.mutation(t, OpInsert, "T", tc.cols, rows...))
			if got := db.bounds(tc.obj); !reflect.DeepEqual(got, [][]any{tc.bound}) {
				t.Fatalf("index bounds %v, want [%v]", got, tc.bound)
			}
			for _, u := range tc.updates {
				if got := db.participants(t, db.mutation(t, OpUpdate, "T", u.cols, u.row)); got != u.want {
					t.Errorf("update %v: participants %d, want %d", u.row, got, u.want)
				}
			}
		})
	}
}

func TestSplitsAndOptionsSurviveARestartAndDropTableForgetsThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sqlite")
	db, err := Open("projects/p/instances/i/databases/d", path)
	if err != nil {
		t.Fatal(err)
	}
	db.applyTest(t,
		"CREATE TABLE P (Id INT64 NOT NULL, Name STRING(MAX) NOT NULL) PRIMARY KEY (Id)",
		"ALTER DATABASE d SET OPTIONS (spanload_split_rows = 4, spanload_latency_model = 'production_like')",
		"ALTER DATABASE d SET OPTIONS (spanload_commit_knee_rate = 250)",
	)
	if db.CommitKnee() != nil {
		t.Fatalf("a knee with a rate but no delay: %+v", db.CommitKnee())
	}
	db.applyTest(t, "ALTER DATABASE d SET OPTIONS (spanload_commit_knee_delay_ms = 40)")
	wantKnee := CommitKnee{Rate: 250, Delay: 40 * time.Millisecond}
	if k := db.CommitKnee(); k == nil || *k != wantKnee {
		t.Fatalf("knee %+v, want %+v", k, wantKnee)
	}
	db.participants(t, db.mutation(t, OpInsert, "P", []string{"Id", "Name"}, pRows(1, 4)...))
	before := db.bounds("t:p")
	if len(before) != 1 {
		t.Fatalf("bounds %v, want one", before)
	}
	db.Close()
	db, err = Open("projects/p/instances/i/databases/d", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.bounds("t:p"); !reflect.DeepEqual(got, before) {
		t.Fatalf("after restart bounds %v, want %v", got, before)
	}
	if db.SplitRows() != 4 || db.LatencyModel() != LatencyProductionLike {
		t.Fatalf("after restart options %d %q", db.SplitRows(), db.LatencyModel())
	}
	if k := db.CommitKnee(); k == nil || *k != wantKnee {
		t.Fatalf("after restart knee %+v, want %+v", k, wantKnee)
	}
	db.applyTest(t, "ALTER DATABASE d SET OPTIONS (spanload_split_rows = NULL, spanload_latency_model = NULL, spanload_commit_knee_rate = NULL)")
	if db.SplitRows() != DefaultSplitRows || db.LatencyModel() != LatencyNone || db.CommitKnee() != nil {
		t.Fatalf("after reset options %d %q %+v", db.SplitRows(), db.LatencyModel(), db.CommitKnee())
	}
	db.applyTest(t, "DROP TABLE P", "CREATE TABLE P (Id INT64 NOT NULL) PRIMARY KEY (Id)")
	if got := db.Splits()["table p"]; got != 0 {
		t.Fatalf("a dropped table keeps %d splits", got)
	}
}

func TestDatabaseOptionErrors(t *testing.T) {
	db := openTestDB(t)
	for _, stmt := range []string{
		"ALTER DATABASE d SET OPTIONS (spanload_split_rows = 1)",
		"ALTER DATABASE d SET OPTIONS (spanload_split_rows = 'x')",
		"ALTER DATABASE d SET OPTIONS (spanload_latency_model = 'fast')",
		"ALTER DATABASE d SET OPTIONS (spanload_nonsense = 1)",
		"ALTER DATABASE d SET OPTIONS (spanload_commit_knee_rate = -1)",
		"ALTER DATABASE d SET OPTIONS (spanload_commit_knee_delay_ms = 0)",
		"ALTER DATABASE d SET OPTIONS (spanload_commit_knee_delay_ms = 'x')",
		"ALTER DATABASE other SET OPTIONS (spanload_split_rows = 10)",
	} {
		_, err := db.ApplyDDL(context.Background(), []string{stmt}, schema.Compilers{})
		if got := spanerr.Code(err, codes.OK); got != codes.InvalidArgument {
			t.Errorf("%s: got %v (%v), want InvalidArgument", stmt, got, err)
		}
	}
	if db.SplitRows() != DefaultSplitRows {
		t.Errorf("a rejected option changed split rows to %d", db.SplitRows())
	}
}
