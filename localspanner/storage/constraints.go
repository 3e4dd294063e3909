package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/mattn/go-sqlite3"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/value"
)

// dataCheck is a query over the existing rows that a DDL statement runs before it is
// recorded: a row it returns (the table's key) fails the statement with fail(key).
type dataCheck struct {
	sql  string
	fail func(key string) error
}

// constraintDDL returns the SQLite statements and the data checks that the
// constraint and ALTER COLUMN parts of ch need.
func constraintDDL(ch *schema.Change, comp schema.ExprCompiler) ([]string, []dataCheck, error) {
	var sqls []string
	var checks []dataCheck
	addTriggers := func(t *schema.Table, ck *schema.Check) error {
		if comp == nil {
			return nil
		}
		s, err := ck.SQLiteTriggers(t, comp)
		if err != nil {
			return spanerr.InvalidArgument("Error parsing expression '%s' from check constraint '%s' in table '%s': %v", ck.Expr, ck.Name, t.Name, err)
		}
		sqls = append(sqls, s...)
		return nil
	}
	if t := ch.CreatedTable; t != nil {
		for _, ck := range t.Checks {
			if err := addTriggers(t, ck); err != nil {
				return nil, nil, err
			}
		}
		for _, fk := range t.ForeignKeys {
			sqls = append(sqls, fkIndexes(fk)...)
		}
	}
	if t := ch.DroppedTable; t != nil {
		for _, fk := range t.ForeignKeys {
			sqls = append(sqls, dropFKIndexes(fk)...)
		}
	}
	t := ch.AlteredTable
	if ck := ch.AddedCheck; ck != nil && comp != nil {
		expr, err := comp(t, ck.Expr)
		if err != nil {
			return nil, nil, spanerr.InvalidArgument("Error parsing expression '%s' from check constraint '%s' in table '%s': %v", ck.Expr, ck.Name, t.Name, err)
		}
		checks = append(checks, dataCheck{keySelect(t) + " WHERE NOT (" + expr + ") LIMIT 1", func(key string) error {
			return spanerr.OutOfRange("Check constraint `%s`.`%s` is violated for key %s", t.Name, ck.Name, key)
		}})
		if err := addTriggers(t, ck); err != nil {
			return nil, nil, err
		}
	}
	if ck := ch.DroppedCheck; ck != nil {
		sqls = append(sqls, ck.SQLiteDropTriggers(ch.OldTable)...)
	}
	if fk := ch.DroppedForeignKey; fk != nil {
		sqls = append(sqls, dropFKIndexes(fk)...)
	}
	if fk := ch.AddedForeignKey; fk != nil {
		sqls = append(sqls, fkIndexes(fk)...)
		checks = append(checks, dataCheck{fkOrphans(fk, "") + " LIMIT 1", func(key string) error {
			return spanerr.FailedPrecondition("Foreign key `%s` constraint violation on table `%s`. Cannot find referenced key `%s` in table `%s`.", fk.Name, fk.Table.Name, key, fk.RefTable.Name)
		}})
	}
	if col, old := ch.AlteredColumn, ch.OldColumn; col != nil && old != nil {
		if col.NotNull && !old.NotNull {
			checks = append(checks, dataCheck{keySelect(t) + " WHERE " + col.SQLName + " IS NULL LIMIT 1", func(key string) error {
				return spanerr.FailedPrecondition("Adding a NOT NULL constraint on a column %s.%s is not allowed because it has a NULL value at key: %s", t.Name, col.Name, key)
			}})
		}
		if col.Length > 0 && (old.Length == 0 || col.Length < old.Length) && !retyped(ch) {
			length := "length(" + col.SQLName + ")"
			if col.Type.ArrayElementType != nil {
				length = "(SELECT max(length(" + elemValue(col) + ")) FROM json_each(" + col.SQLName + "))"
			}
			checks = append(checks, dataCheck{keySelect(t) + " WHERE " + length + " > " + fmt.Sprint(col.Length) + " LIMIT 1", func(key string) error {
				return spanerr.FailedPrecondition("Reducing the length of column %s to %d is not allowed because it has a longer value at key: %s", col.Name, col.Length, key)
			}})
		}
	}
	return sqls, checks, nil
}

// fkIndexes are the SQLite indexes that keep a foreign key's checks to lookups (as
// Spanner's backing indexes do): on the referenced columns, for the check of each
// written referencing row, and on the referencing columns, for ON DELETE CASCADE. An
// index whose columns lead the table's primary key is not needed.
func fkIndexes(fk *schema.ForeignKey) []string {
	var out []string
	if !leadsKey(fk.RefTable, fk.RefColumns) {
		out = append(out, "CREATE INDEX IF NOT EXISTS "+fkIndexName(fk, "ref")+" ON "+fk.RefTable.SQLName+" ("+sqlNames(fk.RefColumns)+")")
	}
	if !leadsKey(fk.Table, fk.Columns) {
		out = append(out, "CREATE INDEX IF NOT EXISTS "+fkIndexName(fk, "cols")+" ON "+fk.Table.SQLName+" ("+sqlNames(fk.Columns)+")")
	}
	return out
}

func dropFKIndexes(fk *schema.ForeignKey) []string {
	return []string{"DROP INDEX IF EXISTS " + fkIndexName(fk, "ref"), "DROP INDEX IF EXISTS " + fkIndexName(fk, "cols")}
}

func fkIndexName(fk *schema.ForeignKey, side string) string {
	return `"_fk_` + strings.ReplaceAll(fk.Name, `"`, `""`) + "_" + side + `"`
}

func leadsKey(t *schema.Table, cols []*schema.Column) bool {
	if len(cols) > len(t.PrimaryKey) {
		return false
	}
	for i, c := range cols {
		if t.PrimaryKey[i].Column != c {
			return false
		}
	}
	return true
}

func sqlNames(cols []*schema.Column) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.SQLName
	}
	return strings.Join(out, ", ")
}

// elemValue is an ARRAY element as json_each returns it, in the unit SQLite's length()
// counts for the element type (characters of STRING, bytes of base64-decoded BYTES).
func elemValue(col *schema.Column) string {
	if col.Type.ArrayElementType.Code != spannerpb.TypeCode_BYTES {
		return "value"
	}
	return "sp_unbase64(value)"
}

// keySelect is "SELECT <key columns> FROM t".
func keySelect(t *schema.Table) string {
	cols := make([]string, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		cols[i] = t.SQLName + "." + k.Column.SQLName
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + t.SQLName
}

// fkOrphans selects the foreign key values of fk's referencing rows (all of whose foreign
// key columns are set) that have no referenced row; where, if set, narrows the
// referencing rows (aliased c).
func fkOrphans(fk *schema.ForeignKey, where string) string {
	var set, match, cols []string
	for i, col := range fk.Columns {
		set = append(set, "c."+col.SQLName+" IS NOT NULL")
		match = append(match, "p."+fk.RefColumns[i].SQLName+" = c."+col.SQLName)
		cols = append(cols, "c."+col.SQLName)
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + fk.Table.SQLName + " AS c WHERE " + strings.Join(set, " AND ") +
		" AND NOT EXISTS (SELECT 1 FROM " + fk.RefTable.SQLName + " AS p WHERE " + strings.Join(match, " AND ") + ")"
	if where != "" {
		q += " AND " + where
	}
	return q
}

// runDataCheck runs one data check on tx.
func runDataCheck(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, dc dataCheck, args ...any) error {
	rows, err := q.QueryContext(ctx, dc.sql, args...)
	if err != nil {
		return fmt.Errorf("check existing rows: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return rows.Err()
	}
	key, err := scanAny(rows)
	if err != nil {
		return err
	}
	return dc.fail(FormatKey(key))
}

// scanAny scans the current row's cells as they come.
func scanAny(rows *sql.Rows) ([]any, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	cells := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	return cells, rows.Scan(ptrs...)
}

// checkError turns the RAISE of a CHECK trigger into Spanner's error; ok is false for
// any other error.
func checkError(err error, t *schema.Table, key []any) (error, bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return nil, false
	}
	msg := se.Error()
	i := strings.Index(msg, schema.CheckFailed)
	if i < 0 {
		return nil, false
	}
	name := msg[i+len(schema.CheckFailed):]
	return spanerr.OutOfRange("Check constraint `%s`.`%s` is violated for key %s", t.Name, name, FormatKey(key)), true
}

// fkWrites records what a commit wrote that foreign keys must be checked for: the keys
// written in referencing tables, and the referenced tables that lost or changed rows.
type fkWrites struct {
	child  map[string][][]any // table name (lower-cased) -> keys written
	parent map[string]bool    // table name (lower-cased) -> rows deleted or changed
}

// noteWrite records mutation m for the foreign key check at commit.
func (w *writer) noteWrite(m *Mutation) {
	cat := w.d.Catalog()
	t, ok := cat.Table(m.Table.Name)
	if !ok {
		return
	}
	name := strings.ToLower(t.Name)
	if m.Op != OpDelete && len(t.ForeignKeys) > 0 {
		if w.fk.child == nil {
			w.fk.child = map[string][][]any{}
		}
		keyPos := keyPositions(m.Table, m.Columns)
		for _, row := range m.Rows {
			key := make([]any, len(keyPos))
			for i, p := range keyPos {
				key[i] = row[p]
			}
			w.fk.child[name] = append(w.fk.child[name], key)
		}
	}
	refs := cat.ReferencedBy(t)
	if len(refs) == 0 || m.Op == OpInsert || m.Op == OpInsertOrIgnore {
		return
	}
	touched := m.Op == OpDelete || m.Op == OpReplace
	for _, fk := range refs {
		for _, rc := range fk.RefColumns {
			for _, c := range m.Columns {
				touched = touched || strings.EqualFold(c.Name, rc.Name)
			}
		}
	}
	if touched {
		if w.fk.parent == nil {
			w.fk.parent = map[string]bool{}
		}
		w.fk.parent[name] = true
	}
}

// checkForeignKeys runs, before a commit is made durable, Spanner's foreign key checks
// over what the commit wrote: every written referencing row has its referenced row,
// and no referenced row that went away is still referenced.
func (w *writer) checkForeignKeys() error {
	cat := w.d.Catalog()
	for name, keys := range w.fk.child {
		t, ok := cat.Table(name)
		if !ok {
			continue
		}
		for _, fk := range t.ForeignKeys {
			q := fkOrphans(fk, pointWhere(t.PrimaryKey, len(t.PrimaryKey), "c.")) + " LIMIT 1"
			for _, key := range keys {
				err := runDataCheck(w.ctx, w.d.writer, dataCheck{q, func(ref string) error {
					return spanerr.FailedPrecondition("Foreign key `%s` constraint violation on table `%s`. Cannot find referenced key `%s` in table `%s`.", fk.Name, t.Name, ref, fk.RefTable.Name)
				}}, key...)
				if err != nil {
					return err
				}
			}
		}
	}
	for name := range w.fk.parent {
		t, ok := cat.Table(name)
		if !ok {
			continue
		}
		for _, fk := range cat.ReferencedBy(t) {
			err := runDataCheck(w.ctx, w.d.writer, dataCheck{fkOrphans(fk, "") + " LIMIT 1", func(ref string) error {
				return spanerr.FailedPrecondition("Foreign key `%s` constraint violation when deleting or updating referenced key `%s` in table `%s`. A row with that key exists in the referencing table `%s`.", fk.Name, ref, t.Name, fk.Table.Name)
			}})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// cascadeForeignKeys deletes, before rows of t matching cond are deleted, the rows that
// reference them through a foreign key with ON DELETE CASCADE.
func (w *writer) cascadeForeignKeys(t *schema.Table, cond string, args []any) error {
	cat := w.d.Catalog()
	cur, ok := cat.Table(t.Name)
	if !ok {
		return nil
	}
	for _, fk := range cat.ReferencedBy(cur) {
		if fk.OnDelete != schema.Cascade || fk.Table == cur {
			continue
		}
		var fcols, rcols []string
		for i, col := range fk.Columns {
			fcols = append(fcols, col.SQLName)
			rcols = append(rcols, fk.RefColumns[i].SQLName)
		}
		q := keySelect(fk.Table) + " WHERE (" + strings.Join(fcols, ", ") + ") IN (SELECT " + strings.Join(rcols, ", ") +
			" FROM " + cur.SQLName + " WHERE " + cond + ")"
		keys, err := w.keys(q, args)
		if err != nil {
			return err
		}
		for _, key := range keys {
			if err := w.deleteWhere(fk.Table, pointWhere(fk.Table.PrimaryKey, len(key), ""), key); err != nil {
				return err
			}
		}
	}
	return nil
}

// keys runs a query that selects primary keys on the writer connection.
func (w *writer) keys(q string, args []any) ([][]any, error) {
	rows, err := w.d.writer.QueryContext(w.ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("select keys: %w", err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		key, err := scanAny(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, key)
	}
	return out, rows.Err()
}

// checkEnum refuses a number that the column's ENUM type (or its ARRAY's element
// type) does not define, as Spanner does.
func (w *writer) checkEnum(t *schema.Table, c *schema.Column, row []any, keyPos []int, cell any) error {
	typ := c.Type
	var nums []any
	if elem := typ.ArrayElementType; elem != nil {
		if elem.Code != spannerpb.TypeCode_ENUM {
			return nil
		}
		text, _ := cell.(string)
		cells, err := value.DecodeArrayCells(text)
		if err != nil {
			return err
		}
		typ, nums = elem, cells
	} else if typ.Code == spannerpb.TypeCode_ENUM {
		nums = []any{cell}
	}
	cat := w.d.Catalog()
	for _, x := range nums {
		var n int64
		switch v := x.(type) {
		case nil:
			continue
		case int64:
			n = v
		case float64:
			n = int64(v)
		default:
			continue
		}
		if !cat.EnumHasValue(typ, n) {
			key := make([]any, len(keyPos))
			for i, p := range keyPos {
				if p >= 0 {
					key[i] = row[p]
				}
			}
			return spanerr.FailedPrecondition("Enum validation on column %s.%s failed at key %s because type %s cannot be set to %d", t.Name, c.Name, FormatKey(key), typ.ProtoTypeFqn, n)
		}
	}
	return nil
}
