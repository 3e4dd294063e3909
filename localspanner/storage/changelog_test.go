package storage

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spanload/spanload/localspanner/schema"
)

func (d *DB) ddlOK(t *testing.T, stmts ...string) {
	t.Helper()
	if _, err := d.ApplyDDL(context.Background(), stmts, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
}

func (d *DB) changeTriggerCount(t *testing.T) int64 {
	t.Helper()
	var n int64
	if _, err := d.Read(context.Background(), "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_cs\\_%' ESCAPE '\\'", nil, func(row []any) error {
		n = row[0].(int64)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

type loggedChange struct {
	Table    string
	Op       string
	Old, New map[string]any
}

func (d *DB) logged(t *testing.T) []loggedChange {
	t.Helper()
	rows, err := d.Changes(context.Background(), 0, d.LastCommit())
	if err != nil {
		t.Fatal(err)
	}
	out := []loggedChange{}
	for _, r := range rows {
		out = append(out, loggedChange{Table: r.Table, Op: string(r.Op), Old: r.Old, New: r.New})
	}
	return out
}

// A table no change stream watches has no change triggers and its commits log nothing; a watched
// table logs each write's old and new row, also after a column is added and a restart; dropping the
// stream drops the triggers.
func TestChangeLogOnlyForWatchedTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.sqlite")
	db, err := Open("projects/p/instances/i/databases/d", path)
	if err != nil {
		t.Fatal(err)
	}
	db.ddlOK(t, "CREATE TABLE A (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)",
		"CREATE TABLE B (Id INT64 NOT NULL, V BYTES(MAX)) PRIMARY KEY (Id)")
	if _, err := db.write(t, OpInsert, "A", []string{"Id", "V"}, []any{int64(1), "a"}); err != nil {
		t.Fatal(err)
	}
	if n := db.changeTriggerCount(t); n != 0 {
		t.Fatalf("%d change triggers without a change stream, want 0", n)
	}
	db.ddlOK(t, "CREATE CHANGE STREAM S FOR B")
	if n := db.changeTriggerCount(t); n != 3 {
		t.Fatalf("%d change triggers for one watched table, want 3 (insert, update, delete)", n)
	}
	if _, err := db.write(t, OpInsert, "A", []string{"Id", "V"}, []any{int64(2), "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write(t, OpInsert, "B", []string{"Id", "V"}, []any{int64(1), []byte{0, 1}}); err != nil {
		t.Fatal(err)
	}
	db.ddlOK(t, "ALTER TABLE B ADD COLUMN W INT64")
	if _, err := db.write(t, OpUpdate, "B", []string{"Id", "W"}, []any{int64(1), int64(7)}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = Open("projects/p/instances/i/databases/d", path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Commit(context.Background(), []*Mutation{{Op: OpDelete, Table: mustTable(t, db, "B"), KeySet: KeySet{Keys: [][]any{{int64(1)}}}}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := []loggedChange{
		{Table: "B", Op: "I", New: map[string]any{"Id": int64(1), "V": []byte{0, 1}}},
		{Table: "B", Op: "U", Old: map[string]any{"Id": int64(1), "V": []byte{0, 1}, "W": nil}, New: map[string]any{"Id": int64(1), "V": []byte{0, 1}, "W": int64(7)}},
		{Table: "B", Op: "D", Old: map[string]any{"Id": int64(1), "V": []byte{0, 1}, "W": int64(7)}},
	}
	if got := db.logged(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("change log\n got %+v\nwant %+v", got, want)
	}
	db.ddlOK(t, "DROP CHANGE STREAM S")
	if n := db.changeTriggerCount(t); n != 0 {
		t.Fatalf("%d change triggers after DROP CHANGE STREAM, want 0", n)
	}
}

func mustTable(t *testing.T, db *DB, name string) *schema.Table {
	t.Helper()
	tb, ok := db.Catalog().Table(name)
	if !ok {
		t.Fatalf("no table %s", name)
	}
	return tb
}
