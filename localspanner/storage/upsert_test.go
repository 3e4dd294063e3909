package storage

import (
	"testing"

	"github.com/spanload/spanload/localspanner/schema"
)

func TestInsertOrUpdateIsOneUpsertWhereBothBranchesWriteTheSame(t *testing.T) {
	db := openTestDB(t)
	p, _ := db.Catalog().Table("P")
	c, _ := db.Catalog().Table("C")
	col := func(tb *schema.Table, names ...string) []*schema.Column {
		out := make([]*schema.Column, len(names))
		for i, n := range names {
			out[i], _ = tb.Column(n)
		}
		return out
	}
	cases := []struct {
		name  string
		table *schema.Table
		cols  []*schema.Column
		want  bool
	}{
		{"top-level table, NOT NULL columns given", p, col(p, "Id", "Name"), true},
		{"a NOT NULL column missing (an update may leave it out, a new row may not)", p, col(p, "Id", "Ts"), false},
		{"interleaved: the parent row must be checked", c, col(c, "Id", "N"), false},
	}
	for _, tc := range cases {
		if got := upsertable(tc.table, tc.cols); got != tc.want {
			t.Errorf("%s: upsertable = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Through the upsert: a new row, then the same key again changes it and keeps what it leaves out.
	if _, err := db.write(t, OpInsertOrUpdate, "P", []string{"Id", "Name", "Ts"}, []any{int64(7), "a", "2020-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write(t, OpInsertOrUpdate, "P", []string{"Id", "Name"}, []any{int64(7), "b"}); err != nil {
		t.Fatal(err)
	}
	if got := db.count(t, "SELECT COUNT(*) FROM "+p.SQLName); got != 1 {
		t.Errorf("rows: %d, want 1", got)
	}
	if got := db.one(t, "SELECT Name || ' ' || Ts FROM "+p.SQLName+" WHERE Id = 7"); got != "b 2020-01-01T00:00:00Z" {
		t.Errorf("row 7: %v, want the new name and the kept timestamp", got)
	}
}
