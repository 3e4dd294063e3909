package query

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/schema"
)

// field is one output column of a (sub)query.
type field struct {
	name string
	t    *spannerpb.Type
}

// queryResult is a compiled (sub)query: its SQL, whose output columns are named
// "_c0", "_c1", ... in order, and their names and types.
type queryResult struct {
	sql    string
	fields []field
}

func outName(i int) string { return `"_c` + strconv.Itoa(i) + `"` }

// relCol is a column visible in a scope; sql is the full SQLite expression for it.
type relCol struct {
	name string
	sql  string
	t    *spannerpb.Type
	// noStar keeps the column out of SELECT * and t.*: the row value of a value
	// table (UNNEST of ARRAY<STRUCT>), whose fields are listed instead.
	noStar bool
}

// rel is one FROM item: its qualifier (alias, lower-cased; "" if none) and columns.
type rel struct {
	name string
	cols []relCol
}

type scope struct {
	rels   []*rel
	parent *scope
}

func (sc *scope) hasRel(name string) bool {
	for _, r := range sc.rels {
		if r.name != "" && r.name == strings.ToLower(name) {
			return true
		}
	}
	return false
}

func (c *compiler) queryExpr(q ast.QueryExpr, outer *scope) (*queryResult, error) {
	c.depth += 5
	defer func() { c.depth -= 5 }()
	if c.depth > maxDepth {
		return nil, c.invalid(q, "Query nesting exceeds the maximum depth")
	}
	switch x := q.(type) {
	case *ast.Query:
		if len(x.PipeOperators) > 0 {
			return nil, c.unsupported(x, "pipe syntax")
		}
		var with string
		if x.With != nil {
			w, err := c.with(x.With, outer)
			if err != nil {
				return nil, err
			}
			with = w
		}
		var res *queryResult
		var err error
		if sel, ok := x.Query.(*ast.Select); ok {
			res, err = c.selectQuery(sel, x.OrderBy, x.Limit, outer)
		} else {
			res, err = c.queryExpr(x.Query, outer)
			if err == nil && (x.OrderBy != nil || x.Limit != nil) {
				res, err = c.orderLimitOver(res, x.OrderBy, x.Limit, outer)
			}
		}
		if err != nil {
			return nil, err
		}
		if with != "" {
			res.sql = with + res.sql
		}
		return res, nil
	case *ast.Select:
		return c.selectQuery(x, nil, nil, outer)
	case *ast.SubQuery:
		res, err := c.queryExpr(x.Query, outer)
		if err != nil {
			return nil, err
		}
		return &queryResult{sql: "SELECT * FROM (" + res.sql + ")", fields: res.fields}, nil
	case *ast.CompoundQuery:
		return c.compound(x, outer)
	case *ast.FromQuery:
		return nil, c.unsupported(x, "FROM-first query syntax")
	}
	return nil, c.unsupported(q, "this query form")
}

func (c *compiler) with(w *ast.With, outer *scope) (string, error) {
	if c.ctes == nil {
		c.ctes = map[string]*cte{}
	}
	var parts []string
	for _, ct := range w.CTEs {
		res, err := c.queryExpr(ct.QueryExpr, outer)
		if err != nil {
			return "", err
		}
		name := c.newAlias()
		c.ctes[strings.ToLower(ct.Name.Name)] = &cte{sqlName: name, fields: res.fields}
		parts = append(parts, name+" AS ("+res.sql+")")
	}
	return "WITH " + strings.Join(parts, ", ") + " ", nil
}

func (c *compiler) compound(x *ast.CompoundQuery, outer *scope) (*queryResult, error) {
	var op string
	switch x.Op {
	case ast.SetOpUnion:
		op = " UNION "
	case ast.SetOpIntersect:
		op = " INTERSECT "
	case ast.SetOpExcept:
		op = " EXCEPT "
	}
	if x.AllOrDistinct == ast.AllOrDistinctAll {
		if x.Op != ast.SetOpUnion {
			return nil, c.unsupported(x, string(x.Op)+" ALL")
		}
		op = " UNION ALL "
	}
	var out *queryResult
	var parts []string
	for _, q := range x.Queries {
		res, err := c.queryExpr(q, outer)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = &queryResult{fields: append([]field(nil), res.fields...)}
		} else {
			if len(res.fields) != len(out.fields) {
				return nil, c.invalid(q, "Queries in %s have mismatched column count: %d and %d", x.Op, len(out.fields), len(res.fields))
			}
			for i, f := range res.fields {
				t, ok := commonType(out.fields[i].t, f.t)
				if !ok {
					return nil, c.invalid(q, "Column %d in %s has incompatible types: %s, %s", i+1, x.Op, typeName(out.fields[i].t), typeName(f.t))
				}
				out.fields[i].t = t
			}
		}
		parts = append(parts, "SELECT * FROM ("+res.sql+")")
	}
	out.sql = strings.Join(parts, op)
	return out, nil
}

// orderLimitOver applies ORDER BY / LIMIT to a compound query's output columns.
func (c *compiler) orderLimitOver(res *queryResult, ob *ast.OrderBy, lim *ast.Limit, outer *scope) (*queryResult, error) {
	r := &rel{}
	var items []selectItem
	for i, f := range res.fields {
		r.cols = append(r.cols, relCol{name: f.name, sql: outName(i), t: f.t})
		items = append(items, selectItem{f, outName(i)})
	}
	sc := &scope{rels: []*rel{r}, parent: outer}
	var b strings.Builder
	b.WriteString("SELECT * FROM (" + res.sql + ")")
	if err := c.orderBy(&b, ob, sc, items); err != nil {
		return nil, err
	}
	if err := c.limit(&b, lim); err != nil {
		return nil, err
	}
	return &queryResult{sql: b.String(), fields: res.fields}, nil
}

// selectItem is one compiled output column.
type selectItem struct {
	field
	sql string
}

func (c *compiler) selectQuery(sel *ast.Select, ob *ast.OrderBy, lim *ast.Limit, outer *scope) (*queryResult, error) {
	if _, typed := sel.As.(*ast.AsTypeName); typed {
		return nil, c.unsupported(sel.As, "SELECT AS <type name>")
	}
	sc := &scope{parent: outer}
	var where []string
	var from string
	outerScans := c.scanTerms
	c.scanTerms = nil
	if sel.From != nil {
		f, err := c.tableExpr(sel.From.Source, sc, &where)
		if err != nil {
			return nil, err
		}
		from = f
	}
	scans := c.scanTerms
	c.scanTerms = outerScans
	prevGroup, prevDepth := c.grouping, c.aggDepth
	defer func() { c.grouping, c.aggDepth = prevGroup, prevDepth }()
	c.grouping, c.aggDepth = &groupCheck{scope: sc}, 0
	var items []selectItem
	type itemRefs struct {
		node       ast.SelectItem
		start, end int
	}
	var refs []itemRefs
	for _, it := range sel.Results {
		start := len(c.grouping.refs)
		add, err := c.selectItems(it, sc)
		if err != nil {
			return nil, err
		}
		for _, a := range add {
			switch it.(type) {
			case *ast.Star, *ast.DotStar:
				c.grouping.refs = append(c.grouping.refs, a.sql)
				c.grouping.names = append(c.grouping.names, a.name)
			}
			refs = append(refs, itemRefs{it, start, len(c.grouping.refs)})
		}
		items = append(items, add...)
	}
	check := c.grouping
	c.grouping = nil
	if sel.Where != nil {
		w, err := c.boolExpr(sel.Where.Expr, sc, "WHERE clause")
		if err != nil {
			return nil, err
		}
		where = append([]string{w.sql}, where...)
	}
	// Counting terms go first, so SQLite evaluates them for every row it visits.
	where = append(scans, where...)
	var b strings.Builder
	b.WriteString("SELECT ")
	if sel.AllOrDistinct == ast.AllOrDistinctDistinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.sql)
		b.WriteString(" AS ")
		b.WriteString(outName(i))
	}
	if from != "" {
		b.WriteString(" FROM ")
		b.WriteString(from)
	}
	if len(where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(where, " AND "))
	}
	grouped := map[string]bool{}
	if sel.GroupBy != nil {
		b.WriteString(" GROUP BY ")
		for i, g := range sel.GroupBy.Exprs {
			if i > 0 {
				b.WriteString(", ")
			}
			if desc, agg := aggregateItem(g, sel.Results, len(items)); agg {
				return nil, c.invalid(g, "Column %s contains an aggregation function, which is not allowed in GROUP BY", desc)
			}
			e, err := c.itemRef(g, sc, items)
			if err != nil {
				return nil, err
			}
			grouped[e.sql] = true
			b.WriteString(notOrdinal(e.sql))
		}
	}
	if sel.GroupBy != nil || check.aggSeen {
		for i, r := range refs {
			if grouped[items[i].sql] {
				continue
			}
			for j := r.start; j < r.end; j++ {
				if !grouped[check.refs[j]] {
					return nil, c.invalid(r.node, "SELECT list expression references column %s which is neither grouped nor aggregated", check.names[j])
				}
			}
		}
	}
	if sel.Having != nil {
		e, err := c.withAliases(sel.Having.Expr, sc, items)
		if err != nil {
			return nil, err
		}
		if e.t != nil && code(e.t) != spannerpb.TypeCode_BOOL {
			return nil, c.invalid(sel.Having.Expr, "HAVING clause should return type BOOL, but returns %s", typeName(e.t))
		}
		b.WriteString(" HAVING ")
		b.WriteString(e.sql)
	}
	if err := c.orderBy(&b, ob, sc, items); err != nil {
		return nil, err
	}
	if err := c.limit(&b, lim); err != nil {
		return nil, err
	}
	res := &queryResult{sql: b.String()}
	for _, it := range items {
		res.fields = append(res.fields, it.field)
	}
	switch sel.As.(type) {
	case *ast.AsStruct:
		st := &spannerpb.StructType{}
		parts := make([]string, len(res.fields))
		for i, f := range res.fields {
			t := f.t
			if t == nil {
				t = tInt64
			}
			st.Fields = append(st.Fields, &spannerpb.StructType_Field{Name: f.name, Type: t})
			parts[i] = elemToJSON(outName(i), t)
		}
		res = &queryResult{
			sql:    "SELECT json_array(" + strings.Join(parts, ", ") + ") AS " + outName(0) + " FROM (" + res.sql + ")",
			fields: []field{{"", &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: st}}},
		}
	case *ast.AsValue:
		if len(res.fields) != 1 {
			return nil, c.invalid(sel.As, "SELECT AS VALUE query must have exactly one column")
		}
		res.fields[0].name = ""
	}
	return res, nil
}

func (c *compiler) selectItems(it ast.SelectItem, sc *scope) ([]selectItem, error) {
	switch x := it.(type) {
	case *ast.Star:
		if x.Except != nil || x.Replace != nil {
			return nil, c.unsupported(x, "SELECT * EXCEPT/REPLACE")
		}
		if len(sc.rels) == 0 {
			return nil, c.invalid(x, "SELECT * must have a FROM clause")
		}
		if c.strict {
			return nil, c.invalid(x, "SELECT * is not allowed in strict name resolution mode")
		}
		var out []selectItem
		for _, r := range sc.rels {
			out = append(out, starItems(r)...)
		}
		return out, nil
	case *ast.DotStar:
		if x.Except != nil || x.Replace != nil {
			return nil, c.unsupported(x, "SELECT t.* EXCEPT/REPLACE")
		}
		if id, ok := x.Expr.(*ast.Ident); ok {
			for _, r := range sc.rels {
				if r.name != "" && r.name == strings.ToLower(id.Name) {
					return starItems(r), nil
				}
			}
		}
		return c.structStar(x, sc)
	case *ast.ExprSelectItem:
		e, err := c.expr(x.Expr, sc, nil)
		if err != nil {
			return nil, err
		}
		// GoogleSQL's implicit alias: the last name of a path, and the field's name
		// of a field access ("SELECT @p.f1.ff1" is column ff1, as the Go client's
		// integration test of struct parameters expects); no other expression has one.
		name := ""
		switch n := x.Expr.(type) {
		case *ast.Ident:
			name = n.Name
		case *ast.Path:
			name = n.Idents[len(n.Idents)-1].Name
		case *ast.SelectorExpr:
			name = n.Ident.Name
		}
		return []selectItem{{field{name, e.t}, e.sql}}, nil
	case *ast.Alias:
		e, err := c.expr(x.Expr, sc, nil)
		if err != nil {
			return nil, err
		}
		return []selectItem{{field{x.As.Alias.Name, e.t}, e.sql}}, nil
	}
	return nil, c.unsupported(it, "this select item")
}

// aggregateItem reports whether a GROUP BY entry names, by ordinal or alias, a select-list item
// that aggregates, and how ZetaSQL's message names it ("1", or the alias): grouping by an
// aggregate is an error in GoogleSQL (SQLite would fail on it with its own words). An ordinal
// is judged only when no * widened the list (then results and items line up one to one).
func aggregateItem(g ast.Expr, results []ast.SelectItem, items int) (string, bool) {
	if len(results) != items {
		return "", false
	}
	switch x := g.(type) {
	case *ast.IntLiteral:
		n, err := strconv.Atoi(x.Value)
		if err == nil && n >= 1 && n <= len(results) && hasAggregate(results[n-1]) {
			return x.Value, true
		}
	case *ast.Ident:
		for _, r := range results {
			if a, ok := r.(*ast.Alias); ok && strings.EqualFold(a.As.Alias.Name, x.Name) && hasAggregate(a.Expr) {
				return x.Name, true
			}
		}
	}
	return "", false
}

// itemRef compiles a GROUP BY / ORDER BY expression: an ordinal or a select-list alias
// refers to that output column, anything else is an expression over the FROM scope.
func (c *compiler) itemRef(e ast.Expr, sc *scope, items []selectItem) (expr, error) {
	if lit, ok := e.(*ast.IntLiteral); ok && items != nil {
		n, err := strconv.Atoi(lit.Value)
		if err != nil || n < 1 || n > len(items) {
			return expr{}, c.invalid(e, "ordinal %s is out of range", lit.Value)
		}
		return expr{sql: items[n-1].sql, t: items[n-1].t}, nil
	}
	return c.withAliases(e, sc, items)
}

// notOrdinal keeps SQLite from reading a constant integer in ORDER BY / GROUP BY as
// a column ordinal (GoogleSQL ordinals were resolved by itemRef already).
// Parentheses count too: SQLite drops them, so "GROUP BY (0)" (an alias of the
// constant (0)) is an ordinal to it.
func notOrdinal(s string) string {
	t := strings.TrimRight(strings.TrimLeft(s, "+-( "), ") ")
	if t == "" {
		return s
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return s
		}
	}
	return "CAST(" + s + " AS INTEGER)"
}

// withAliases compiles e where a bare name that is not a column of the FROM scope may
// name a select-list alias.
func (c *compiler) withAliases(e ast.Expr, sc *scope, items []selectItem) (expr, error) {
	if len(items) > 0 {
		aliases := &rel{}
		for _, it := range items {
			if it.name != "" {
				aliases.cols = append(aliases.cols, relCol{name: it.name, sql: it.sql, t: it.t})
			}
		}
		if id, ok := e.(*ast.Ident); ok {
			// A select-list alias takes precedence for a bare name, as in GoogleSQL.
			for _, col := range aliases.cols {
				if strings.EqualFold(col.name, id.Name) {
					return expr{sql: col.sql, t: col.t}, nil
				}
			}
		}
		inner := &scope{rels: sc.rels, parent: &scope{rels: []*rel{aliases}, parent: sc.parent}}
		return c.expr(e, inner, nil)
	}
	return c.expr(e, sc, nil)
}

func (c *compiler) orderBy(b *strings.Builder, ob *ast.OrderBy, sc *scope, items []selectItem) error {
	if ob == nil {
		return nil
	}
	b.WriteString(" ORDER BY ")
	for i, it := range ob.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		e, err := c.itemRef(it.Expr, sc, items)
		if err != nil {
			return err
		}
		if code(e.t) == spannerpb.TypeCode_ARRAY || code(e.t) == spannerpb.TypeCode_STRUCT || code(e.t) == spannerpb.TypeCode_JSON {
			return c.invalid(it.Expr, "ORDER BY does not support expressions of type %s", typeName(e.t))
		}
		switch {
		case code(e.t) == spannerpb.TypeCode_NUMERIC:
			e.sql = "sp_numeric_key(" + e.sql + ")"
		case mayBeNaN(e):
			// Spanner orders NULL, NaN, -inf, ..., +inf; SQLite puts TEXT last.
			dir := ""
			if it.Dir == ast.DirectionDesc {
				dir = " DESC"
			}
			b.WriteString("CASE WHEN " + e.sql + " IS NULL THEN 0 WHEN typeof(" + e.sql + ") = 'text' THEN 1 ELSE 2 END" + dir + ", ")
		}
		b.WriteString(notOrdinal(e.sql))
		if it.Dir == ast.DirectionDesc {
			b.WriteString(" DESC")
		}
	}
	return nil
}

func (c *compiler) limit(b *strings.Builder, lim *ast.Limit) error {
	if lim == nil {
		return nil
	}
	n, err := c.intValue(lim.Count)
	if err != nil {
		return err
	}
	b.WriteString(" LIMIT ")
	b.WriteString(n)
	if lim.Offset != nil {
		o, err := c.intValue(lim.Offset.Value)
		if err != nil {
			return err
		}
		b.WriteString(" OFFSET ")
		b.WriteString(o)
	}
	return nil
}

func (c *compiler) intValue(v ast.IntValue) (string, error) {
	switch x := v.(type) {
	case *ast.IntLiteral:
		n, err := strconv.ParseInt(x.Value, x.Base, 64)
		if err != nil {
			return "", c.invalid(x, "Invalid integer literal %s", x.Value)
		}
		return strconv.FormatInt(n, 10), nil
	case *ast.Param:
		e, err := c.param(x, tInt64)
		if err != nil {
			return "", err
		}
		if code(e.t) != spannerpb.TypeCode_INT64 {
			return "", c.invalid(x, "LIMIT/OFFSET expects an integer literal or parameter, got @%s of type %s", x.Name, typeName(e.t))
		}
		return "max(" + e.sql + ", 0)", nil
	case *ast.CastIntValue:
		return c.intValue(x.Expr)
	}
	return "", c.unsupported(v, "this LIMIT/OFFSET value")
}

// tableExpr compiles a FROM item, adding its relations to sc. Conditions that the FROM
// item implies (a NULL_FILTERED index forced by a hint) are appended to where.
func (c *compiler) tableExpr(te ast.TableExpr, sc *scope, where *[]string) (string, error) {
	switch x := te.(type) {
	case *ast.TableName:
		if x.Sample != nil {
			return "", c.unsupported(x.Sample, "TABLESAMPLE")
		}
		alias := x.Table.Name
		if x.As != nil {
			alias = x.As.Alias.Name
		}
		if ct, ok := c.ctes[strings.ToLower(x.Table.Name)]; ok {
			return ct.sqlName + " AS " + c.addFieldsRel(sc, alias, ct.fields), nil
		}
		t, ok := c.cat.Table(x.Table.Name)
		if !ok {
			if v, ok := c.cat.View(x.Table.Name); ok {
				return c.viewTable(v, alias, x.Hint, sc)
			}
			return "", c.invalid(x, "Table not found: %s", x.Table.Name)
		}
		return c.userTable(t, alias, x.Hint, sc, where)
	case *ast.PathTableExpr:
		if len(x.Path.Idents) == 2 && strings.EqualFold(x.Path.Idents[0].Name, "SPANNER_SYS") {
			return c.sysTable(x, sc)
		}
		if len(x.Path.Idents) == 2 && strings.EqualFold(x.Path.Idents[0].Name, "INFORMATION_SCHEMA") {
			return c.infoSchemaTable(x, sc)
		}
		if len(x.Path.Idents) == 2 && sc.hasRel(x.Path.Idents[0].Name) {
			// FROM t, t.arr: an implicit UNNEST of an array column.
			return c.unnest(&ast.Unnest{Expr: x.Path, As: x.As, WithOffset: x.WithOffset}, sc)
		}
		return "", c.unsupported(x, "the table path "+x.Path.SQL())
	case *ast.Unnest:
		return c.unnest(x, sc)
	case *ast.SubQueryTableExpr:
		res, err := c.queryExpr(x.Query, sc.parent)
		if err != nil {
			return "", err
		}
		alias := ""
		if x.As != nil {
			alias = x.As.Alias.Name
		}
		return "(" + res.sql + ") AS " + c.addFieldsRel(sc, alias, res.fields), nil
	case *ast.ParenTableExpr:
		inner, err := c.tableExpr(x.Source, sc, where)
		if err != nil {
			return "", err
		}
		return "(" + inner + ")", nil
	case *ast.Join:
		return c.join(x, sc, where)
	}
	return "", c.unsupported(te, "this FROM item")
}

func (c *compiler) userTable(t *schema.Table, alias string, hint *ast.Hint, sc *scope, where *[]string) (string, error) {
	ix, err := c.forceIndex(t, hint)
	if err != nil {
		return "", err
	}
	from, err := c.src.Table(t)
	if err != nil {
		return "", err
	}
	c.addTable(t)
	q := c.addTableRel(sc, alias, t)
	if c.profile && len(t.Columns) > 0 {
		c.scanTerms = append(c.scanTerms, c.scanTerm(q+"."+t.Columns[0].SQLName))
	}
	s := from.SQL + " AS " + q
	if from.Indexable {
		if ix != nil {
			s += " INDEXED BY " + ix.SQLName
		} else {
			// NOT INDEXED does not keep SQLite from using a secondary index of a
			// WITHOUT ROWID table; naming its primary key does.
			s += " INDEXED BY " + primaryKeyIndex(t)
		}
	}
	if ix != nil && ix.NullFiltered {
		for _, k := range ix.Keys {
			*where = append(*where, q+"."+k.Column.SQLName+" IS NOT NULL")
		}
	}
	return s, nil
}

// addTableRel adds the columns of t under alias to sc and returns the SQL alias.
func (c *compiler) addTableRel(sc *scope, alias string, t *schema.Table) string {
	q := c.newAlias()
	r := &rel{name: strings.ToLower(alias)}
	for _, col := range t.Columns {
		r.cols = append(r.cols, relCol{name: col.Name, sql: q + "." + col.SQLName, t: col.Type})
	}
	sc.rels = append(sc.rels, r)
	return q
}

// addFieldsRel adds a subquery's output columns under alias to sc and returns the
// SQL alias.
func (c *compiler) addFieldsRel(sc *scope, alias string, fields []field) string {
	q := c.newAlias()
	r := &rel{name: strings.ToLower(alias)}
	for i, f := range fields {
		r.cols = append(r.cols, relCol{name: f.name, sql: q + "." + outName(i), t: f.t})
	}
	sc.rels = append(sc.rels, r)
	return q
}

// primaryKeyIndex names the index SQLite keeps for the PRIMARY KEY constraint of a
// WITHOUT ROWID table (the table's own b-tree).
func primaryKeyIndex(t *schema.Table) string {
	name := t.SQLName
	if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
		name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	}
	return `"sqlite_autoindex_` + strings.ReplaceAll(name, `"`, `""`) + `_1"`
}

// forceIndex reads a table hint: FORCE_INDEX names an index of t (or _BASE_TABLE).
func (c *compiler) forceIndex(t *schema.Table, hint *ast.Hint) (*schema.Index, error) {
	if hint == nil {
		return nil, nil
	}
	var ix *schema.Index
	for _, rec := range hint.Records {
		key := rec.Key.SQL()
		if !strings.EqualFold(key, "FORCE_INDEX") {
			// Other hints (GROUPBY_SCAN_OPTIMIZATION, ...) change no results.
			continue
		}
		var name string
		switch v := rec.Value.(type) {
		case *ast.Ident:
			name = v.Name
		case *ast.Path:
			name = v.SQL()
		default:
			return nil, c.invalid(rec.Value, "FORCE_INDEX expects an index name")
		}
		if strings.EqualFold(name, "_BASE_TABLE") {
			ix = nil
			continue
		}
		found, ok := c.cat.Index(name)
		if !ok || found.Table != t {
			return nil, c.invalid(rec.Value, "The table %s does not have a secondary index called %s", t.Name, name)
		}
		ix = found
	}
	if ix != nil {
		c.indexes = append(c.indexes, ix)
	}
	return ix, nil
}

func (c *compiler) sysTable(x *ast.PathTableExpr, sc *scope) (string, error) {
	name := upper(x.Path.Idents[1].Name)
	t, from, ok := c.src.SysTable(name)
	if !ok {
		return "", c.invalid(x, "Table not found: SPANNER_SYS.%s", name)
	}
	alias := name
	if x.As != nil {
		alias = x.As.Alias.Name
	}
	return from.SQL + " AS " + c.addTableRel(sc, alias, t), nil
}

func (c *compiler) unnest(x *ast.Unnest, sc *scope) (string, error) {
	e, err := c.expr(x.Expr, sc, nil)
	if err != nil {
		return "", err
	}
	if code(e.t) != spannerpb.TypeCode_ARRAY {
		return "", c.invalid(x.Expr, "Values referenced in UNNEST must be arrays. UNNEST contains expression of type %s", typeName(e.t))
	}
	q := c.newAlias()
	r := &rel{}
	name := ""
	if x.As != nil {
		name = x.As.Alias.Name
		r.name = strings.ToLower(name)
	}
	elem := e.t.GetArrayElementType()
	r.cols = append(r.cols, relCol{name: name, sql: elemFromJSON(q+".value", elem), t: elem})
	if code(elem) == spannerpb.TypeCode_STRUCT {
		// An array of STRUCTs unnests into a value table: a column per field (what
		// SELECT * lists), the alias naming the whole STRUCT.
		r.cols[0].noStar = true
		r.cols = append(r.cols, structFieldCols(q+".value", elem)...)
	}
	if x.WithOffset != nil {
		on := "offset"
		if x.WithOffset.As != nil {
			on = x.WithOffset.As.Alias.Name
		}
		// The offset is a range variable of its own: alias.* does not list it.
		sc.rels = append(sc.rels, r, &rel{cols: []relCol{{name: on, sql: q + ".key", t: tInt64}}})
		return "json_each(" + e.sql + ") AS " + q, nil
	}
	sc.rels = append(sc.rels, r)
	return "json_each(" + e.sql + ") AS " + q, nil
}

// elemFromJSON converts an array element read by json_each to its storage encoding.
func elemFromJSON(s string, elem *spannerpb.Type) string {
	switch {
	case code(elem) == spannerpb.TypeCode_BYTES:
		return "sp_unbase64(" + s + ")"
	case isFloat(elem):
		// JSON cannot hold infinities: array elements keep them as strings.
		return "(CASE " + s + " WHEN 'Infinity' THEN 9e999 WHEN '-Infinity' THEN -9e999 ELSE " + s + " END)"
	}
	return s
}

func (c *compiler) join(x *ast.Join, sc *scope, where *[]string) (string, error) {
	left, err := c.tableExpr(x.Left, sc, where)
	if err != nil {
		return "", err
	}
	nLeft := len(sc.rels)
	right, err := c.tableExpr(x.Right, sc, where)
	if err != nil {
		return "", err
	}
	var op string
	switch x.Op {
	case ast.CommaJoin:
		op = ", "
	case ast.CrossJoin, ast.InnerJoin:
		op = " JOIN "
	case ast.LeftOuterJoin:
		op = " LEFT JOIN "
	case ast.RightOuterJoin:
		op = " RIGHT JOIN "
	case ast.FullOuterJoin:
		op = " FULL JOIN "
	default:
		return "", c.unsupported(x, string(x.Op))
	}
	s := left + op + right
	switch cond := x.Cond.(type) {
	case nil:
		if x.Op != ast.CommaJoin && x.Op != ast.CrossJoin {
			return "", c.invalid(x, "%s must have an ON or USING clause", x.Op)
		}
	case *ast.On:
		e, err := c.boolExpr(cond.Expr, sc, "JOIN ON clause")
		if err != nil {
			return "", err
		}
		s += " ON " + e.sql
	case *ast.Using:
		ls := &scope{rels: sc.rels[:nLeft]}
		rs := &scope{rels: sc.rels[nLeft:]}
		var conds []string
		for _, id := range cond.Idents {
			l, err := c.resolveName(id, ls)
			if err != nil {
				return "", err
			}
			r, err := c.resolveName(id, rs)
			if err != nil {
				return "", err
			}
			conds = append(conds, l.sql+" = "+r.sql)
		}
		s += " ON " + strings.Join(conds, " AND ")
	}
	return s, nil
}

var _ = codes.OK
