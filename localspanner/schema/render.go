package schema

import (
	"fmt"
	"strings"
)

// HiddenTS is the hidden SQLite column of every table that holds the commit
// timestamp (Unix microseconds) of the row's current version.
const HiddenTS = "_spanload_ts"

// HistoryName is the SQLite table that keeps superseded row versions of t:
// its columns, then _from (the version's commit time) and _to (when it was
// superseded), both Unix microseconds.
func (t *Table) HistoryName() string { return quote("_h_" + t.Name) }

// DDL returns the canonical Spanner DDL of the catalog: tables in creation order
// (parents before children), each followed by its indexes.
func (c *Catalog) DDL() []string {
	var out []string
	if o := c.optionsDDL(); o != "" {
		out = append(out, o)
	}
	if c.protos != nil {
		out = append(out, c.protos.ddl())
	}
	out = append(out, c.tablesDDL(
		(*Table).DDL,
		(*Index).DDL,
		func(t *Table, fk *ForeignKey) string {
			return "ALTER TABLE " + t.Name + " ADD CONSTRAINT " + fk.Name + " " + fk.clauseDDL()
		})...)
	for _, v := range c.Views {
		out = append(out, v.DDL())
	}
	for _, cs := range c.ChangeStreams {
		out = append(out, cs.DDL())
	}
	return out
}

// tablesDDL renders the tables in creation order (parents before children), each
// followed by its indexes, then the foreign keys that reference a table created later
// (left out of their CREATE TABLE, which sees only the tables before it).
func (c *Catalog) tablesDDL(table func(*Table, map[*Table]bool) string, index func(*Index) string, laterFK func(*Table, *ForeignKey) string) []string {
	var out, later []string
	seen := map[*Table]bool{}
	for _, t := range c.Tables {
		seen[t] = true
		out = append(out, table(t, seen))
		for _, ix := range t.Indexes {
			out = append(out, index(ix))
		}
		for _, fk := range t.ForeignKeys {
			if !seen[fk.RefTable] {
				later = append(later, laterFK(t, fk))
			}
		}
	}
	return append(out, later...)
}

// DDL is the canonical CREATE TABLE statement of t. Its foreign keys that reference
// a table not in before are left out (Catalog.DDL adds them after every table).
func (t *Table) DDL(before map[*Table]bool) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + " (\n")
	for _, col := range t.Columns {
		b.WriteString("  " + col.Name + " " + TypeDDL(col.Type, col.Length))
		if col.NotNull {
			b.WriteString(" NOT NULL")
		}
		if col.Default != "" {
			b.WriteString(" DEFAULT (" + col.Default + ")")
		}
		if col.Generated != "" {
			b.WriteString(" AS (" + col.Generated + ") STORED")
		}
		if col.AllowCommitTimestamp {
			b.WriteString(" OPTIONS (\n    allow_commit_timestamp = true\n  )")
		}
		b.WriteString(",\n")
	}
	t.constraintsDDL(&b, before)
	b.WriteString(") PRIMARY KEY(" + keyList(t.PrimaryKey, func(c *Column) string { return c.Name }) + ")")
	if t.Parent != nil {
		b.WriteString(",\n  INTERLEAVE IN PARENT " + t.Parent.Name)
		if t.OnDelete == Cascade {
			b.WriteString(" ON DELETE CASCADE")
		} else {
			b.WriteString(" ON DELETE NO ACTION")
		}
	}
	if p := t.RowDeletionPolicy; p != nil {
		b.WriteString(",\n  ROW DELETION POLICY (" + p.Expression() + ")")
	}
	return b.String()
}

// keyList renders key parts as "a, b DESC" with the given column naming.
func keyList(parts []KeyPart, name func(*Column) string) string {
	out := make([]string, len(parts))
	for i, k := range parts {
		out[i] = name(k.Column)
		if k.Desc {
			out[i] += " DESC"
		}
	}
	return strings.Join(out, ", ")
}

// DDL is the canonical CREATE INDEX statement of ix.
func (ix *Index) DDL() string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if ix.Unique {
		b.WriteString("UNIQUE ")
	}
	if ix.NullFiltered {
		b.WriteString("NULL_FILTERED ")
	}
	b.WriteString("INDEX " + ix.Name + " ON " + ix.Table.Name + "(" + keyList(ix.Keys, func(c *Column) string { return c.Name }) + ")")
	if len(ix.Storing) > 0 {
		names := make([]string, len(ix.Storing))
		for i, c := range ix.Storing {
			names[i] = c.Name
		}
		b.WriteString(" STORING (" + strings.Join(names, ", ") + ")")
	}
	if ix.Interleave != nil {
		b.WriteString(", INTERLEAVE IN " + ix.Interleave.Name)
	}
	return b.String()
}

// ExprCompiler translates a GoogleSQL column expression (DEFAULT or generated)
// of table t into a SQLite expression over t's SQLite columns.
type ExprCompiler func(t *Table, exprSQL string) (string, error)

// SQLiteCreateTable returns the SQLite statements that create t: the table of
// current rows, its history table, and the triggers that copy superseded versions
// into history. commitTSFunc is the SQL function that returns the commit
// timestamp of the write in progress.
func (t *Table) SQLiteCreateTable(comp ExprCompiler, commitTSFunc string) ([]string, error) {
	order := make([]string, 0, len(t.Columns)+1)
	for _, col := range t.Columns {
		order = append(order, col.Name)
	}
	create, err := t.SQLiteTableDef(append(order, HiddenTS), comp)
	if err != nil {
		return nil, err
	}
	stmts := []string{create}
	stmts = append(stmts, t.sqliteHistory(commitTSFunc)...)
	return stmts, nil
}

// SQLiteTableDef is the CREATE TABLE statement of t's table of current rows with its
// columns in the given order (column names, HiddenTS among them). An existing table's
// definition is rewritten with its stored order (ADD COLUMN puts columns after HiddenTS).
func (t *Table) SQLiteTableDef(order []string, comp ExprCompiler) (string, error) {
	defs := make([]string, 0, len(order)+1)
	for _, name := range order {
		if name == HiddenTS {
			defs = append(defs, HiddenTS+" INTEGER NOT NULL DEFAULT 0")
			continue
		}
		col, ok := t.Column(name)
		if !ok {
			return "", fmt.Errorf("table %s has no column %s", t.Name, name)
		}
		def, err := t.sqliteColumnDef(col, comp)
		if err != nil {
			return "", err
		}
		defs = append(defs, def)
	}
	defs = append(defs, "PRIMARY KEY ("+keyList(t.PrimaryKey, func(c *Column) string { return c.SQLName })+")")
	return "CREATE TABLE " + t.SQLName + " (" + strings.Join(defs, ", ") + ") WITHOUT ROWID", nil
}

// sqliteColumnDef is col's definition in t's SQLite table.
func (t *Table) sqliteColumnDef(col *Column, comp ExprCompiler) (string, error) {
	def := col.SQLName + " " + SQLiteType(col.Type)
	if col.NotNull && col.Generated != "" {
		// Writes are checked for NOT NULL before they reach SQLite (so that ALTER
		// COLUMN can drop it); a generated value only SQLite sees.
		def += " NOT NULL"
	}
	if col.Default != "" {
		expr, err := comp(t, col.Default)
		if err != nil {
			return "", err
		}
		def += " DEFAULT (" + expr + ")"
	}
	if col.Generated != "" {
		expr, err := comp(t, col.Generated)
		if err != nil {
			return "", err
		}
		def += " GENERATED ALWAYS AS (" + expr + ") STORED"
	}
	return def, nil
}

func (t *Table) columnList(prefix string) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = prefix + c.SQLName
	}
	return strings.Join(names, ", ")
}

// sqliteHistory creates the history table and triggers for t.
func (t *Table) sqliteHistory(commitTSFunc string) []string {
	h := t.HistoryName()
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, c.SQLName+" "+SQLiteType(c.Type))
	}
	cols = append(cols, "_from INTEGER NOT NULL", "_to INTEGER NOT NULL")
	return []string{
		"CREATE TABLE IF NOT EXISTS " + h + " (" + strings.Join(cols, ", ") + ")",
		"CREATE INDEX IF NOT EXISTS " + quote("_h_"+t.Name+"_to") + " ON " + h + " (_to)",
		t.historyTrigger("UPDATE", commitTSFunc),
		t.historyTrigger("DELETE", commitTSFunc),
	}
}

func (t *Table) historyTrigger(event, commitTSFunc string) string {
	return "CREATE TRIGGER " + quote("_h_"+t.Name+"_"+strings.ToLower(event)) + " AFTER " + event + " ON " + t.SQLName +
		" BEGIN INSERT INTO " + t.HistoryName() + " (" + t.columnList("") + ", _from, _to) VALUES (" +
		t.columnList("OLD.") + ", OLD." + HiddenTS + ", " + commitTSFunc + "()); END"
}

// SQLiteAddColumn returns the statements that add col to t's SQLite tables
// (current and history) and rebuild the history triggers.
func (t *Table) SQLiteAddColumn(col *Column, comp ExprCompiler, commitTSFunc string) ([]string, error) {
	def := ""
	if col.Default != "" {
		expr, err := comp(t, col.Default)
		if err != nil {
			return nil, err
		}
		def = " DEFAULT (" + expr + ")"
	}
	stmts := []string{
		"ALTER TABLE " + t.SQLName + " ADD COLUMN " + col.SQLName + " " + SQLiteType(col.Type) + def,
		"ALTER TABLE " + t.HistoryName() + " ADD COLUMN " + col.SQLName + " " + SQLiteType(col.Type),
	}
	return append(stmts, t.SQLiteRecreateHistoryTriggers(commitTSFunc)...), nil
}

// SQLiteDropColumn returns the statements that drop col from old's SQLite tables;
// t is the table after the change.
func (t *Table) SQLiteDropColumn(col *Column, commitTSFunc string) []string {
	stmts := append(t.SQLiteDropHistoryTriggers(),
		"ALTER TABLE "+t.SQLName+" DROP COLUMN "+col.SQLName,
		"ALTER TABLE "+t.HistoryName()+" DROP COLUMN "+col.SQLName,
	)
	return append(stmts, t.historyTrigger("UPDATE", commitTSFunc), t.historyTrigger("DELETE", commitTSFunc))
}

// SQLiteDropHistoryTriggers returns the statements that drop t's history triggers
// (while its columns change, or its values are rewritten without a new version).
func (t *Table) SQLiteDropHistoryTriggers() []string {
	return []string{
		"DROP TRIGGER IF EXISTS " + quote("_h_"+t.Name+"_update"),
		"DROP TRIGGER IF EXISTS " + quote("_h_"+t.Name+"_delete"),
	}
}

// SQLiteDropTable drops t, its history and triggers.
func (t *Table) SQLiteDropTable() []string {
	return []string{
		"DROP TABLE IF EXISTS " + t.SQLName,
		"DROP TABLE IF EXISTS " + t.HistoryName(),
	}
}

// SQLiteRecreateHistoryTriggers returns the statements that rebuild t's history
// triggers after its columns changed (the history table gains or keeps columns).
func (t *Table) SQLiteRecreateHistoryTriggers(commitTSFunc string) []string {
	return append(t.SQLiteDropHistoryTriggers(), t.historyTrigger("UPDATE", commitTSFunc), t.historyTrigger("DELETE", commitTSFunc))
}

// SQLiteCreateIndex returns the SQLite CREATE INDEX statement for ix. A non-unique
// index also carries its STORING columns, so it covers the queries Spanner's would.
// NULL_FILTERED becomes a partial index that leaves out rows with a NULL key column.
func (ix *Index) SQLiteCreateIndex() string {
	var parts []string
	for _, k := range ix.Keys {
		p := k.Column.SQLName
		if k.Desc {
			p += " DESC"
		}
		parts = append(parts, p)
	}
	if !ix.Unique {
		for _, c := range ix.Storing {
			parts = append(parts, c.SQLName)
		}
	}
	s := "CREATE "
	if ix.Unique {
		s += "UNIQUE "
	}
	s += "INDEX " + ix.SQLName + " ON " + ix.Table.SQLName + " (" + strings.Join(parts, ", ") + ")"
	if w := ix.NullFilterSQL(""); w != "" {
		s += " WHERE " + w
	}
	return s
}

// NullFilterSQL is the condition a row meets to be in a NULL_FILTERED index
// ("" for other indexes); prefix qualifies the column names.
func (ix *Index) NullFilterSQL(prefix string) string {
	if !ix.NullFiltered {
		return ""
	}
	var conds []string
	for _, k := range ix.Keys {
		if !k.Column.NotNull {
			conds = append(conds, prefix+k.Column.SQLName+" IS NOT NULL")
		}
	}
	return strings.Join(conds, " AND ")
}
