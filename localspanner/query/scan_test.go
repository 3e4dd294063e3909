package query

import "testing"

func TestRowsScanned(t *testing.T) {
	cat, db := newTestDB(t)
	const old, fresh = 3000, 40
	since := loadChanges(t, db, old, fresh)
	params := watcherParams(since)
	tests := []struct {
		name     string
		sql      string
		min, max int64
	}{
		{"hinted reads the index range", watcherHinted, fresh, fresh + 37},
		{"unhinted scans the table", watcherUnhinted, old + fresh, old + fresh},
		{"point lookup reads one row", "SELECT * FROM Changes WHERE Id = 'row-0000007'", 1, 1},
		{"join reads both sides", "SELECT c.Id FROM Changes c JOIN Changes d ON d.Id = c.Id WHERE c.Id < 'row-0000010'", 20, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := CompileProfiled(cat, tt.sql, params, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rowsOf(db, plan.SQL, plan.Args, plan.Decode); err != nil {
				t.Fatalf("%s: %v", plan.SQL, err)
			}
			if n := plan.RowsScanned(); n < tt.min || n > tt.max {
				t.Errorf("rows scanned %d, want %d..%d\nSQL: %s", n, tt.min, tt.max, plan.SQL)
			}
			if n := plan.RowsScanned(); n != 0 {
				t.Errorf("the counter was not released: %d", n)
			}
		})
	}
	plain, err := Compile(cat, watcherHinted, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.RowsScanned() != 0 || plain.SQL == "" {
		t.Errorf("a plain plan counts nothing")
	}
}
