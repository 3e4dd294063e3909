package storage

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spanload/spanload/localspanner/schema"
)

// keyRangeTable is a composite-key table (a nullable, b) with n*n rows and an
// index on (a, b), or on (a DESC, b) when desc.
func keyRangeTable(t *testing.T, n int, desc bool) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+filepath.Join(t.TempDir(), "k.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	order := ""
	if desc {
		order = " DESC"
	}
	stmts := []string{`CREATE TABLE k ("a" INTEGER, "b" INTEGER, v INTEGER)`, `CREATE INDEX k_ab ON k ("a"` + order + `, "b")`}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	tx, _ := db.Begin()
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			var av any = a
			if a == 0 {
				av = nil // NULL sorts first in Spanner's key order
			}
			if _, err := tx.Exec(`INSERT INTO k VALUES (?, ?, 0)`, av, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ANALYZE"); err != nil {
		t.Fatal(err)
	}
	return db
}

// inRange is Spanner's key order on (a, b), a descending when desc; an empty
// closed bound is no bound.
func inRange(a any, b int, r KeyRange, desc bool) bool {
	cmp := func(bound []any) int {
		ka, ba := a, bound[0]
		c := 0
		switch {
		case ka == nil && ba == nil:
		case ka == nil:
			c = -1
		case ba == nil:
			c = 1
		default:
			c = ka.(int) - ba.(int)
		}
		if desc {
			c = -c // NULL sorts first ascending, last descending
		}
		if c != 0 || len(bound) == 1 {
			return c
		}
		return b - bound[1].(int)
	}
	if len(r.Start) > 0 {
		if c := cmp(r.Start); c < 0 || (c == 0 && !r.StartClosed) {
			return false
		}
	}
	if len(r.End) > 0 {
		if c := cmp(r.End); c > 0 || (c == 0 && !r.EndClosed) {
			return false
		}
	}
	return true
}

func TestRangeWhereSelectsTheRangeAndSeeksBothEndsOfTheFirstColumn(t *testing.T) {
	const n = 40
	for _, desc := range []bool{false, true} {
		db := keyRangeTable(t, n, desc)
		parts := []schema.KeyPart{
			{Column: &schema.Column{Name: "a", SQLName: `"a"`}, Desc: desc},
			{Column: &schema.Column{Name: "b", SQLName: `"b"`, NotNull: true}},
		}
		lo, hi := []any{10, 5}, []any{20, 7}
		if desc {
			lo, hi = hi, lo
		}
		ranges := []KeyRange{
			{Start: lo, StartClosed: true, End: hi},
			{Start: lo, End: hi, EndClosed: true},
			{Start: []any{nil, 3}, StartClosed: true, End: hi},
			{Start: lo, StartClosed: true, EndClosed: true},
			{StartClosed: true, End: hi, EndClosed: true},
			{Start: lo[:1], StartClosed: true, End: hi},
		}
		for i, r := range ranges {
			cond, args := RangeWhere(parts, r, "")
			rows, err := db.Query(`SELECT "a", "b" FROM k INDEXED BY k_ab WHERE `+cond, args...)
			if err != nil {
				t.Fatalf("desc=%v range %d: %v", desc, i, err)
			}
			got := 0
			for rows.Next() {
				var a sql.NullInt64
				var b int
				if err := rows.Scan(&a, &b); err != nil {
					t.Fatal(err)
				}
				var av any
				if a.Valid {
					av = int(a.Int64)
				}
				if !inRange(av, b, r, desc) {
					t.Errorf("desc=%v range %d: row (%v, %d) is outside %+v", desc, i, av, b, r)
				}
				got++
			}
			_ = rows.Close()
			want := 0
			for a := 0; a < n; a++ {
				for b := 0; b < n; b++ {
					var av any = a
					if a == 0 {
						av = nil
					}
					if inRange(av, b, r, desc) {
						want++
					}
				}
			}
			if got != want {
				t.Errorf("desc=%v range %d: %d rows, want %d", desc, i, got, want)
			}
		}
		// The bounded ranges seek both ends of "a": the plan names both bounds.
		for i, r := range ranges[:2] {
			cond, args := RangeWhere(parts, r, "")
			var id, parent, unused int
			var detail string
			if err := db.QueryRow(`EXPLAIN QUERY PLAN SELECT COUNT(*) FROM k WHERE `+cond, args...).Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(detail, "a>?") || !strings.Contains(detail, "a<?") {
				t.Errorf("desc=%v range %d: plan %q does not seek both ends of a (%s)", desc, i, detail, fmt.Sprint(args))
			}
		}
	}
}
