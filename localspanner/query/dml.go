package query

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/schema"
)

type dmlTemplate struct {
	kind      DMLKind
	table     *schema.Table
	columns   []*schema.Column
	sql       string
	binds     []bind
	returning []*spannerpb.StructType_Field
	retTypes  []*spannerpb.Type
}

func (t *dmlTemplate) decodeReturning(row []any) ([]*structpb.Value, error) {
	if len(row) < len(t.columns)+len(t.retTypes) {
		return nil, errorf(codes.Internal, "DML row has %d cells, want %d", len(row), len(t.columns)+len(t.retTypes))
	}
	cells := row[len(t.columns):]
	for i, x := range cells {
		if s, ok := x.(string); ok && s == CommitTimestampMarker && i < len(t.retTypes) && code(t.retTypes[i]) == spannerpb.TypeCode_TIMESTAMP {
			return nil, errorf(codes.FailedPrecondition, "THEN RETURN cannot read the pending commit timestamp written to %s", t.returning[i].Name)
		}
	}
	return (&template{types: t.retTypes}).decode(cells)
}

func compileDML(cat *schema.Catalog, sqlText string, params Params, src Source) (*DMLPlan, error) {
	if src == nil {
		src = CurrentRows{}
	}
	k := cacheKey{cat, templateKey('D', src, sqlText, params)}
	tmpl, _ := cacheGet(k).(*dmlTemplate)
	if tmpl == nil {
		var err error
		tmpl, err = buildDMLTemplate(cat, sqlText, params, src, nil)
		if err != nil {
			return nil, pgWording(cat, err)
		}
		cachePut(k, tmpl)
	}
	args, _, err := bindArgs(tmpl.binds, params, src)
	if err != nil {
		return nil, err
	}
	return &DMLPlan{Kind: tmpl.kind, Table: tmpl.table, Columns: tmpl.columns, SQL: tmpl.sql, Args: args,
		Returning: tmpl.returning, tmpl: tmpl}, nil
}

func buildDMLTemplate(cat *schema.Catalog, sqlText string, params Params, src Source, und *undeclared) (*dmlTemplate, error) {
	stmt, err := parseFor(cat, sqlText)
	if err != nil {
		return nil, err
	}
	c := newCompiler(cat, sqlText, params, src)
	c.undeclared = und
	var tmpl *dmlTemplate
	switch s := stmt.(type) {
	case *ast.Insert:
		tmpl, err = c.insert(s)
	case *ast.Update:
		tmpl, err = c.update(s)
	case *ast.Delete:
		tmpl, err = c.delete(s)
	default:
		return nil, errorf(codes.InvalidArgument, "Statement is not DML: %s", firstWord(sqlText))
	}
	if err != nil {
		return nil, err
	}
	tmpl.binds = c.binds
	if cat.Dialect() == schema.PostgreSQL {
		PGAnnotate(tmpl.returning)
	}
	return tmpl, nil
}

func (c *compiler) dmlTable(p *ast.Path) (*schema.Table, error) {
	if len(p.Idents) != 1 {
		return nil, c.invalid(p, "Table not found: %s", p.SQL())
	}
	t, ok := c.cat.Table(p.Idents[0].Name)
	if !ok {
		return nil, c.invalid(p, "Table not found: %s", p.Idents[0].Name)
	}
	c.addTable(t)
	return t, nil
}

func findColumn(t *schema.Table, name string) *schema.Column {
	for _, col := range t.Columns {
		if strings.EqualFold(col.Name, name) {
			return col
		}
	}
	return nil
}

func isKey(t *schema.Table, col *schema.Column) bool {
	for _, k := range t.PrimaryKey {
		if k.Column == col {
			return true
		}
	}
	return false
}

// value compiles a value written to col: DEFAULT, PENDING_COMMIT_TIMESTAMP() or an
// expression assignable to the column's type.
func (c *compiler) writeValue(col *schema.Column, d *ast.DefaultExpr, sc *scope) (string, error) {
	if d.Default {
		if col.Default == "" {
			return "NULL", nil
		}
		s, _, err := compileColumnExpr(nil, col.Default)
		return s, err
	}
	if call, ok := d.Expr.(*ast.CallExpr); ok && strings.EqualFold(call.Func.SQL(), "PENDING_COMMIT_TIMESTAMP") {
		if !col.AllowCommitTimestamp {
			return "", c.invalid(call, "Cannot write pending commit timestamp to column %s: it does not have the allow_commit_timestamp option", col.Name)
		}
	}
	c.pendingTS = true
	e, err := c.expr(d.Expr, sc, col.Type)
	c.pendingTS = false
	if err != nil {
		return "", err
	}
	if t, ok := commonType(col.Type, e.t); !ok || !sameType(t, col.Type) {
		return "", c.invalid(d.Expr, "Value of type %s cannot be assigned to %s, which has type %s", typeName(e.t), col.Name, typeName(col.Type))
	}
	return coerceSQL(e, col.Type), nil
}

// rowScope is a scope where t's columns (under t's name and alias) are the given SQL.
func rowScope(t *schema.Table, alias string, colSQL func(col *schema.Column) string) *scope {
	r := &rel{name: strings.ToLower(alias)}
	for _, col := range t.Columns {
		r.cols = append(r.cols, relCol{name: col.Name, sql: colSQL(col), t: col.Type})
	}
	return &scope{rels: []*rel{r}}
}

// generatedSQL computes a stored generated column from a row's other columns.
func generatedSQL(t *schema.Table, col *schema.Column, colSQL func(*schema.Column) string) string {
	stmt, err := parseExpr(col.Generated)
	if err != nil {
		return "NULL"
	}
	g := &compiler{colExpr: true, text: col.Generated, bindIdx: map[string]int{}}
	e, err := g.expr(stmt, rowScope(t, t.Name, func(c *schema.Column) string {
		if c.Generated != "" {
			return "NULL"
		}
		return colSQL(c)
	}), col.Type)
	if err != nil {
		return "NULL"
	}
	return e.sql
}

// returning compiles a THEN RETURN clause over sc. actionSQL is the SQL of the
// WITH ACTION column: 'INSERT', 'UPDATE' or 'DELETE', or for INSERT OR UPDATE
// an expression that says which of the two happened to the row.
func (c *compiler) returning(tr *ast.ThenReturn, sc *scope, tmpl *dmlTemplate, actionSQL string) ([]string, error) {
	if tr == nil {
		return nil, nil
	}
	var out []string
	for _, it := range tr.Items {
		items, err := c.selectItems(it, sc)
		if err != nil {
			return nil, err
		}
		for _, si := range items {
			t := si.t
			if t == nil {
				t = tInt64
			}
			tmpl.returning = append(tmpl.returning, &spannerpb.StructType_Field{Name: si.name, Type: t})
			tmpl.retTypes = append(tmpl.retTypes, t)
			out = append(out, si.sql)
		}
	}
	if tr.WithAction != nil {
		// WITH ACTION [AS alias]: a last STRING column, named ACTION unless aliased.
		name := "ACTION"
		if tr.WithAction.Alias != nil {
			name = tr.WithAction.Alias.Alias.Name
		}
		tmpl.returning = append(tmpl.returning, &spannerpb.StructType_Field{Name: name, Type: tString})
		tmpl.retTypes = append(tmpl.retTypes, tString)
		out = append(out, actionSQL)
	}
	return out, nil
}

func (c *compiler) insert(s *ast.Insert) (*dmlTemplate, error) {
	if s.OnConflict != nil || s.AssertRowsModified != nil {
		return nil, c.unsupported(s, "ON CONFLICT / ASSERT_ROWS_MODIFIED")
	}
	t, err := c.dmlTable(s.TableName)
	if err != nil {
		return nil, err
	}
	if len(s.Columns) == 0 {
		return nil, c.invalid(s, "INSERT must specify a column list")
	}
	tmpl := &dmlTemplate{kind: DMLInsert, table: t}
	switch s.InsertOrType {
	case ast.InsertOrTypeUpdate:
		tmpl.kind = DMLInsertOrUpdate
	case ast.InsertOrTypeIgnore:
		tmpl.kind = DMLInsertOrIgnore
	}
	for _, id := range s.Columns {
		col := findColumn(t, id.Name)
		if col == nil {
			return nil, c.invalid(id, "Column %s is not present in table %s", id.Name, t.Name)
		}
		if col.Generated != "" {
			return nil, c.invalid(id, "Cannot INSERT value on non-writable column: %s", col.Name)
		}
		for _, prev := range tmpl.columns {
			if prev == col {
				return nil, c.invalid(id, "INSERT has columns with duplicate name: %s", col.Name)
			}
		}
		tmpl.columns = append(tmpl.columns, col)
	}
	listedN := len(tmpl.columns)
	keyDefaults, err := keyDefaults(t, tmpl)
	if err != nil {
		return nil, err
	}
	var rows []string
	switch in := s.Input.(type) {
	case *ast.ValuesInput:
		for _, row := range in.Rows {
			if len(row.Exprs) != listedN {
				return nil, c.invalid(row, "Inserted row has wrong column count; Has %d, expected %d", len(row.Exprs), listedN)
			}
			cells := make([]string, len(row.Exprs), len(tmpl.columns))
			for i, d := range row.Exprs {
				v, err := c.writeValue(tmpl.columns[i], d, &scope{})
				if err != nil {
					return nil, err
				}
				cells[i] = v + " AS " + outName(i)
			}
			cells = appendKeyDefaults(cells, keyDefaults)
			rows = append(rows, "SELECT "+strings.Join(cells, ", "))
		}
	case *ast.SubQueryInput:
		res, err := c.queryExpr(in.Query, nil)
		if err != nil {
			return nil, err
		}
		if len(res.fields) != listedN {
			return nil, c.invalid(in.Query, "Inserted row has wrong column count; Has %d, expected %d", len(res.fields), listedN)
		}
		cells := make([]string, len(res.fields), len(tmpl.columns))
		for i, f := range res.fields {
			col := tmpl.columns[i]
			if ct, ok := commonType(col.Type, f.t); !ok || !sameType(ct, col.Type) {
				return nil, c.invalid(in.Query, "Query column %d has type %s, which cannot be inserted into column %s of type %s", i+1, typeName(f.t), col.Name, typeName(col.Type))
			}
			cells[i] = coerceSQL(expr{sql: "s." + outName(i), t: f.t}, col.Type) + " AS " + outName(i)
		}
		cells = appendKeyDefaults(cells, keyDefaults)
		rows = append(rows, "SELECT "+strings.Join(cells, ", ")+" FROM ("+res.sql+") AS s")
	default:
		return nil, c.unsupported(s.Input, "this INSERT input")
	}
	inner := strings.Join(rows, " UNION ALL ")
	// The new row's columns, for THEN RETURN: listed ones from the row, the others
	// their DEFAULT, generated ones computed.
	listed := map[*schema.Column]int{}
	for i, col := range tmpl.columns {
		listed[col] = i
	}
	// INSERT OR UPDATE returns the row as it is after the statement: a row that
	// existed keeps the columns the statement does not list. The row as it was
	// comes from a LEFT JOIN on the key.
	join, existed, err := c.upsertedRow(t, tmpl, listed, s.ThenReturn != nil)
	if err != nil {
		return nil, err
	}
	var colSQL func(col *schema.Column) string
	colSQL = func(col *schema.Column) string {
		if i, ok := listed[col]; ok {
			return "v." + outName(i)
		}
		if col.Generated != "" {
			return generatedSQL(t, col, colSQL)
		}
		dflt := "NULL"
		if col.Default != "" {
			if s, _, err := compileColumnExpr(nil, col.Default); err == nil {
				dflt = s
			}
		}
		if existed != nil {
			return "CASE WHEN " + existed.sql + " THEN " + existed.cols[col] + " ELSE " + dflt + " END"
		}
		return dflt
	}
	alias := t.Name
	if s.As != nil {
		alias = s.As.Alias.Name
	}
	action := "'INSERT'"
	if existed != nil {
		action = "CASE WHEN " + existed.sql + " THEN 'UPDATE' ELSE 'INSERT' END"
	}
	ret, err := c.returning(s.ThenReturn, rowScope(t, alias, colSQL), tmpl, action)
	if err != nil {
		return nil, err
	}
	cells := make([]string, 0, len(tmpl.columns)+len(ret))
	for i := range tmpl.columns {
		cells = append(cells, "v."+outName(i))
	}
	cells = append(cells, ret...)
	tmpl.sql = "SELECT " + strings.Join(cells, ", ") + " FROM (" + inner + ") AS v" + join
	return tmpl, nil
}

// priorRow is the row an INSERT OR UPDATE finds: sql is true where it existed,
// cols the SQL of its columns.
type priorRow struct {
	sql  string
	cols map[*schema.Column]string
}

// upsertedRow returns, for an INSERT OR UPDATE with THEN RETURN, the LEFT JOIN of
// the new rows (v) to the rows with their keys as they were, and those rows. For
// other statements it returns nothing.
func (c *compiler) upsertedRow(t *schema.Table, tmpl *dmlTemplate, listed map[*schema.Column]int, returns bool) (string, *priorRow, error) {
	if tmpl.kind != DMLInsertOrUpdate || !returns {
		return "", nil, nil
	}
	for _, k := range t.PrimaryKey {
		if _, ok := listed[k.Column]; !ok { // a key left to its DEFAULT (NEW_UUID()): every row is new
			return "", nil, nil
		}
	}
	sc := &scope{}
	var on []string
	from, err := c.userTable(t, t.Name, nil, sc, &on)
	if err != nil {
		return "", nil, err
	}
	for _, k := range t.PrimaryKey {
		on = append(on, colIn(sc, k.Column)+" IS v."+outName(listed[k.Column]))
	}
	prior := &priorRow{sql: colIn(sc, t.PrimaryKey[0].Column) + " IS NOT NULL", cols: map[*schema.Column]string{}}
	for _, col := range t.Columns {
		prior.cols[col] = colIn(sc, col)
	}
	return " LEFT JOIN " + from + " ON " + strings.Join(on, " AND "), prior, nil
}

// target compiles the table of an UPDATE or DELETE and its WHERE clause.
func (c *compiler) target(path *ast.Path, as *ast.AsAlias, hint *ast.Hint, where *ast.Where) (*schema.Table, *scope, string, error) {
	t, err := c.dmlTable(path)
	if err != nil {
		return nil, nil, "", err
	}
	alias := t.Name
	if as != nil {
		alias = as.Alias.Name
	}
	sc := &scope{}
	var conds []string
	from, err := c.userTable(t, alias, hint, sc, &conds)
	if err != nil {
		return nil, nil, "", err
	}
	if where == nil {
		return nil, nil, "", c.invalid(path, "UPDATE and DELETE statements must have a WHERE clause")
	}
	w, err := c.boolExpr(where.Expr, sc, "WHERE clause")
	if err != nil {
		return nil, nil, "", err
	}
	conds = append([]string{w.sql}, conds...)
	return t, sc, from + " WHERE " + strings.Join(conds, " AND "), nil
}

func (c *compiler) update(s *ast.Update) (*dmlTemplate, error) {
	t, sc, fromWhere, err := c.target(s.TableName, s.As, s.TableHint, s.Where)
	if err != nil {
		return nil, err
	}
	tmpl := &dmlTemplate{kind: DMLUpdate, table: t}
	var cells []string
	for _, k := range t.PrimaryKey {
		tmpl.columns = append(tmpl.columns, k.Column)
		cells = append(cells, colIn(sc, k.Column))
	}
	newSQL := map[*schema.Column]string{}
	for _, item := range s.Updates {
		set, ok := item.(*ast.UpdateItemSetValue)
		if !ok || len(set.Path) < 1 || len(set.Path) > 2 {
			return nil, c.unsupported(item, "this UPDATE item")
		}
		name := set.Path[len(set.Path)-1]
		if len(set.Path) == 2 {
			// "SET t.col = ...": the target's alias, or its name when it has none
			// (GoogleSQL DML, UPDATE statement: update_item is a path expression).
			qual := t.Name
			if s.As != nil {
				qual = s.As.Alias.Name
			}
			if !strings.EqualFold(set.Path[0].Name, qual) {
				return nil, c.invalid(set.Path[0], "Unrecognized name: %s", set.Path[0].Name)
			}
		}
		col := findColumn(t, name.Name)
		if col == nil {
			return nil, c.invalid(name, "Column %s is not present in table %s", name.Name, t.Name)
		}
		if isKey(t, col) || col.Generated != "" {
			return nil, c.invalid(name, "Cannot UPDATE value on non-writable column: %s", col.Name)
		}
		if _, dup := newSQL[col]; dup {
			return nil, c.invalid(name, "Update item %s assigned more than once", col.Name)
		}
		v, err := c.writeValue(col, set.DefaultExpr, sc)
		if err != nil {
			return nil, err
		}
		newSQL[col] = v
		tmpl.columns = append(tmpl.columns, col)
		cells = append(cells, v)
	}
	var colSQL func(col *schema.Column) string
	colSQL = func(col *schema.Column) string {
		if v, ok := newSQL[col]; ok {
			return v
		}
		if col.Generated != "" {
			return generatedSQL(t, col, colSQL)
		}
		return colIn(sc, col)
	}
	alias := t.Name
	if s.As != nil {
		alias = s.As.Alias.Name
	}
	ret, err := c.returning(s.ThenReturn, rowScope(t, alias, colSQL), tmpl, "'UPDATE'")
	if err != nil {
		return nil, err
	}
	cells = append(cells, ret...)
	tmpl.sql = "SELECT " + strings.Join(cells, ", ") + " FROM " + fromWhere
	return tmpl, nil
}

// colIn is the SQL of a table column in the single-table scope of UPDATE/DELETE.
func colIn(sc *scope, col *schema.Column) string {
	return sc.rels[0].cols[col.Position].sql
}

func (c *compiler) delete(s *ast.Delete) (*dmlTemplate, error) {
	t, sc, fromWhere, err := c.target(s.TableName, s.As, s.TableHint, s.Where)
	if err != nil {
		return nil, err
	}
	tmpl := &dmlTemplate{kind: DMLDelete, table: t}
	var cells []string
	for _, k := range t.PrimaryKey {
		tmpl.columns = append(tmpl.columns, k.Column)
		cells = append(cells, colIn(sc, k.Column))
	}
	ret, err := c.returning(s.ThenReturn, sc, tmpl, "'DELETE'")
	if err != nil {
		return nil, err
	}
	cells = append(cells, ret...)
	tmpl.sql = "SELECT " + strings.Join(cells, ", ") + " FROM " + fromWhere
	return tmpl, nil
}

// compileColumnExpr compiles a generated column or DEFAULT expression over t's
// columns, referenced by their bare SQLName. t may be nil for DEFAULT expressions.
func compileColumnExpr(t *schema.Table, exprSQL string) (string, *spannerpb.Type, error) {
	x, err := columnExpr(t, exprSQL, nil)
	if err != nil {
		return "", nil, err
	}
	typ := x.t
	if typ == nil {
		typ = tInt64
	}
	return x.sql, typ, nil
}

// columnExpr compiles a column expression of t (nil: no columns in scope); hint is the
// type the expression is wanted in, or nil.
func columnExpr(t *schema.Table, exprSQL string, hint *spannerpb.Type) (expr, error) {
	e, err := parseExpr(exprSQL)
	if err != nil {
		return expr{}, syntaxError(exprSQL, err)
	}
	c := &compiler{colExpr: true, text: exprSQL, bindIdx: map[string]int{}}
	sc := &scope{}
	if t != nil {
		sc = rowScope(t, t.Name, func(col *schema.Column) string { return col.SQLName })
	}
	return c.expr(e, sc, hint)
}
