package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"
	"github.com/cloudspannerecosystem/memefish/token"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/schema"
)

// pgLower lowers one PostgreSQL statement tree into a memefish tree (see pg_parse.go).
type pgLower struct {
	text string
	cat  *schema.Catalog
	// ctes are the WITH names in scope (lower-cased), which are not catalog tables.
	ctes map[string]bool
	// hints are the hint comments of the text (pgHints).
	hints map[int32]string
}

func pos(loc int32) token.Pos {
	if loc < 0 {
		return token.InvalidPos
	}
	return token.Pos(loc)
}

func (l *pgLower) unsupported(loc int32, what string) error {
	return errorf(codes.Unimplemented, "%s is not supported by the local Spanner server for PostgreSQL databases [at %s]", what, schema.LineCol(l.text, int(max(loc, 0))))
}

func ident(name string, loc int32) *ast.Ident {
	p := pos(loc)
	return &ast.Ident{NamePos: p, NameEnd: p + token.Pos(len(name)), Name: name}
}

func strVal(n *pg.Node) string { return n.GetString_().GetSval() }

// pgFuncs maps PostgreSQL function names (and Spanner's spanner.* functions) to the
// GoogleSQL functions with the same meaning for the argument types Spanner allows.
var pgFuncs = map[string]string{
	"count": "COUNT", "sum": "SUM", "avg": "AVG", "min": "MIN", "max": "MAX",
	"bool_and": "LOGICAL_AND", "bool_or": "LOGICAL_OR", "string_agg": "STRING_AGG", "array_agg": "ARRAY_AGG",
	"lower": "LOWER", "upper": "UPPER", "length": "CHAR_LENGTH", "char_length": "CHAR_LENGTH",
	"octet_length": "BYTE_LENGTH", "substr": "SUBSTR", "substring": "SUBSTR", "concat": "CONCAT",
	"replace": "REPLACE", "btrim": "TRIM", "ltrim": "LTRIM", "rtrim": "RTRIM", "repeat": "REPEAT",
	"reverse": "REVERSE", "lpad": "LPAD", "rpad": "RPAD", "starts_with": "STARTS_WITH", "strpos": "STRPOS",
	"abs": "ABS", "mod": "MOD", "round": "ROUND", "trunc": "TRUNC", "ceil": "CEIL", "ceiling": "CEIL",
	"floor": "FLOOR", "sqrt": "SQRT", "power": "POW", "pow": "POW", "exp": "EXP", "ln": "LN", "log": "LOG10",
	"sign": "SIGN", "now": "CURRENT_TIMESTAMP",
	"pending_commit_timestamp": "PENDING_COMMIT_TIMESTAMP", "farm_fingerprint": "FARM_FINGERPRINT",
	"generate_uuid": "GENERATE_UUID",
}

// spannerOnly are the functions reachable only with the spanner. prefix.
var spannerOnly = map[string]bool{"pending_commit_timestamp": true, "farm_fingerprint": true, "generate_uuid": true}

func (l *pgLower) expr(n *pg.Node) (ast.Expr, error) {
	switch {
	case n == nil:
		return nil, errorf(codes.InvalidArgument, "[ERROR] missing expression")
	case n.GetAConst() != nil:
		return l.constant(n.GetAConst())
	case n.GetColumnRef() != nil:
		return l.columnRef(n.GetColumnRef())
	case n.GetParamRef() != nil:
		p := n.GetParamRef()
		return &ast.Param{Atmark: pos(p.GetLocation()), Name: pgParamName(p.GetNumber())}, nil
	case n.GetAExpr() != nil:
		return l.aExpr(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		return l.boolExpr(n.GetBoolExpr())
	case n.GetNullTest() != nil:
		t := n.GetNullTest()
		arg, err := l.expr(t.GetArg())
		if err != nil {
			return nil, err
		}
		return &ast.ParenExpr{Expr: &ast.IsNullExpr{Null: pos(t.GetLocation()), Left: arg, Not: t.GetNulltesttype() == pg.NullTestType_IS_NOT_NULL}}, nil
	case n.GetBooleanTest() != nil:
		return l.booleanTest(n.GetBooleanTest())
	case n.GetFuncCall() != nil:
		return l.funcCall(n.GetFuncCall())
	case n.GetTypeCast() != nil:
		return l.typeCast(n.GetTypeCast())
	case n.GetSubLink() != nil:
		return l.subLink(n.GetSubLink())
	case n.GetCaseExpr() != nil:
		return l.caseExpr(n.GetCaseExpr())
	case n.GetCoalesceExpr() != nil:
		return l.call("COALESCE", n.GetCoalesceExpr().GetArgs(), n.GetCoalesceExpr().GetLocation())
	case n.GetMinMaxExpr() != nil:
		m := n.GetMinMaxExpr()
		name := "GREATEST"
		if m.GetOp() == pg.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		return l.call(name, m.GetArgs(), m.GetLocation())
	case n.GetSqlvalueFunction() != nil:
		f := n.GetSqlvalueFunction()
		switch f.GetOp() {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:
			return l.call("CURRENT_TIMESTAMP", nil, f.GetLocation())
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return l.call("CURRENT_DATE", nil, f.GetLocation())
		}
		return nil, l.unsupported(f.GetLocation(), "this SQL value function")
	case n.GetAIndirection() != nil:
		return l.subscript(n.GetAIndirection())
	case n.GetAArrayExpr() != nil:
		a := n.GetAArrayExpr()
		vals, err := l.exprs(a.GetElements())
		if err != nil {
			return nil, err
		}
		return &ast.ArrayLiteral{Array: pos(a.GetLocation()), Values: vals}, nil
	}
	return nil, l.unsupported(-1, "the expression "+shortNode(n))
}

func (l *pgLower) exprs(ns []*pg.Node) ([]ast.Expr, error) {
	out := make([]ast.Expr, len(ns))
	for i, n := range ns {
		e, err := l.expr(n)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// shortNode names a node's kind for an error message (e.g. "AIndirection").
func shortNode(n *pg.Node) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", n.GetNode()), "*pg_query.Node_")
}

func (l *pgLower) constant(c *pg.A_Const) (ast.Expr, error) {
	p := pos(c.GetLocation())
	switch {
	case c.GetIsnull():
		return &ast.NullLiteral{Null: p}, nil
	case c.GetIval() != nil:
		return &ast.IntLiteral{ValuePos: p, Base: 10, Value: strconv.Itoa(int(c.GetIval().GetIval()))}, nil
	case c.GetFval() != nil:
		v := c.GetFval().GetFval()
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return &ast.IntLiteral{ValuePos: p, Base: 10, Value: v}, nil // an integer past int4 is int8
		}
		// A decimal literal is numeric in PostgreSQL.
		return &ast.NumericLiteral{Numeric: p, Value: &ast.StringLiteral{ValuePos: p, Value: v}}, nil
	case c.GetSval() != nil:
		return &ast.StringLiteral{ValuePos: p, Value: c.GetSval().GetSval()}, nil
	case c.GetBoolval() != nil:
		return &ast.BoolLiteral{ValuePos: p, Value: c.GetBoolval().GetBoolval()}, nil
	}
	return nil, l.unsupported(c.GetLocation(), "this constant")
}

func (l *pgLower) columnRef(r *pg.ColumnRef) (ast.Expr, error) {
	f := r.GetFields()
	var ids []*ast.Ident
	for _, x := range f {
		if x.GetAStar() != nil {
			return nil, l.unsupported(r.GetLocation(), "* in an expression")
		}
		ids = append(ids, ident(strVal(x), r.GetLocation()))
	}
	if len(ids) == 1 {
		return ids[0], nil
	}
	return &ast.Path{Idents: ids}, nil
}

var pgBinaryOps = map[string]ast.BinaryOp{
	"=": ast.OpEqual, "<>": ast.OpNotEqual, "!=": ast.OpNotEqual, "<": ast.OpLess, ">": ast.OpGreater,
	"<=": ast.OpLessEqual, ">=": ast.OpGreaterEqual, "+": ast.OpAdd, "-": ast.OpSub, "*": ast.OpMul,
	"/": ast.OpDiv, "||": ast.OpConcat, "&": ast.OpBitAnd, "|": ast.OpBitOr, "#": ast.OpBitXor,
	"<<": ast.OpBitLeftShift, ">>": ast.OpBitRightShift, "~~": ast.OpLike, "!~~": ast.OpNotLike,
}

func (l *pgLower) aExpr(a *pg.A_Expr) (ast.Expr, error) {
	op := ""
	if len(a.GetName()) > 0 {
		op = strVal(a.GetName()[len(a.GetName())-1])
	}
	if a.GetLexpr() == nil {
		return l.prefix(a, op)
	}
	left, err := l.expr(a.GetLexpr())
	if err != nil {
		return nil, err
	}
	var items []ast.Expr // the right side of IN and BETWEEN: a list
	var right ast.Expr
	if list := a.GetRexpr().GetList(); list != nil {
		items, err = l.exprs(list.GetItems())
	} else {
		right, err = l.expr(a.GetRexpr())
	}
	if err != nil {
		return nil, err
	}
	switch a.GetKind() {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_LIKE:
		switch op {
		case "%":
			return callOf("MOD", a.GetLocation(), left, right), nil
		case "~":
			return callOf("REGEXP_CONTAINS", a.GetLocation(), left, right), nil
		}
		bop, ok := pgBinaryOps[op]
		if !ok {
			return nil, l.unsupported(a.GetLocation(), "the operator "+op)
		}
		return &ast.ParenExpr{Expr: &ast.BinaryExpr{Op: bop, Left: left, Right: right}}, nil
	case pg.A_Expr_Kind_AEXPR_IN:
		return &ast.InExpr{Not: op == "<>", Left: left, Right: &ast.ValuesInCondition{Exprs: items}}, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY:
		// x = ANY($1): membership in an array.
		if op != "=" {
			return nil, l.unsupported(a.GetLocation(), "the operator "+op+" ANY")
		}
		return &ast.InExpr{Left: left, Right: &ast.UnnestInCondition{Unnest: pos(a.GetLocation()), Expr: right}}, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return &ast.BetweenExpr{Not: a.GetKind() == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, Left: left, RightStart: items[0], RightEnd: items[1]}, nil
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return callOf("NULLIF", a.GetLocation(), left, right), nil
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return isDistinct(left, right, a.GetKind() == pg.A_Expr_Kind_AEXPR_DISTINCT), nil
	}
	return nil, l.unsupported(a.GetLocation(), "this operator ("+strings.TrimPrefix(a.GetKind().String(), "AEXPR_")+")")
}

// prefix lowers a prefix operator (-x, +x, ~x).
func (l *pgLower) prefix(a *pg.A_Expr, op string) (ast.Expr, error) {
	if op == "@" { // absolute value
		return l.call("ABS", []*pg.Node{a.GetRexpr()}, a.GetLocation())
	}
	uop, ok := map[string]ast.UnaryOp{"-": ast.OpMinus, "+": ast.OpPlus, "~": ast.OpBitNot}[op]
	if !ok || a.GetKind() != pg.A_Expr_Kind_AEXPR_OP {
		return nil, l.unsupported(a.GetLocation(), "the prefix operator "+op)
	}
	right, err := l.expr(a.GetRexpr())
	if err != nil {
		return nil, err
	}
	return &ast.UnaryExpr{OpPos: pos(a.GetLocation()), Op: uop, Expr: right}, nil
}

// callOf is the call of a GoogleSQL function on lowered arguments.
func callOf(name string, loc int32, args ...ast.Expr) *ast.CallExpr {
	ce := &ast.CallExpr{Func: &ast.Path{Idents: []*ast.Ident{ident(name, loc)}}, Rparen: pos(loc)}
	for _, v := range args {
		ce.Args = append(ce.Args, &ast.ExprArg{Expr: v})
	}
	return ce
}

func (l *pgLower) boolExpr(b *pg.BoolExpr) (ast.Expr, error) {
	args, err := l.exprs(b.GetArgs())
	if err != nil {
		return nil, err
	}
	if b.GetBoolop() == pg.BoolExprType_NOT_EXPR {
		return &ast.ParenExpr{Expr: &ast.UnaryExpr{OpPos: pos(b.GetLocation()), Op: ast.OpNot, Expr: args[0]}}, nil
	}
	op := ast.OpAnd
	if b.GetBoolop() == pg.BoolExprType_OR_EXPR {
		op = ast.OpOr
	}
	e := args[0]
	for _, a := range args[1:] {
		e = &ast.BinaryExpr{Op: op, Left: e, Right: a}
	}
	return &ast.ParenExpr{Expr: e}, nil
}

func (l *pgLower) booleanTest(t *pg.BooleanTest) (ast.Expr, error) {
	arg, err := l.expr(t.GetArg())
	if err != nil {
		return nil, err
	}
	switch t.GetBooltesttype() {
	case pg.BoolTestType_IS_TRUE:
		return &ast.IsBoolExpr{Left: arg, Right: true}, nil
	case pg.BoolTestType_IS_NOT_TRUE:
		return &ast.IsBoolExpr{Left: arg, Right: true, Not: true}, nil
	case pg.BoolTestType_IS_FALSE:
		return &ast.IsBoolExpr{Left: arg}, nil
	case pg.BoolTestType_IS_NOT_FALSE:
		return &ast.IsBoolExpr{Left: arg, Not: true}, nil
	case pg.BoolTestType_IS_UNKNOWN:
		return &ast.IsNullExpr{Left: arg}, nil
	}
	return &ast.IsNullExpr{Left: arg, Not: true}, nil
}

func (l *pgLower) call(name string, args []*pg.Node, loc int32) (ast.Expr, error) {
	vals, err := l.exprs(args)
	if err != nil {
		return nil, err
	}
	return callOf(name, loc, vals...), nil
}

// strVals are the strings of a name list (a function's or a type's qualified name).
func strVals(ns []*pg.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strVal(n)
	}
	return out
}

func (l *pgLower) funcCall(f *pg.FuncCall) (ast.Expr, error) {
	parts := strVals(f.GetFuncname())
	name := parts[len(parts)-1]
	qualified := len(parts) == 2 && parts[0] != "pg_catalog"
	if qualified && parts[0] != "spanner" || spannerOnly[name] && !qualified {
		return nil, errorf(codes.InvalidArgument, "[ERROR] function %s does not exist", strings.Join(parts, "."))
	}
	if f.GetOver() != nil || f.GetAggFilter() != nil || len(f.GetAggOrder()) > 0 || f.GetAggWithinGroup() {
		return nil, l.unsupported(f.GetLocation(), "window functions, FILTER and ordered aggregates")
	}
	if qualified && (name == "timestamptz_add" || name == "timestamptz_subtract") {
		return l.timestamptzAdd(name, f)
	}
	if f.GetAggStar() {
		if name != "count" {
			return nil, errorf(codes.InvalidArgument, "[ERROR] %s(*) specified, but %s is not an aggregate function", name, name)
		}
		return &ast.CountStarExpr{Count: pos(f.GetLocation()), Rparen: pos(f.GetLocation())}, nil
	}
	g, ok := pgFuncs[name]
	if !ok {
		return nil, errorf(codes.InvalidArgument, "[ERROR] function %s does not exist", strings.Join(parts, "."))
	}
	args := f.GetArgs()
	if name == "log" && len(args) == 2 {
		return nil, l.unsupported(f.GetLocation(), "the function "+name+" with these arguments")
	}
	ce, err := l.call(g, args, f.GetLocation())
	if err != nil {
		return nil, err
	}
	ce.(*ast.CallExpr).Distinct = f.GetAggDistinct()
	return ce, nil
}

// pgIntervalUnits are the units of an interval text Spanner's spanner.timestamptz_add and
// spanner.timestamptz_subtract take ('10 seconds', '1 day'), singular or plural.
var pgIntervalUnits = map[string]ast.DateTimePart{
	"microsecond": ast.DateTimePartMicrosecond, "millisecond": ast.DateTimePartMillisecond,
	"second": ast.DateTimePartSecond, "minute": ast.DateTimePartMinute, "hour": ast.DateTimePartHour,
	"day": ast.DateTimePartDay,
}

// timestamptzAdd lowers spanner.timestamptz_add / spanner.timestamptz_subtract(timestamptz,
// text) to TIMESTAMP_ADD / TIMESTAMP_SUB. The local Spanner takes the interval as one
// constant '<integer> <unit>' (units microsecond to day); other texts are UNIMPLEMENTED.
func (l *pgLower) timestamptzAdd(name string, f *pg.FuncCall) (ast.Expr, error) {
	args := f.GetArgs()
	if len(args) != 2 {
		return nil, errorf(codes.InvalidArgument, "[ERROR] function spanner.%s takes 2 arguments", name)
	}
	c := args[1].GetAConst()
	if c == nil || c.GetSval() == nil {
		return nil, l.unsupported(f.GetLocation(), "spanner."+name+" with an interval other than a constant text")
	}
	fields := strings.Fields(strings.ToLower(c.GetSval().GetSval()))
	var part ast.DateTimePart
	ok := len(fields) == 2
	if ok {
		part, ok = pgIntervalUnits[strings.TrimSuffix(fields[1], "s")]
	}
	if ok {
		_, err := strconv.ParseInt(fields[0], 10, 64)
		ok = err == nil
	}
	if !ok {
		return nil, l.unsupported(f.GetLocation(), "spanner."+name+" with the interval '"+c.GetSval().GetSval()+"' (the local Spanner takes '<integer> <unit>')")
	}
	ts, err := l.expr(args[0])
	if err != nil {
		return nil, err
	}
	g := "TIMESTAMP_ADD"
	if name == "timestamptz_subtract" {
		g = "TIMESTAMP_SUB"
	}
	iv := &ast.IntervalLiteralSingle{
		Interval:     pos(f.GetLocation()),
		Value:        &ast.IntLiteral{ValuePos: pos(f.GetLocation()), Base: 10, Value: fields[0]},
		DateTimePart: part,
	}
	return callOf(g, f.GetLocation(), ts, iv), nil
}

// castType is the GoogleSQL type a PostgreSQL cast names.
func (l *pgLower) castType(tn *pg.TypeName) (ast.Type, error) {
	parts := strVals(tn.GetNames())
	name := parts[len(parts)-1]
	if name == "int4" || name == "int2" {
		name = "int8" // Spanner's PostgreSQL dialect has one integer type
	}
	st, ok := schema.PGScalarType(name)
	if !ok {
		return nil, errorf(codes.InvalidArgument, "[ERROR] type \"%s\" does not exist", strings.Join(parts, "."))
	}
	var t ast.Type = &ast.SimpleType{NamePos: pos(tn.GetLocation()), Name: st}
	if len(tn.GetArrayBounds()) > 0 {
		t = &ast.ArrayType{Array: pos(tn.GetLocation()), Item: t}
	}
	return t, nil
}

func (l *pgLower) typeCast(c *pg.TypeCast) (ast.Expr, error) {
	t, err := l.castType(c.GetTypeName())
	if err != nil {
		return nil, err
	}
	// A quoted literal cast to a type is a literal of that type ('2024-01-01'::date).
	if s := c.GetArg().GetAConst().GetSval(); s != nil {
		p := pos(c.GetArg().GetAConst().GetLocation())
		lit := &ast.StringLiteral{ValuePos: p, Value: s.GetSval()}
		if st, ok := t.(*ast.SimpleType); ok {
			switch st.Name {
			case ast.DateTypeName:
				return &ast.DateLiteral{Date: p, Value: lit}, nil
			case ast.TimestampTypeName:
				return &ast.TimestampLiteral{Timestamp: p, Value: lit}, nil
			case ast.NumericTypeName:
				return &ast.NumericLiteral{Numeric: p, Value: lit}, nil
			case ast.JSONTypeName:
				return &ast.JSONLiteral{JSON: p, Value: lit}, nil
			}
		}
	}
	arg, err := l.expr(c.GetArg())
	if err != nil {
		return nil, err
	}
	return &ast.CastExpr{Cast: pos(c.GetLocation()), Expr: arg, Type: t}, nil
}

func (l *pgLower) subLink(s *pg.SubLink) (ast.Expr, error) {
	q, err := l.query(s.GetSubselect().GetSelectStmt())
	if err != nil {
		return nil, err
	}
	p := pos(s.GetLocation())
	switch s.GetSubLinkType() {
	case pg.SubLinkType_EXISTS_SUBLINK:
		return &ast.ExistsSubQuery{Exists: p, Query: q}, nil
	case pg.SubLinkType_EXPR_SUBLINK:
		return &ast.ScalarSubQuery{Lparen: p, Query: q}, nil
	case pg.SubLinkType_ARRAY_SUBLINK:
		return &ast.ArraySubQuery{Array: p, Query: q}, nil
	case pg.SubLinkType_ANY_SUBLINK:
		if len(s.GetOperName()) > 0 && strVal(s.GetOperName()[0]) != "=" {
			return nil, l.unsupported(s.GetLocation(), "this ANY subquery")
		}
		left, err := l.expr(s.GetTestexpr())
		if err != nil {
			return nil, err
		}
		return &ast.InExpr{Left: left, Right: &ast.SubQueryInCondition{Lparen: p, Query: q}}, nil
	}
	return nil, l.unsupported(s.GetLocation(), "this kind of subquery")
}

func (l *pgLower) caseExpr(c *pg.CaseExpr) (ast.Expr, error) {
	out := &ast.CaseExpr{Case: pos(c.GetLocation())}
	if c.GetArg() != nil {
		arg, err := l.expr(c.GetArg())
		if err != nil {
			return nil, err
		}
		out.Expr = arg
	}
	for _, w := range c.GetArgs() {
		cw := w.GetCaseWhen()
		cond, err := l.expr(cw.GetExpr())
		if err != nil {
			return nil, err
		}
		res, err := l.expr(cw.GetResult())
		if err != nil {
			return nil, err
		}
		out.Whens = append(out.Whens, &ast.CaseWhen{When: pos(cw.GetLocation()), Cond: cond, Then: res})
	}
	if c.GetDefresult() != nil {
		d, err := l.expr(c.GetDefresult())
		if err != nil {
			return nil, err
		}
		out.Else = &ast.CaseElse{Expr: d}
	}
	return out, nil
}

// colName is the name PostgreSQL gives a result column computed by n (FigureColname).
func colName(n *pg.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().GetFields()
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.GetSval()
		}
	case n.GetFuncCall() != nil:
		f := n.GetFuncCall().GetFuncname()
		return strVal(f[len(f)-1])
	case n.GetTypeCast() != nil:
		if name := colName(n.GetTypeCast().GetArg()); name != "?column?" {
			return name
		}
		names := n.GetTypeCast().GetTypeName().GetNames()
		return strVal(names[len(names)-1])
	case n.GetAIndirection() != nil:
		return colName(n.GetAIndirection().GetArg())
	case n.GetCaseExpr() != nil:
		return "case"
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().GetOp() == pg.MinMaxOp_IS_LEAST {
			return "least"
		}
		return "greatest"
	case n.GetSqlvalueFunction() != nil:
		return strings.ToLower(strings.TrimPrefix(n.GetSqlvalueFunction().GetOp().String(), "SVFOP_"))
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetSubLink() != nil:
		switch n.GetSubLink().GetSubLinkType() {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array"
		case pg.SubLinkType_EXPR_SUBLINK:
			if t := n.GetSubLink().GetSubselect().GetSelectStmt().GetTargetList(); len(t) > 0 {
				rt := t[0].GetResTarget()
				if rt.GetName() != "" {
					return rt.GetName()
				}
				return colName(rt.GetVal())
			}
		}
	}
	return "?column?"
}

// subscript lowers arr[i]: PostgreSQL's arrays count from 1 and an index out of range
// gives NULL, which is GoogleSQL's arr[SAFE_ORDINAL(i)].
func (l *pgLower) subscript(ind *pg.A_Indirection) (ast.Expr, error) {
	e, err := l.expr(ind.GetArg())
	if err != nil {
		return nil, err
	}
	for _, step := range ind.GetIndirection() {
		ix := step.GetAIndices()
		if ix == nil || ix.GetIsSlice() {
			return nil, l.unsupported(-1, "array slices and field selection")
		}
		i, err := l.expr(ix.GetUidx())
		if err != nil {
			return nil, err
		}
		e = &ast.IndexExpr{Expr: e, Index: &ast.SubscriptSpecifierKeyword{Keyword: ast.PositionKeywordSafeOrdinal, Expr: i}}
	}
	return e, nil
}

// isDistinct is a IS [NOT] DISTINCT FROM b, which GoogleSQL's tree cannot say: NULL is
// not distinct from NULL and distinct from any value.
//
//	CASE WHEN a IS NULL THEN b IS [NOT] NULL WHEN b IS NULL THEN distinct ELSE a != b (a = b) END
func isDistinct(a, b ast.Expr, distinct bool) ast.Expr {
	op := ast.OpEqual
	if distinct {
		op = ast.OpNotEqual
	}
	return &ast.CaseExpr{
		Whens: []*ast.CaseWhen{
			{Cond: &ast.IsNullExpr{Left: a}, Then: &ast.IsNullExpr{Left: b, Not: distinct}},
			{Cond: &ast.IsNullExpr{Left: b}, Then: &ast.BoolLiteral{Value: distinct}},
		},
		Else: &ast.CaseElse{Expr: &ast.BinaryExpr{Op: op, Left: a, Right: b}},
	}
}
