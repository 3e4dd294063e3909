package schema

import (
	"fmt"
	"hash/fnv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// Check is a CHECK constraint of a table. It is enforced on every write (storage
// renders it as triggers) and checked against the existing rows when it is added.
type Check struct {
	Name string
	// Expr is the GoogleSQL expression as written.
	Expr string
	// Columns are the columns the expression reads.
	Columns []*Column
	// Named is false when the name was generated (CK_<table>_<hash>_<n>).
	Named bool
}

// ForeignKey is a FOREIGN KEY constraint of Table (the referencing table). It is
// enforced when a transaction commits (storage checks the rows it wrote).
type ForeignKey struct {
	Name       string
	Table      *Table
	Columns    []*Column
	RefTable   *Table
	RefColumns []*Column
	OnDelete   OnDelete
	Named      bool
}

// RowDeletionPolicy is a table's ROW DELETION POLICY (OLDER_THAN(column, INTERVAL n DAY)).
// The local server keeps it in the schema; it deletes no rows (see README).
type RowDeletionPolicy struct {
	Column *Column
	Days   int64
}

// Expression is the policy as INFORMATION_SCHEMA.TABLES shows it.
func (p *RowDeletionPolicy) Expression() string {
	return fmt.Sprintf("OLDER_THAN(%s, INTERVAL %d DAY)", p.Column.Name, p.Days)
}

// constraintNamed reports whether a CHECK or FOREIGN KEY of any table has name.
func (c *Catalog) constraintNamed(name string) bool {
	for _, t := range c.Tables {
		for _, ck := range t.Checks {
			if strings.EqualFold(ck.Name, name) {
				return true
			}
		}
		for _, fk := range t.ForeignKeys {
			if strings.EqualFold(fk.Name, name) {
				return true
			}
		}
	}
	return false
}

// generatedName is Spanner's form of a generated constraint name:
// <prefix>_<names>_<16 hex digits>_<n>, the first n that is free.
func (c *Catalog) generatedName(prefix string, names ...string) string {
	base := prefix + "_" + strings.Join(names, "_")
	h := fnv.New64a()
	_, _ = h.Write([]byte(base))
	fp := fmt.Sprintf("%016X", h.Sum64())
	for n := 1; ; n++ {
		name := fmt.Sprintf("%s_%s_%d", base, fp, n)
		if !c.nameTaken(name) {
			return name
		}
	}
}

func (c *Catalog) addConstraint(t *Table, tc *ast.TableConstraint) error {
	name := ""
	if tc.Name != nil {
		name = tc.Name.Name
		if c.nameTaken(name) {
			return spanerr.FailedPrecondition("Duplicate name in schema: %s.", name)
		}
	}
	switch k := tc.Constraint.(type) {
	case *ast.Check:
		return c.addCheck(t, name, k)
	case *ast.ForeignKey:
		return c.addForeignKey(t, name, k)
	case *ast.TablePrimaryKey:
		return nil // read with the primary key
	}
	return spanerr.Unimplemented("constraint %s on table %s is not supported", firstWords(tc.SQL()), t.Name)
}

func (c *Catalog) addCheck(t *Table, name string, k *ast.Check) error {
	ck := &Check{Name: name, Expr: k.Expr.SQL(), Named: name != ""}
	if name == "" {
		ck.Name = c.generatedName("CK", t.Name)
	}
	cols, err := exprColumns(t, ck.Expr)
	if err != nil {
		return err
	}
	for _, col := range cols {
		if col.AllowCommitTimestamp {
			return spanerr.InvalidArgument("Column `%s` has option commit_timestamp, which is not supported in check constraint.", col.Name)
		}
	}
	ck.Columns = cols
	t.Checks = append(t.Checks, ck)
	return nil
}

// exprColumns lists the columns of t that the expression names (an unknown name is
// left to the query compiler, which storage runs on the expression).
func exprColumns(t *Table, expr string) ([]*Column, error) {
	e, err := parseExpr(expr)
	if err != nil {
		return nil, spanerr.InvalidArgument("Error parsing expression '%s' in table '%s': %v", expr, t.Name, err)
	}
	var out []*Column
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if col, ok := t.Column(id.Name); ok {
				for _, x := range out {
					if x == col {
						return true
					}
				}
				out = append(out, col)
			}
		}
		return true
	})
	return out, nil
}

var fkTypes = map[spannerpb.TypeCode]bool{
	spannerpb.TypeCode_BOOL: true, spannerpb.TypeCode_INT64: true, spannerpb.TypeCode_FLOAT64: true,
	spannerpb.TypeCode_FLOAT32: true, spannerpb.TypeCode_STRING: true, spannerpb.TypeCode_BYTES: true,
	spannerpb.TypeCode_DATE: true, spannerpb.TypeCode_TIMESTAMP: true, spannerpb.TypeCode_NUMERIC: true,
	spannerpb.TypeCode_ENUM: true,
}

func (c *Catalog) addForeignKey(t *Table, name string, k *ast.ForeignKey) error {
	refName := pathName(k.ReferenceTable)
	fk := &ForeignKey{Name: name, Table: t, Named: name != ""}
	if name == "" {
		fk.Name = c.generatedName("FK", t.Name, refName)
	}
	ref, ok := c.Table(refName)
	if !ok {
		if strings.EqualFold(refName, t.Name) {
			ref = t // a self-reference, in the table's own CREATE TABLE
		} else {
			return spanerr.NotFound("Table not found: %s", refName)
		}
	}
	fk.RefTable = ref
	if k.Enforcement == ast.NotEnforced {
		return spanerr.Unimplemented("Foreign key enforcement option is not supported.")
	}
	switch k.OnDelete {
	case ast.OnDeleteCascade:
		fk.OnDelete = Cascade
	case "", ast.OnDeleteNoAction:
	default:
		return spanerr.Unimplemented("Foreign key referential action %s is not supported.", k.OnDelete)
	}
	if len(k.Columns) != len(k.ReferenceColumns) {
		return spanerr.FailedPrecondition("The number of columns are different for table `%s` and table `%s` in foreign key `%s`.", t.Name, ref.Name, fk.Name)
	}
	resolve := func(tab *Table, ids []*ast.Ident) ([]*Column, error) {
		var cols []*Column
		for _, id := range ids {
			col, ok := tab.Column(id.Name)
			if !ok {
				return nil, spanerr.FailedPrecondition("Column `%s` not found for table `%s` in foreign key `%s`.", id.Name, tab.Name, fk.Name)
			}
			for _, x := range cols {
				if x == col {
					return nil, spanerr.FailedPrecondition("Column `%s` used more than once for table `%s` in foreign key `%s`.", col.Name, tab.Name, fk.Name)
				}
			}
			if !fkTypes[col.Type.Code] {
				return nil, spanerr.FailedPrecondition("Column `%s` for foreign key `%s` on table `%s` has an unsupported type.", col.Name, fk.Name, tab.Name)
			}
			if col.AllowCommitTimestamp {
				return nil, spanerr.FailedPrecondition("Commit timestamp column is not supported for column `%s` of table `%s` in foreign key `%s`.", col.Name, tab.Name, fk.Name)
			}
			cols = append(cols, col)
		}
		return cols, nil
	}
	var err error
	if fk.Columns, err = resolve(t, k.Columns); err != nil {
		return err
	}
	if fk.RefColumns, err = resolve(ref, k.ReferenceColumns); err != nil {
		return err
	}
	for i, col := range fk.Columns {
		rc := fk.RefColumns[i]
		if col.Type.Code != rc.Type.Code {
			return spanerr.FailedPrecondition("The column types are different for column `%s` of table `%s` and column `%s` of table `%s` in foreign key `%s`.", col.Name, t.Name, rc.Name, ref.Name, fk.Name)
		}
	}
	t.ForeignKeys = append(t.ForeignKeys, fk)
	return nil
}

// ReferencedBy lists the foreign keys of any table that reference t.
func (c *Catalog) ReferencedBy(t *Table) []*ForeignKey {
	var out []*ForeignKey
	for _, x := range c.Tables {
		for _, fk := range x.ForeignKeys {
			if fk.RefTable == t {
				out = append(out, fk)
			}
		}
	}
	return out
}

// dropConstraint removes the CHECK or FOREIGN KEY named name from t.
func (c *Catalog) dropConstraint(t *Table, name string) (*Check, *ForeignKey, error) {
	for _, ck := range t.Checks {
		if strings.EqualFold(ck.Name, name) {
			t.Checks = without(t.Checks, ck)
			return ck, nil, nil
		}
	}
	for _, fk := range t.ForeignKeys {
		if strings.EqualFold(fk.Name, name) {
			t.ForeignKeys = without(t.ForeignKeys, fk)
			return nil, fk, nil
		}
	}
	return nil, nil, spanerr.NotFound("%s is not a constraint in %s", name, t.Name)
}

func rowDeletionPolicy(t *Table, p *ast.RowDeletionPolicy) (*RowDeletionPolicy, error) {
	col, ok := t.Column(p.ColumnName.Name)
	if !ok {
		return nil, spanerr.InvalidArgument("Cannot create ROW DELETION POLICY because there is no column named %s in table %s.", p.ColumnName.Name, t.Name)
	}
	if col.Type.Code != spannerpb.TypeCode_TIMESTAMP {
		return nil, spanerr.InvalidArgument("Cannot create ROW DELETION POLICY because column %s in table %s is not of type TIMESTAMP.", col.Name, t.Name)
	}
	var days int64
	if _, err := fmt.Sscan(p.NumDays.Value, &days); err != nil || days < 0 {
		return nil, spanerr.InvalidArgument("ROW DELETION POLICY of table %s needs a non-negative number of days, not %s", t.Name, p.NumDays.Value)
	}
	return &RowDeletionPolicy{Column: col, Days: days}, nil
}

// setRowDeletionPolicy is ALTER TABLE ADD (replace false) or REPLACE ROW DELETION POLICY.
func setRowDeletionPolicy(t *Table, p *ast.RowDeletionPolicy, replace bool) error {
	if old := t.RowDeletionPolicy; old != nil && !replace {
		return spanerr.InvalidArgument("Cannot create ROW DELETION POLICY because there is already one on column named %s in table %s.", old.Column.Name, t.Name)
	} else if old == nil && replace {
		return spanerr.InvalidArgument("ROW DELETION POLICY does not exist on table %s.", t.Name)
	}
	rdp, err := rowDeletionPolicy(t, p)
	if err != nil {
		return err
	}
	t.RowDeletionPolicy = rdp
	return nil
}

// columnUse says which constraint of t (or referencing t) uses col, for errors on
// dropping or changing col; "" when none does.
func (c *Catalog) columnUse(t *Table, col *Column) (check string, fks []string) {
	for _, ck := range t.Checks {
		for _, x := range ck.Columns {
			if x == col && check == "" {
				check = ck.Name
			}
		}
	}
	for _, fk := range t.ForeignKeys {
		for _, x := range fk.Columns {
			if x == col {
				fks = append(fks, fk.Name)
			}
		}
	}
	for _, fk := range c.ReferencedBy(t) {
		for _, x := range fk.RefColumns {
			if x == col {
				fks = append(fks, fk.Name)
			}
		}
	}
	return check, fks
}

// constraintsDDL renders t's constraints for its CREATE TABLE statement.
func (t *Table) constraintsDDL(b *strings.Builder, before map[*Table]bool) {
	for _, ck := range t.Checks {
		b.WriteString("  ")
		if ck.Named {
			b.WriteString("CONSTRAINT " + ck.Name + " ")
		}
		b.WriteString("CHECK(" + ck.Expr + "),\n")
	}
	for _, fk := range t.ForeignKeys {
		if !before[fk.RefTable] {
			continue
		}
		b.WriteString("  ")
		if fk.Named {
			b.WriteString("CONSTRAINT " + fk.Name + " ")
		}
		b.WriteString(fk.clauseDDL() + ",\n")
	}
}

// clauseDDL is "FOREIGN KEY(cols) REFERENCES T(cols) [ON DELETE CASCADE]".
func (fk *ForeignKey) clauseDDL() string {
	s := "FOREIGN KEY(" + names(fk.Columns) + ") REFERENCES " + fk.RefTable.Name + "(" + names(fk.RefColumns) + ")"
	if fk.OnDelete == Cascade {
		s += " ON DELETE CASCADE"
	}
	return s
}

func names(cols []*Column) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return strings.Join(out, ", ")
}

// parseExpr parses a GoogleSQL expression; memefish panics on some malformed input.
func parseExpr(text string) (e ast.Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return memefish.ParseExpr("", text)
}

// CheckFailed is the SQLite RAISE message prefix of a CHECK trigger; storage turns it
// into Spanner's error.
const CheckFailed = "spanload check failed: "

func (ck *Check) triggerName(t *Table, event string) string {
	return quote("_ck_" + t.Name + "_" + ck.Name + "_" + event)
}

// SQLiteTriggers returns the triggers that enforce ck on t: after every INSERT and
// UPDATE, a row for which the expression is FALSE aborts the statement (NULL passes, as
// in Spanner).
func (ck *Check) SQLiteTriggers(t *Table, comp ExprCompiler) ([]string, error) {
	expr, err := comp(t.withPrefix("NEW."), ck.Expr)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ev := range []string{"INSERT", "UPDATE"} {
		out = append(out, "CREATE TRIGGER "+ck.triggerName(t, strings.ToLower(ev))+" AFTER "+ev+" ON "+t.SQLName+
			" WHEN NOT ("+expr+") BEGIN SELECT RAISE(ABORT, '"+strings.ReplaceAll(CheckFailed+ck.Name, "'", "''")+"'); END")
	}
	return out, nil
}

// SQLiteDropTriggers drops the triggers of ck.
func (ck *Check) SQLiteDropTriggers(t *Table) []string {
	return []string{
		"DROP TRIGGER IF EXISTS " + ck.triggerName(t, "insert"),
		"DROP TRIGGER IF EXISTS " + ck.triggerName(t, "update"),
	}
}

// withPrefix is a copy of t whose columns' SQL names carry prefix (NEW. in a trigger).
func (t *Table) withPrefix(prefix string) *Table {
	cp := &Table{Name: t.Name, SQLName: t.SQLName, byCol: map[string]*Column{}}
	for _, col := range t.Columns {
		c := *col
		c.SQLName = prefix + col.SQLName
		cp.addColumn(&c)
	}
	return cp
}
