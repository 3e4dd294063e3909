package query

import (
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/grpc/codes"
)

func (l *pgLower) statement(n *pg.Node) (ast.Statement, error) {
	switch {
	case n.GetSelectStmt() != nil:
		q, err := l.query(n.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		return &ast.QueryStatement{Query: q}, nil
	case n.GetInsertStmt() != nil:
		return l.insert(n.GetInsertStmt())
	case n.GetUpdateStmt() != nil:
		return l.update(n.GetUpdateStmt())
	case n.GetDeleteStmt() != nil:
		return l.delete(n.GetDeleteStmt())
	}
	return nil, errorf(codes.InvalidArgument, "[ERROR] Statement is not a query or DML: %s", firstWord(l.text))
}

// query lowers a SELECT (or set operation) with its WITH, ORDER BY and LIMIT.
func (l *pgLower) query(s *pg.SelectStmt) (ast.QueryExpr, error) {
	if s == nil {
		return nil, errorf(codes.InvalidArgument, "[ERROR] a query is expected here")
	}
	for _, lc := range s.GetLockingClause() {
		// FOR UPDATE changes which locks a read-write transaction takes, not the rows:
		// the local server's transactions already conflict on the rows they read (as
		// GoogleSQL's FOR UPDATE, which it accepts the same way). Spanner's PostgreSQL
		// dialect has no other locking clause.
		c := lc.GetLockingClause()
		if c.GetStrength() != pg.LockClauseStrength_LCS_FORUPDATE || c.GetWaitPolicy() != pg.LockWaitPolicy_LockWaitBlock || len(c.GetLockedRels()) > 0 {
			return nil, l.unsupported(-1, "FOR SHARE, FOR NO KEY UPDATE, FOR KEY SHARE, OF, NOWAIT and SKIP LOCKED")
		}
	}
	if s.GetIntoClause() != nil || len(s.GetWindowClause()) > 0 || len(s.GetValuesLists()) > 0 {
		return nil, l.unsupported(-1, "SELECT INTO, WINDOW and VALUES as a query")
	}
	q := &ast.Query{}
	if w := s.GetWithClause(); w != nil {
		if w.GetRecursive() {
			return nil, l.unsupported(w.GetLocation(), "WITH RECURSIVE")
		}
		q.With = &ast.With{With: pos(w.GetLocation())}
		for _, c := range w.GetCtes() {
			cte := c.GetCommonTableExpr()
			if len(cte.GetAliascolnames()) > 0 {
				return nil, l.unsupported(cte.GetLocation(), "column names after a WITH name")
			}
			body, err := l.query(cte.GetCtequery().GetSelectStmt())
			if err != nil {
				return nil, err
			}
			l.ctes[strings.ToLower(cte.GetCtename())] = true
			q.With.CTEs = append(q.With.CTEs, &ast.CTE{Name: ident(cte.GetCtename(), cte.GetLocation()), QueryExpr: body})
		}
	}
	var tables []string
	if s.GetOp() != pg.SetOperation_SETOP_NONE && s.GetOp() != 0 {
		left, err := l.query(s.GetLarg())
		if err != nil {
			return nil, err
		}
		right, err := l.query(s.GetRarg())
		if err != nil {
			return nil, err
		}
		op := map[pg.SetOperation]ast.SetOp{pg.SetOperation_SETOP_UNION: ast.SetOpUnion,
			pg.SetOperation_SETOP_INTERSECT: ast.SetOpIntersect, pg.SetOperation_SETOP_EXCEPT: ast.SetOpExcept}[s.GetOp()]
		aod := ast.AllOrDistinctDistinct
		if s.GetAll() {
			aod = ast.AllOrDistinctAll
		}
		q.Query = &ast.CompoundQuery{Op: op, AllOrDistinct: aod, Queries: []ast.QueryExpr{left, right}}
	} else {
		sel, ts, err := l.selectCore(s)
		if err != nil {
			return nil, err
		}
		q.Query, tables = sel, ts
	}
	if len(s.GetSortClause()) > 0 {
		ob, err := l.orderBy(s.GetSortClause(), tables)
		if err != nil {
			return nil, err
		}
		q.OrderBy = ob
	}
	if s.GetLimitCount() != nil || s.GetLimitOffset() != nil {
		lim, err := l.limit(s)
		if err != nil {
			return nil, err
		}
		q.Limit = lim
	}
	if q.With == nil && q.OrderBy == nil && q.Limit == nil {
		return q.Query, nil
	}
	return q, nil
}

// selectCore lowers one SELECT block; it also returns the catalog tables its FROM names.
func (l *pgLower) selectCore(s *pg.SelectStmt) (*ast.Select, []string, error) {
	sel := &ast.Select{}
	if len(s.GetDistinctClause()) > 0 {
		if s.GetDistinctClause()[0] != nil && s.GetDistinctClause()[0].GetNode() != nil {
			return nil, nil, l.unsupported(-1, "DISTINCT ON")
		}
		sel.AllOrDistinct = ast.AllOrDistinctDistinct
	}
	var tables []string
	if from := s.GetFromClause(); len(from) > 0 {
		var src ast.TableExpr
		for _, f := range from {
			te, err := l.tableExpr(f, &tables)
			if err != nil {
				return nil, nil, err
			}
			if src == nil {
				src = te
			} else {
				src = &ast.Join{Left: src, Op: ast.CommaJoin, Right: te}
			}
		}
		sel.From = &ast.From{Source: src}
	}
	if len(s.GetTargetList()) == 0 {
		return nil, nil, errorf(codes.InvalidArgument, "[ERROR] a SELECT without a select list is not supported")
	}
	items, err := l.selectItems(s.GetTargetList())
	if err != nil {
		return nil, nil, err
	}
	sel.Results = items
	if w := s.GetWhereClause(); w != nil {
		e, err := l.expr(w)
		if err != nil {
			return nil, nil, err
		}
		sel.Where = &ast.Where{Expr: e}
	}
	if g := s.GetGroupClause(); len(g) > 0 {
		exprs, err := l.exprs(g)
		if err != nil {
			return nil, nil, err
		}
		sel.GroupBy = &ast.GroupBy{Exprs: exprs}
	}
	if h := s.GetHavingClause(); h != nil {
		e, err := l.expr(h)
		if err != nil {
			return nil, nil, err
		}
		sel.Having = &ast.Having{Expr: e}
	}
	return sel, tables, nil
}

// selectItems lowers a target list; every computed column gets PostgreSQL's name for it.
func (l *pgLower) selectItems(targets []*pg.Node) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, t := range targets {
		rt := t.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil {
			f := cr.GetFields()
			if f[len(f)-1].GetAStar() != nil {
				if len(f) == 1 {
					out = append(out, &ast.Star{Star: pos(cr.GetLocation())})
				} else {
					out = append(out, &ast.DotStar{Star: pos(cr.GetLocation()), Expr: ident(strVal(f[0]), cr.GetLocation())})
				}
				continue
			}
		}
		e, err := l.expr(rt.GetVal())
		if err != nil {
			return nil, err
		}
		name := rt.GetName()
		if name == "" {
			name = colName(rt.GetVal())
		}
		out = append(out, &ast.Alias{Expr: e, As: &ast.AsAlias{Alias: ident(name, rt.GetLocation())}})
	}
	return out, nil
}

func asAlias(a *pg.Alias) (*ast.AsAlias, error) {
	if a == nil {
		return nil, nil
	}
	if len(a.GetColnames()) > 0 {
		return nil, errorf(codes.Unimplemented, "column aliases after a table alias are not supported by the local Spanner server")
	}
	return &ast.AsAlias{Alias: ident(a.GetAliasname(), -1)}, nil
}

func (l *pgLower) tableExpr(n *pg.Node, tables *[]string) (ast.TableExpr, error) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		as, err := asAlias(rv.GetAlias())
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(rv.GetSchemaname()) {
		case "", "public":
		case "spanner_sys", "information_schema":
			path := &ast.Path{Idents: []*ast.Ident{ident(strings.ToUpper(rv.GetSchemaname()), rv.GetLocation()), ident(strings.ToUpper(rv.GetRelname()), rv.GetLocation())}}
			return &ast.PathTableExpr{Path: path, As: as}, nil
		default:
			return nil, errorf(codes.NotFound, "[ERROR] relation \"%s.%s\" does not exist", rv.GetSchemaname(), rv.GetRelname())
		}
		name := rv.GetRelname()
		if !l.ctes[strings.ToLower(name)] {
			_, isTable := l.cat.Table(name)
			_, isView := l.cat.View(name)
			if !isTable && !isView {
				return nil, errorf(codes.NotFound, "[ERROR] relation \"%s\" does not exist", name)
			}
			*tables = append(*tables, name)
		}
		hint, err := l.tableHint(rv)
		if err != nil {
			return nil, err
		}
		return &ast.TableName{Table: ident(name, rv.GetLocation()), As: as, Hint: hint}, nil
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		if j.GetIsNatural() || j.GetAlias() != nil || j.GetJoinUsingAlias() != nil {
			return nil, l.unsupported(-1, "NATURAL JOIN and join aliases")
		}
		left, err := l.tableExpr(j.GetLarg(), tables)
		if err != nil {
			return nil, err
		}
		right, err := l.tableExpr(j.GetRarg(), tables)
		if err != nil {
			return nil, err
		}
		out := &ast.Join{Left: left, Right: right}
		switch j.GetJointype() {
		case pg.JoinType_JOIN_INNER:
			out.Op = ast.InnerJoin
			if j.GetQuals() == nil && len(j.GetUsingClause()) == 0 {
				out.Op = ast.CrossJoin
			}
		case pg.JoinType_JOIN_LEFT:
			out.Op = ast.LeftOuterJoin
		case pg.JoinType_JOIN_RIGHT:
			out.Op = ast.RightOuterJoin
		case pg.JoinType_JOIN_FULL:
			out.Op = ast.FullOuterJoin
		default:
			return nil, l.unsupported(-1, "this kind of join")
		}
		switch {
		case j.GetQuals() != nil:
			on, err := l.expr(j.GetQuals())
			if err != nil {
				return nil, err
			}
			out.Cond = &ast.On{Expr: on}
		case len(j.GetUsingClause()) > 0:
			u := &ast.Using{}
			for _, c := range j.GetUsingClause() {
				u.Idents = append(u.Idents, ident(strVal(c), -1))
			}
			out.Cond = u
		}
		return out, nil
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.GetLateral() {
			return nil, l.unsupported(-1, "LATERAL")
		}
		q, err := l.query(rs.GetSubquery().GetSelectStmt())
		if err != nil {
			return nil, err
		}
		as, err := asAlias(rs.GetAlias())
		if err != nil {
			return nil, err
		}
		return &ast.SubQueryTableExpr{Query: q, As: as}, nil
	case n.GetRangeFunction() != nil:
		rf := n.GetRangeFunction()
		fn := rf.GetFunctions()[0].GetList().GetItems()[0].GetFuncCall()
		if fn == nil || len(rf.GetFunctions()) != 1 || strVal(fn.GetFuncname()[len(fn.GetFuncname())-1]) != "unnest" || len(fn.GetArgs()) != 1 || rf.GetOrdinality() {
			return nil, l.unsupported(-1, "this function in FROM (only unnest(array) is)")
		}
		arr, err := l.expr(fn.GetArgs()[0])
		if err != nil {
			return nil, err
		}
		as, err := asAlias(rf.GetAlias())
		if err != nil {
			return nil, err
		}
		return &ast.Unnest{Unnest: pos(fn.GetLocation()), Expr: arr, As: as}, nil
	}
	return nil, l.unsupported(-1, "this FROM item ("+shortNode(n)+")")
}

// orderBy lowers ORDER BY. PostgreSQL sorts NULLs as larger than every value (last
// ascending, first descending) unless NULLS FIRST/LAST says otherwise; GoogleSQL sorts
// them first ascending. An item that may be NULL gets a leading "(e IS NULL)" key; a
// column that is NOT NULL in one of the FROM tables, and an ordinal, do not.
func (l *pgLower) orderBy(items []*pg.Node, tables []string) (*ast.OrderBy, error) {
	ob := &ast.OrderBy{}
	for _, n := range items {
		sb := n.GetSortBy()
		if len(sb.GetUseOp()) > 0 {
			return nil, l.unsupported(sb.GetLocation(), "ORDER BY ... USING")
		}
		e, err := l.expr(sb.GetNode())
		if err != nil {
			return nil, err
		}
		dir := ast.DirectionAsc
		if sb.GetSortbyDir() == pg.SortByDir_SORTBY_DESC {
			dir = ast.DirectionDesc
		}
		nullsFirst := dir == ast.DirectionDesc
		switch sb.GetSortbyNulls() {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		_, ordinal := e.(*ast.IntLiteral)
		if !ordinal && !l.notNullColumn(sb.GetNode(), tables) {
			nd := ast.DirectionAsc
			if nullsFirst {
				nd = ast.DirectionDesc
			}
			ob.Items = append(ob.Items, &ast.OrderByItem{Expr: &ast.ParenExpr{Expr: &ast.IsNullExpr{Left: e}}, Dir: nd})
		}
		ob.Items = append(ob.Items, &ast.OrderByItem{Expr: e, Dir: dir})
	}
	return ob, nil
}

// notNullColumn reports whether n is a column reference whose name is a NOT NULL column
// of one of tables (then its NULL ordering cannot matter).
func (l *pgLower) notNullColumn(n *pg.Node, tables []string) bool {
	cr := n.GetColumnRef()
	if cr == nil {
		return false
	}
	f := cr.GetFields()
	name := strVal(f[len(f)-1])
	for _, tn := range tables {
		t, ok := l.cat.Table(tn)
		if !ok {
			continue
		}
		if col, ok := t.Column(name); ok && col.NotNull {
			return true
		}
	}
	return false
}

func (l *pgLower) intValue(n *pg.Node) (ast.IntValue, error) {
	e, err := l.expr(n)
	if err != nil {
		return nil, err
	}
	switch x := e.(type) {
	case *ast.IntLiteral:
		return x, nil
	case *ast.Param:
		return x, nil
	}
	return nil, errorf(codes.InvalidArgument, "[ERROR] LIMIT and OFFSET take an integer constant or a parameter")
}

func (l *pgLower) limit(s *pg.SelectStmt) (*ast.Limit, error) {
	if s.GetLimitOption() == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, l.unsupported(-1, "FETCH ... WITH TIES")
	}
	lim := &ast.Limit{}
	if c := s.GetLimitCount(); c != nil && !c.GetAConst().GetIsnull() {
		v, err := l.intValue(c)
		if err != nil {
			return nil, err
		}
		lim.Count = v
	} else {
		// LIMIT ALL (or OFFSET alone): no bound.
		lim.Count = &ast.IntLiteral{Base: 10, Value: "9223372036854775807"}
	}
	if o := s.GetLimitOffset(); o != nil {
		v, err := l.intValue(o)
		if err != nil {
			return nil, err
		}
		lim.Offset = &ast.Offset{Value: v}
	}
	return lim, nil
}

// target is the table a DML statement writes; columns are the columns it names, each
// checked to exist (PostgreSQL's "column ... of relation ... does not exist").
func (l *pgLower) target(rv *pg.RangeVar, columns []*pg.Node) (*ast.Path, *ast.AsAlias, error) {
	if s := rv.GetSchemaname(); s != "" && s != "public" {
		return nil, nil, errorf(codes.NotFound, "[ERROR] relation \"%s.%s\" does not exist", s, rv.GetRelname())
	}
	t, ok := l.cat.Table(rv.GetRelname())
	if !ok {
		return nil, nil, errorf(codes.NotFound, "[ERROR] relation \"%s\" does not exist", rv.GetRelname())
	}
	for _, c := range columns {
		if name := c.GetResTarget().GetName(); findColumn(t, name) == nil {
			return nil, nil, errorf(codes.NotFound, "[ERROR] column \"%s\" of relation \"%s\" does not exist", name, rv.GetRelname())
		}
	}
	as, err := asAlias(rv.GetAlias())
	if err != nil {
		return nil, nil, err
	}
	return &ast.Path{Idents: []*ast.Ident{ident(rv.GetRelname(), rv.GetLocation())}}, as, nil
}

func (l *pgLower) returning(list []*pg.Node) (*ast.ThenReturn, error) {
	if len(list) == 0 {
		return nil, nil
	}
	items, err := l.selectItems(list)
	if err != nil {
		return nil, err
	}
	return &ast.ThenReturn{Items: items}, nil
}

func (l *pgLower) insert(s *pg.InsertStmt) (ast.Statement, error) {
	if s.GetWithClause() != nil {
		return nil, l.unsupported(-1, "WITH before INSERT")
	}
	table, as, err := l.target(s.GetRelation(), s.GetCols())
	if err != nil {
		return nil, err
	}
	ins := &ast.Insert{TableName: table, As: as}
	for _, c := range s.GetCols() {
		rt := c.GetResTarget()
		if len(rt.GetIndirection()) > 0 {
			return nil, l.unsupported(rt.GetLocation(), "INSERT into a subfield or array element")
		}
		ins.Columns = append(ins.Columns, ident(rt.GetName(), rt.GetLocation()))
	}
	if len(ins.Columns) == 0 {
		return nil, errorf(codes.InvalidArgument, "[ERROR] INSERT must list its columns in the local Spanner server")
	}
	sel := s.GetSelectStmt().GetSelectStmt()
	if sel == nil {
		return nil, errorf(codes.InvalidArgument, "[ERROR] INSERT ... DEFAULT VALUES is not supported")
	}
	if vl := sel.GetValuesLists(); len(vl) > 0 {
		vi := &ast.ValuesInput{}
		for _, row := range vl {
			vr := &ast.ValuesRow{}
			for _, v := range row.GetList().GetItems() {
				if v.GetSetToDefault() != nil {
					vr.Exprs = append(vr.Exprs, &ast.DefaultExpr{Default: true})
					continue
				}
				e, err := l.expr(v)
				if err != nil {
					return nil, err
				}
				vr.Exprs = append(vr.Exprs, &ast.DefaultExpr{Expr: e})
			}
			vi.Rows = append(vi.Rows, vr)
		}
		ins.Input = vi
	} else {
		q, err := l.query(sel)
		if err != nil {
			return nil, err
		}
		ins.Input = &ast.SubQueryInput{Query: q}
	}
	if oc := s.GetOnConflictClause(); oc != nil {
		kind, err := l.onConflict(oc, s.GetCols())
		if err != nil {
			return nil, err
		}
		ins.InsertOrType = kind
	}
	if ins.ThenReturn, err = l.returning(s.GetReturningList()); err != nil {
		return nil, err
	}
	return ins, nil
}

// onConflict maps ON CONFLICT DO NOTHING to INSERT OR IGNORE, and ON CONFLICT DO UPDATE
// SET c = excluded.c for every inserted column that is not in the conflict target to
// INSERT OR UPDATE; other forms are UNIMPLEMENTED.
func (l *pgLower) onConflict(oc *pg.OnConflictClause, cols []*pg.Node) (ast.InsertOrType, error) {
	if oc.GetWhereClause() != nil {
		return "", l.unsupported(oc.GetLocation(), "ON CONFLICT ... WHERE")
	}
	if oc.GetAction() == pg.OnConflictAction_ONCONFLICT_NOTHING {
		return ast.InsertOrTypeIgnore, nil
	}
	target := map[string]bool{}
	for _, e := range oc.GetInfer().GetIndexElems() {
		target[e.GetIndexElem().GetName()] = true
	}
	want := map[string]bool{}
	for _, c := range cols {
		if n := c.GetResTarget().GetName(); !target[n] {
			want[n] = true
		}
	}
	for _, t := range oc.GetTargetList() {
		rt := t.GetResTarget()
		f := rt.GetVal().GetColumnRef().GetFields()
		if len(f) != 2 || strVal(f[0]) != "excluded" || strVal(f[1]) != rt.GetName() || !want[rt.GetName()] {
			return "", l.unsupported(rt.GetLocation(), "ON CONFLICT DO UPDATE other than SET c = excluded.c for every inserted column")
		}
		delete(want, rt.GetName())
	}
	if len(want) > 0 {
		return "", l.unsupported(oc.GetLocation(), "ON CONFLICT DO UPDATE other than SET c = excluded.c for every inserted column")
	}
	return ast.InsertOrTypeUpdate, nil
}

func (l *pgLower) where(w *pg.Node) (*ast.Where, error) {
	if w == nil {
		// PostgreSQL allows UPDATE / DELETE without WHERE; GoogleSQL spells it WHERE true.
		return &ast.Where{Expr: &ast.BoolLiteral{Value: true}}, nil
	}
	e, err := l.expr(w)
	if err != nil {
		return nil, err
	}
	return &ast.Where{Expr: e}, nil
}

func (l *pgLower) update(s *pg.UpdateStmt) (ast.Statement, error) {
	if s.GetWithClause() != nil || len(s.GetFromClause()) > 0 {
		return nil, l.unsupported(-1, "WITH and FROM in UPDATE")
	}
	table, as, err := l.target(s.GetRelation(), s.GetTargetList())
	if err != nil {
		return nil, err
	}
	up := &ast.Update{TableName: table, As: as}
	for _, t := range s.GetTargetList() {
		rt := t.GetResTarget()
		if len(rt.GetIndirection()) > 0 {
			return nil, l.unsupported(rt.GetLocation(), "UPDATE of a subfield or array element")
		}
		d := &ast.DefaultExpr{}
		if rt.GetVal().GetSetToDefault() != nil {
			d.Default = true
		} else if d.Expr, err = l.expr(rt.GetVal()); err != nil {
			return nil, err
		}
		up.Updates = append(up.Updates, &ast.UpdateItemSetValue{Path: []*ast.Ident{ident(rt.GetName(), rt.GetLocation())}, DefaultExpr: d})
	}
	if up.Where, err = l.where(s.GetWhereClause()); err != nil {
		return nil, err
	}
	if up.ThenReturn, err = l.returning(s.GetReturningList()); err != nil {
		return nil, err
	}
	return up, nil
}

func (l *pgLower) delete(s *pg.DeleteStmt) (ast.Statement, error) {
	if s.GetWithClause() != nil || len(s.GetUsingClause()) > 0 {
		return nil, l.unsupported(-1, "WITH and USING in DELETE")
	}
	table, as, err := l.target(s.GetRelation(), nil)
	if err != nil {
		return nil, err
	}
	del := &ast.Delete{TableName: table, As: as}
	if del.Where, err = l.where(s.GetWhereClause()); err != nil {
		return nil, err
	}
	if del.ThenReturn, err = l.returning(s.GetReturningList()); err != nil {
		return nil, err
	}
	return del, nil
}
