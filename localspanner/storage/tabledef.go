package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/spanload/spanload/localspanner/schema"
)

// defaultChanged reports whether ch changed the DEFAULT of a column (ALTER COLUMN
// SET DEFAULT / DROP DEFAULT), which SQLite's ALTER TABLE cannot do.
func defaultChanged(ch *schema.Change) bool {
	return ch.AlteredColumn != nil && ch.OldColumn != nil && ch.AlteredColumn.Default != ch.OldColumn.Default
}

// rewriteTableDef replaces the stored CREATE TABLE text of t's SQLite table with one
// rendered from the catalog, keeping the table's stored column order. This is SQLite's
// documented procedure for changing a column's default value (lang_altertable.html,
// "Making Other Kinds Of Table Schema Changes"): the rows on disk do not change, so
// existing rows keep their values and later inserts get the new default. It runs in
// tx, the DDL statement's transaction.
func rewriteTableDef(ctx context.Context, tx *sql.Tx, t *schema.Table, comp schema.ExprCompiler) error {
	order, err := storedColumns(ctx, tx, t.Name)
	if err != nil {
		return err
	}
	def, err := t.SQLiteTableDef(order, comp)
	if err != nil {
		return err
	}
	var version int64
	if err := tx.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{q: "PRAGMA writable_schema = ON"},
		{q: "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", args: []any{def, t.Name}},
		{q: "PRAGMA schema_version = " + strconv.FormatInt(version+1, 10)},
		{q: "PRAGMA writable_schema = OFF"},
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			_, _ = tx.ExecContext(ctx, "PRAGMA writable_schema = OFF")
			return fmt.Errorf("rewrite the definition of %s: %w", t.Name, err)
		}
	}
	after, err := storedColumns(ctx, tx, t.Name)
	if err != nil {
		return err
	}
	if fmt.Sprint(after) != fmt.Sprint(order) {
		return fmt.Errorf("rewrite the definition of %s: columns %v became %v", t.Name, order, after)
	}
	return nil
}

// storedColumns lists the columns of a SQLite table in their stored order.
func storedColumns(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_xinfo(?)", table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer func() { _ = rows.Close() }()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", table, err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	return names, nil
}
