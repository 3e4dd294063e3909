package storage

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spanload/spanload/localspanner/schema"
)

// TestChangedDefaultsSurviveARestart: SET/DROP DEFAULT rewrite the stored table
// definition; a column added after HiddenTS keeps its place, rows keep their values, and
// a reopened database inserts with the changed defaults.
func TestChangedDefaultsSurviveARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sqlite")
	literal := schema.Compilers{Expr: func(_ *schema.Table, expr string) (string, error) { return expr, nil }}
	open := func() *DB {
		db, err := Open("projects/p/instances/i/databases/d", path)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	apply := func(db *DB, stmts ...string) {
		t.Helper()
		if _, err := db.ApplyDDL(context.Background(), stmts, literal); err != nil {
			t.Fatal(err)
		}
	}
	insert := func(db *DB, id int64) {
		t.Helper()
		if _, err := db.write(t, OpInsert, "T", []string{"Id"}, []any{id}); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(db *DB) [][]any {
		t.Helper()
		var out [][]any
		if _, err := db.Read(context.Background(), `SELECT "Id", "A", "B" FROM "T" ORDER BY "Id"`, nil, func(r []any) error {
			out = append(out, append([]any(nil), r...))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	db := open()
	apply(db, "CREATE TABLE T (Id INT64 NOT NULL, A INT64 DEFAULT (1)) PRIMARY KEY (Id)", "ALTER TABLE T ADD COLUMN B INT64")
	insert(db, 1)
	apply(db, "ALTER TABLE T ALTER COLUMN A SET DEFAULT (7)", "ALTER TABLE T ALTER COLUMN B SET DEFAULT (8)")
	insert(db, 2)
	db.Close()

	db = open()
	defer db.Close()
	insert(db, 3)
	apply(db, "ALTER TABLE T ALTER COLUMN A DROP DEFAULT")
	insert(db, 4)
	want := [][]any{{int64(1), int64(1), nil}, {int64(2), int64(7), int64(8)}, {int64(3), int64(7), int64(8)}, {int64(4), nil, int64(8)}}
	if got := rows(db); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if got := db.one(t, "PRAGMA integrity_check"); got != "ok" {
		t.Fatalf("integrity_check: %v", got)
	}
}
