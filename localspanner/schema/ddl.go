package schema

import (
	"fmt"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// ParseDDL parses one DDL statement with memefish.
func ParseDDL(stmt string) (d ast.DDL, err error) {
	// memefish panics on some malformed input; that is a syntax error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, spanerr.Syntax("Error parsing Spanner DDL statement: %s : %v", stmt, r)
		}
	}()
	if err := CheckNesting(stmt); err != nil {
		return nil, err
	}
	d, err = memefish.ParseDDL("", stmt)
	if err != nil {
		if verr := missingSecurity(stmt); verr != nil {
			return nil, verr
		}
		return nil, spanerr.Syntax("Error parsing Spanner DDL statement: %s : %v", stmt, err)
	}
	return d, nil
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{byTable: map[string]*Table{}, byIndex: map[string]*Index{}, byView: map[string]*View{}}
}

// Build replays DDL statements onto an empty catalog.
func Build(stmts []string) (*Catalog, error) {
	c := NewCatalog()
	for _, s := range stmts {
		d, err := ParseDDL(s)
		if err != nil {
			return nil, err
		}
		if err := c.apply(d, s); err != nil {
			return nil, fmt.Errorf("replaying %q: %w", s, err)
		}
	}
	return c, nil
}

// Change is the effect of one DDL statement: the catalog after it, and what the
// storage layer must do.
type Change struct {
	Catalog *Catalog
	Old     *Catalog // the catalog before the statement
	Stmt    ast.DDL
	// CreatedTable, DroppedTable, AlteredTable, CreatedIndex, DroppedIndex name
	// what changed (at most one is set; AlteredTable for ALTER TABLE).
	CreatedTable *Table
	DroppedTable *Table
	AlteredTable *Table // in the new catalog
	OldTable     *Table // for AlteredTable: the table before the change
	AddedColumn  *Column
	DroppedCol   *Column
	CreatedIndex *Index
	DroppedIndex *Index
	// AddedCheck / DroppedCheck / AddedForeignKey: ALTER TABLE ADD / DROP CONSTRAINT.
	AddedCheck        *Check
	DroppedCheck      *Check
	AddedForeignKey   *ForeignKey
	DroppedForeignKey *ForeignKey
	// AlteredColumn is the column an ALTER COLUMN changed (in the new catalog), and
	// OldColumn the column before: storage checks the existing rows against it.
	AlteredColumn *Column
	OldColumn     *Column
}

// Apply builds the catalog that results from applying stmt to the catalog built
// from prev (the statements applied so far). It never modifies an existing Catalog.
func Apply(prev []string, stmt string) (*Change, error) {
	d, err := ParseDDL(stmt)
	if err != nil {
		return nil, err
	}
	old, err := Build(prev)
	if err != nil {
		return nil, err
	}
	c, err := Build(prev)
	if err != nil {
		return nil, err
	}
	if err := c.apply(d, stmt); err != nil {
		return nil, spannerSyntaxError(stmt, err)
	}
	ch := &Change{Catalog: c, Old: old, Stmt: d}
	if noOp(old, d) {
		return ch, nil // IF [NOT] EXISTS found the schema as wanted
	}
	switch s := d.(type) {
	case *ast.CreateTable:
		ch.CreatedTable, _ = c.Table(pathName(s.Name))
	case *ast.DropTable:
		ch.DroppedTable, _ = old.Table(pathName(s.Name))
	case *ast.CreateIndex:
		ch.CreatedIndex, _ = c.Index(pathName(s.Name))
	case *ast.DropIndex:
		ch.DroppedIndex, _ = old.Index(pathName(s.Name))
	case *ast.AlterTable:
		ch.AlteredTable, _ = c.Table(pathName(s.Name))
		ch.OldTable, _ = old.Table(pathName(s.Name))
		switch a := s.TableAlteration.(type) {
		case *ast.AddColumn:
			ch.AddedColumn, _ = ch.AlteredTable.Column(a.Column.Name.Name)
		case *ast.DropColumn:
			ch.DroppedCol, _ = ch.OldTable.Column(a.Name.Name)
		case *ast.AlterColumn:
			ch.AlteredColumn, _ = ch.AlteredTable.Column(a.Name.Name)
			ch.OldColumn, _ = ch.OldTable.Column(a.Name.Name)
		case *ast.AddTableConstraint:
			if n := len(ch.AlteredTable.Checks); n > len(ch.OldTable.Checks) {
				ch.AddedCheck = ch.AlteredTable.Checks[n-1]
			}
			if n := len(ch.AlteredTable.ForeignKeys); n > len(ch.OldTable.ForeignKeys) {
				ch.AddedForeignKey = ch.AlteredTable.ForeignKeys[n-1]
			}
		case *ast.DropConstraint:
			for _, ck := range ch.OldTable.Checks {
				if strings.EqualFold(ck.Name, a.Name.Name) {
					ch.DroppedCheck = ck
				}
			}
			for _, fk := range ch.OldTable.ForeignKeys {
				if strings.EqualFold(fk.Name, a.Name.Name) {
					ch.DroppedForeignKey = fk
				}
			}
		}
	}
	return ch, nil
}

// noOp reports whether stmt changes nothing in cat because of IF [NOT] EXISTS.
func noOp(cat *Catalog, d ast.DDL) bool {
	switch s := d.(type) {
	case *ast.CreateTable:
		return s.IfNotExists && cat.nameTaken(pathName(s.Name))
	case *ast.CreateIndex:
		return s.IfNotExists && cat.nameTaken(pathName(s.Name))
	case *ast.DropTable:
		_, ok := cat.Table(pathName(s.Name))
		return s.IfExists && !ok
	case *ast.DropIndex:
		_, ok := cat.Index(pathName(s.Name))
		return s.IfExists && !ok
	case *ast.DropView:
		_, ok := cat.View(pathName(s.Name))
		return s.IfExists && !ok
	case *ast.AlterTable:
		if a, ok := s.TableAlteration.(*ast.AddColumn); ok && a.IfNotExists {
			if t, ok := cat.Table(pathName(s.Name)); ok {
				_, exists := t.Column(a.Column.Name.Name)
				return exists
			}
		}
	}
	return false
}

func pathName(p *ast.Path) string { return joinIdents(p.Idents) }

// joinIdents joins a dotted name's parts.
func joinIdents(ids []*ast.Ident) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.Name
	}
	return strings.Join(parts, ".")
}

func (c *Catalog) apply(d ast.DDL, text string) error {
	switch s := d.(type) {
	case *ast.CreateView:
		return c.createView(s, text)
	case *ast.DropView:
		return c.dropView(s)
	case *ast.AlterDatabase:
		return c.alterDatabase(s)
	case *ast.CreateProtoBundle:
		return c.createProtoBundle(s, text)
	case *ast.AlterProtoBundle:
		return c.alterProtoBundle(s, text)
	case *ast.DropProtoBundle:
		return c.dropProtoBundle()
	case *ast.CreateTable:
		return c.createTable(s)
	case *ast.CreateIndex:
		return c.createIndex(s)
	case *ast.DropTable:
		return c.dropTable(s)
	case *ast.DropIndex:
		return c.dropIndex(s)
	case *ast.AlterTable:
		return c.alterTable(s)
	case *ast.CreateChangeStream:
		return c.createChangeStream(s)
	case *ast.AlterChangeStream:
		return c.alterChangeStream(s)
	case *ast.DropChangeStream:
		return c.dropChangeStream(s)
	default:
		return spanerr.Unimplemented("DDL statement at offset %d is not supported by the local Spanner server: %s", d.Pos(), firstWords(d.SQL()))
	}
}

func firstWords(s string) string {
	f := strings.Fields(s)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func (c *Catalog) nameTaken(name string) bool {
	_, t := c.byTable[strings.ToLower(name)]
	_, i := c.byIndex[strings.ToLower(name)]
	_, v := c.byView[strings.ToLower(name)]
	return t || i || v || c.constraintNamed(name)
}

func optionBool(opts *ast.Options, name string) (bool, bool, error) {
	if opts == nil {
		return false, false, nil
	}
	for _, r := range opts.Records {
		if !strings.EqualFold(r.Name.Name, name) {
			return false, false, spanerr.InvalidArgument("unknown option %s", r.Name.Name)
		}
		switch v := r.Value.(type) {
		case *ast.BoolLiteral:
			return v.Value, true, nil
		case *ast.NullLiteral:
			return false, true, nil
		default:
			return false, false, spanerr.InvalidArgument("option %s needs true, false or null, got %s", name, r.Value.SQL())
		}
	}
	return false, false, nil
}

func (c *Catalog) newColumn(t *Table, cd *ast.ColumnDef) (*Column, error) {
	if _, dup := t.byCol[strings.ToLower(cd.Name.Name)]; dup {
		return nil, spanerr.FailedPrecondition("Duplicate column name %s.%s", t.Name, cd.Name.Name)
	}
	typ, n, err := c.columnType(cd.Type)
	if err != nil {
		return nil, err
	}
	col := &Column{Name: cd.Name.Name, Type: typ, Length: n, NotNull: cd.NotNull, SQLName: quote(cd.Name.Name)}
	switch ds := cd.DefaultSemantics.(type) {
	case nil:
	case *ast.ColumnDefaultExpr:
		col.Default = ds.Expr.SQL()
	case *ast.GeneratedColumnExpr:
		col.Generated = ds.Expr.SQL()
		col.Stored = !ds.Stored.Invalid()
		if !col.Stored {
			return nil, spanerr.Unimplemented("non-stored generated column %s.%s is not supported; add STORED", t.Name, col.Name)
		}
	default:
		return nil, spanerr.Unimplemented("column %s.%s: %s is not supported", t.Name, col.Name, firstWords(cd.DefaultSemantics.SQL()))
	}
	ct, set, err := optionBool(cd.Options, "allow_commit_timestamp")
	if err != nil {
		return nil, err
	}
	if set {
		if ct && typ.Code != spannerpb.TypeCode_TIMESTAMP {
			return nil, spanerr.FailedPrecondition("allow_commit_timestamp is only valid on TIMESTAMP columns, not %s.%s", t.Name, col.Name)
		}
		col.AllowCommitTimestamp = ct
	}
	return col, nil
}

func (t *Table) addColumn(col *Column) {
	col.Position = len(t.Columns)
	t.Columns = append(t.Columns, col)
	t.byCol[strings.ToLower(col.Name)] = col
}

func (c *Catalog) createTable(s *ast.CreateTable) error {
	name := pathName(s.Name)
	if c.nameTaken(name) {
		if s.IfNotExists {
			return nil
		}
		return spanerr.FailedPrecondition("Duplicate name in schema: %s.", name)
	}
	t := &Table{Name: name, SQLName: quote(name), byCol: map[string]*Column{}}
	for _, cd := range s.Columns {
		col, err := c.newColumn(t, cd)
		if err != nil {
			return err
		}
		t.addColumn(col)
	}
	keys := s.PrimaryKeys
	for _, tc := range s.TableConstraints {
		if pk, ok := tc.Constraint.(*ast.TablePrimaryKey); ok {
			keys = append(keys, pk.Columns...)
		}
	}
	for _, cd := range s.Columns {
		if cd.PrimaryKey {
			keys = append(keys, &ast.IndexKey{Name: cd.Name})
		}
	}
	for _, k := range keys {
		col, ok := t.Column(k.Name.Name)
		if !ok {
			return spanerr.FailedPrecondition("Table %s references nonexistent key column %s.", name, k.Name.Name)
		}
		if col.Type.Code == spannerpb.TypeCode_ARRAY || col.Type.Code == spannerpb.TypeCode_JSON {
			return spanerr.FailedPrecondition("Column %s.%s of type %s cannot be part of a key.", name, col.Name, TypeDDL(col.Type, 0))
		}
		t.PrimaryKey = append(t.PrimaryKey, KeyPart{Column: col, Desc: k.Dir == ast.DirectionDesc})
	}
	if s.RowDeletionPolicy != nil {
		p, err := rowDeletionPolicy(t, s.RowDeletionPolicy.RowDeletionPolicy)
		if err != nil {
			return err
		}
		t.RowDeletionPolicy = p
	}
	if s.Cluster != nil {
		pname := pathName(s.Cluster.TableName)
		parent, ok := c.Table(pname)
		if !ok {
			return spanerr.FailedPrecondition("Table %s references nonexistent parent table %s.", name, pname)
		}
		if len(parent.PrimaryKey) > len(t.PrimaryKey) {
			return spanerr.FailedPrecondition("Table %s does not reference parent key column %s.", name, parent.PrimaryKey[len(t.PrimaryKey)].Column.Name)
		}
		for i, pk := range parent.PrimaryKey {
			ck := t.PrimaryKey[i]
			if !strings.EqualFold(pk.Column.Name, ck.Column.Name) {
				return spanerr.FailedPrecondition("Table %s does not reference parent key column %s.", name, pk.Column.Name)
			}
			if TypeDDL(pk.Column.Type, pk.Column.Length) != TypeDDL(ck.Column.Type, ck.Column.Length) {
				return spanerr.FailedPrecondition("Type of column %s.%s does not match the parent key column of %s.", name, ck.Column.Name, parent.Name)
			}
		}
		t.Parent = parent
		if s.Cluster.OnDelete == ast.OnDeleteCascade {
			t.OnDelete = Cascade
		}
	}
	c.Tables = append(c.Tables, t)
	c.byTable[strings.ToLower(name)] = t
	for _, tc := range s.TableConstraints {
		if err := c.addConstraint(t, tc); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) createIndex(s *ast.CreateIndex) error {
	name := pathName(s.Name)
	if c.nameTaken(name) {
		if s.IfNotExists {
			return nil
		}
		return spanerr.FailedPrecondition("Duplicate name in schema: %s.", name)
	}
	tname := pathName(s.TableName)
	t, ok := c.Table(tname)
	if !ok {
		// The official emulator's TableNotFound (schema_updater.cc, CreateIndex), the
		// NOT_FOUND Cloud Spanner answers too (python-spanner's test_table_not_found).
		return spanerr.NotFound("Table not found: %s", tname)
	}
	ix := &Index{Name: name, Table: t, Unique: s.Unique, NullFiltered: s.NullFiltered, SQLName: quote(name)}
	seen := map[string]bool{}
	for _, k := range s.Keys {
		col, ok := t.Column(k.Name.Name)
		if !ok {
			return spanerr.FailedPrecondition("Index %s specifies key column %s which does not exist in table %s.", name, k.Name.Name, t.Name)
		}
		if col.Type.Code == spannerpb.TypeCode_ARRAY || col.Type.Code == spannerpb.TypeCode_JSON {
			return spanerr.FailedPrecondition("Index %s: column %s of type %s cannot be an index key.", name, col.Name, TypeDDL(col.Type, 0))
		}
		seen[strings.ToLower(col.Name)] = true
		ix.Keys = append(ix.Keys, KeyPart{Column: col, Desc: k.Dir == ast.DirectionDesc})
	}
	if s.Storing != nil {
		for _, id := range s.Storing.Columns {
			col, ok := t.Column(id.Name)
			if !ok {
				return spanerr.FailedPrecondition("Index %s specifies stored column %s which does not exist in table %s.", name, id.Name, t.Name)
			}
			if seen[strings.ToLower(col.Name)] {
				return spanerr.FailedPrecondition("Index %s specifies stored column %s which is already a key column.", name, id.Name)
			}
			ix.Storing = append(ix.Storing, col)
		}
	}
	if s.Where != nil {
		return spanerr.Unimplemented("CREATE INDEX ... WHERE at offset %d is not supported", s.Where.Pos())
	}
	if s.InterleaveIn != nil {
		p, ok := c.Table(s.InterleaveIn.TableName.Name)
		if !ok {
			return spanerr.FailedPrecondition("Index %s is interleaved in a table that does not exist: %s.", name, s.InterleaveIn.TableName.Name)
		}
		ix.Interleave = p
	}
	t.Indexes = append(t.Indexes, ix)
	c.Indexes = append(c.Indexes, ix)
	c.byIndex[strings.ToLower(name)] = ix
	return nil
}

func (c *Catalog) dropTable(s *ast.DropTable) error {
	name := pathName(s.Name)
	t, ok := c.Table(name)
	if !ok {
		if s.IfExists {
			return nil
		}
		return spanerr.NotFound("Table not found: %s", name)
	}
	if len(t.Indexes) > 0 {
		names := make([]string, len(t.Indexes))
		for i, ix := range t.Indexes {
			names[i] = ix.Name
		}
		return spanerr.FailedPrecondition("Cannot drop table %s with indices: %s.", name, strings.Join(names, ", "))
	}
	for _, other := range c.Tables {
		if other.Parent == t {
			return spanerr.FailedPrecondition("Cannot drop table %s with interleaved tables: %s.", name, other.Name)
		}
	}
	if streams := c.streamsOn(t); len(streams) > 0 {
		return spanerr.FailedPrecondition("Cannot drop table %s: it is tracked by change stream %s.", t.Name, strings.Join(streams, ", "))
	}
	var refs []string
	for _, fk := range c.ReferencedBy(t) {
		if fk.Table != t {
			refs = append(refs, fk.Name)
		}
	}
	if len(refs) > 0 {
		return spanerr.FailedPrecondition("Cannot drop table `%s`. It is referenced by one or more foreign keys: %s. You must drop the foreign keys before dropping the table.", t.Name, strings.Join(refs, ", "))
	}
	for i, other := range c.Tables {
		if other == t {
			c.Tables = append(c.Tables[:i:i], c.Tables[i+1:]...)
			break
		}
	}
	delete(c.byTable, strings.ToLower(name))
	return nil
}

func (c *Catalog) dropIndex(s *ast.DropIndex) error {
	name := pathName(s.Name)
	ix, ok := c.Index(name)
	if !ok {
		if s.IfExists {
			return nil
		}
		return spanerr.NotFound("Index not found: %s", name)
	}
	c.Indexes = without(c.Indexes, ix)
	ix.Table.Indexes = without(ix.Table.Indexes, ix)
	delete(c.byIndex, strings.ToLower(name))
	return nil
}

// without returns a copy of list without x.
func without[T comparable](list []T, x T) []T {
	out := list[:0:0]
	for _, y := range list {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

func (c *Catalog) alterTable(s *ast.AlterTable) error {
	name := pathName(s.Name)
	t, ok := c.Table(name)
	if !ok {
		return spanerr.NotFound("Table not found: %s", name)
	}
	switch a := s.TableAlteration.(type) {
	case *ast.AddColumn:
		if _, exists := t.Column(a.Column.Name.Name); exists {
			if a.IfNotExists {
				return nil
			}
			return spanerr.FailedPrecondition("Duplicate column name %s.%s", name, a.Column.Name.Name)
		}
		col, err := c.newColumn(t, a.Column)
		if err != nil {
			return err
		}
		if col.NotNull && col.Default == "" && col.Generated == "" {
			return spanerr.FailedPrecondition("Cannot add NOT NULL column %s.%s to existing table %s.", name, col.Name, name)
		}
		if col.Generated != "" {
			return spanerr.Unimplemented("adding the generated column %s.%s to an existing table is not supported", name, col.Name)
		}
		t.addColumn(col)
	case *ast.DropColumn:
		col, ok := t.Column(a.Name.Name)
		if !ok {
			return spanerr.NotFound("Column not found in table %s: %s", name, a.Name.Name)
		}
		if t.IsKey(col) {
			return spanerr.FailedPrecondition("Cannot drop key column %s from table %s.", col.Name, name)
		}
		if check, fks := c.columnUse(t, col); check != "" {
			return spanerr.FailedPrecondition("Cannot drop column `%s` on which there is a dependent check constraint: %s.", col.Name, check)
		} else if len(fks) > 0 {
			return spanerr.FailedPrecondition("Cannot drop column `%s` from table `%s`. It is used by one or more foreign keys: %s. You must drop the foreign keys before dropping the column.", col.Name, t.Name, strings.Join(fks, ", "))
		}
		if p := t.RowDeletionPolicy; p != nil && p.Column == col {
			return spanerr.FailedPrecondition("Cannot drop column %s from table %s because it is used by the table's ROW DELETION POLICY.", col.Name, t.Name)
		}
		for _, ix := range t.Indexes {
			for _, k := range ix.Keys {
				if k.Column == col {
					return spanerr.FailedPrecondition("Cannot drop column %s from table %s because it is referenced by index %s.", col.Name, name, ix.Name)
				}
			}
			for _, sc := range ix.Storing {
				if sc == col {
					return spanerr.FailedPrecondition("Cannot drop column %s from table %s because it is stored in index %s.", col.Name, name, ix.Name)
				}
			}
		}
		cols := t.Columns[:0:0]
		for _, x := range t.Columns {
			if x != col {
				x.Position = len(cols)
				cols = append(cols, x)
			}
		}
		t.Columns = cols
		delete(t.byCol, strings.ToLower(col.Name))
	case *ast.AlterColumn:
		col, ok := t.Column(a.Name.Name)
		if !ok {
			return spanerr.NotFound("Column not found in table %s: %s", name, a.Name.Name)
		}
		switch alt := a.Alteration.(type) {
		case *ast.AlterColumnSetOptions:
			ct, set, err := optionBool(alt.Options, "allow_commit_timestamp")
			if err != nil {
				return err
			}
			if set {
				if ct && col.Type.Code != spannerpb.TypeCode_TIMESTAMP {
					return spanerr.FailedPrecondition("allow_commit_timestamp is only valid on TIMESTAMP columns, not %s.%s", name, col.Name)
				}
				col.AllowCommitTimestamp = ct
			}
		case *ast.AlterColumnType:
			return c.alterColumnType(t, col, alt)
		case *ast.AlterColumnSetDefault:
			// "ALTER COLUMN c SET DEFAULT (expr)": rows written later without c get expr;
			// existing rows keep their values.
			if col.Generated != "" {
				return spanerr.FailedPrecondition("Column %s with a DEFAULT value cannot be a generated column and vice versa.", col.Name)
			}
			col.Default = alt.DefaultExpr.Expr.SQL()
		case *ast.AlterColumnDropDefault:
			col.Default = ""
		default:
			return spanerr.Unimplemented("ALTER COLUMN %s at offset %d is not supported", firstWords(a.Alteration.SQL()), a.Alteration.Pos())
		}
	case *ast.AddTableConstraint:
		return c.addConstraint(t, a.TableConstraint)
	case *ast.DropConstraint:
		_, _, err := c.dropConstraint(t, a.Name.Name)
		return err
	case *ast.AddRowDeletionPolicy:
		return setRowDeletionPolicy(t, a.RowDeletionPolicy, false)
	case *ast.ReplaceRowDeletionPolicy:
		return setRowDeletionPolicy(t, a.RowDeletionPolicy, true)
	case *ast.DropRowDeletionPolicy:
		if t.RowDeletionPolicy == nil {
			return spanerr.InvalidArgument("ROW DELETION POLICY does not exist on table %s.", t.Name)
		}
		t.RowDeletionPolicy = nil
	default:
		return spanerr.Unimplemented("ALTER TABLE %s at offset %d is not supported", firstWords(s.TableAlteration.SQL()), s.TableAlteration.Pos())
	}
	return nil
}

// alterColumnType applies ALTER TABLE ... ALTER COLUMN c <type> [NOT NULL]: Spanner allows
// a longer or shorter STRING/BYTES length (storage checks the existing values fit) and
// adding or dropping NOT NULL (storage checks there is no NULL), not a change of type.
func (c *Catalog) alterColumnType(t *Table, col *Column, alt *ast.AlterColumnType) error {
	typ, n, err := c.columnType(alt.Type)
	if err != nil {
		return err
	}
	oldDDL, newDDL := TypeDDL(col.Type, col.Length), TypeDDL(typ, n)
	if typ.Code != col.Type.Code || (typ.ArrayElementType != nil) != (col.Type.ArrayElementType != nil) ||
		(typ.ArrayElementType != nil && typ.ArrayElementType.Code != col.Type.ArrayElementType.Code) {
		if check, _ := c.columnUse(t, col); check != "" {
			return spanerr.InvalidArgument("Cannot change the data type of column `%s`, which is used by check constraint `%s`.", col.Name, check)
		}
		if !stringBytesChange(col.Type, typ) {
			return spanerr.InvalidArgument("Cannot change type of column `%s` from `%s` to `%s`", col.Name, oldDDL, newDDL)
		}
		if err := c.checkRetype(t, col); err != nil {
			return err
		}
		col.Type = typ
	}
	if alt.NotNull != col.NotNull {
		if _, fks := c.columnUse(t, col); len(fks) > 0 {
			return spanerr.FailedPrecondition("Cannot change the nullability for column `%s` of table `%s`. It is used by one or more foreign keys: %s.", col.Name, t.Name, strings.Join(fks, ", "))
		}
	}
	if alt.GeneratedExpr != nil || col.Generated != "" {
		return spanerr.Unimplemented("ALTER COLUMN of the generated column %s.%s is not supported by the local Spanner server", t.Name, col.Name)
	}
	// The statement gives the column's whole definition: a DEFAULT it leaves out is
	// dropped (as the official emulator's schema updater does).
	col.Default = defaultText(alt.DefaultExpr)
	col.Length = n
	col.NotNull = alt.NotNull
	return nil
}

// stringBytesChange reports whether from -> to is STRING <-> BYTES, or the same between
// ARRAY<STRING> and ARRAY<BYTES>: the type changes Spanner allows besides PROTO and ENUM
// ones ("Make schema updates"; the existing values are converted, see storage).
func stringBytesChange(from, to *spannerpb.Type) bool {
	if (from.ArrayElementType != nil) != (to.ArrayElementType != nil) {
		return false
	}
	if from.ArrayElementType != nil {
		from, to = from.ArrayElementType, to.ArrayElementType
	}
	return (from.Code == spannerpb.TypeCode_STRING && to.Code == spannerpb.TypeCode_BYTES) ||
		(from.Code == spannerpb.TypeCode_BYTES && to.Code == spannerpb.TypeCode_STRING)
}

// checkRetype refuses a STRING <-> BYTES change of a column that a foreign key uses, or
// of a key column that an interleaved parent or child shares.
func (c *Catalog) checkRetype(t *Table, col *Column) error {
	if _, fks := c.columnUse(t, col); len(fks) > 0 {
		return spanerr.FailedPrecondition("Cannot change the type for column `%s` of table `%s`. It is used by one or more foreign keys: %s.", col.Name, t.Name, strings.Join(fks, ", "))
	}
	if !t.IsKey(col) {
		return nil
	}
	if t.Parent != nil {
		if _, ok := t.Parent.Column(col.Name); ok {
			return spanerr.InvalidArgument("Cannot alter parent key column %s.%s.", t.Name, col.Name)
		}
	}
	for _, child := range c.Tables {
		if child.Parent == t {
			return spanerr.InvalidArgument("Requested change to key column %s.%s could not be made.", t.Name, col.Name)
		}
	}
	return nil
}

func defaultText(d *ast.ColumnDefaultExpr) string {
	if d == nil {
		return ""
	}
	return d.Expr.SQL()
}
