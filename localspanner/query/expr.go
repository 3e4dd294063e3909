package query

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/value"
)

var fmtSprintf = fmt.Sprintf

// expr is a compiled expression: SQLite SQL whose value is in the storage encoding of
// t (t is nil for an untyped NULL).
type expr struct {
	sql   string
	t     *spannerpb.Type
	param bool
}

func sqlString(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "CAST(X'" + hex.EncodeToString([]byte(s)) + "' AS TEXT)"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// hintable expressions take their type from the other side of a comparison.
func hintable(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Param, *ast.StringLiteral, *ast.NullLiteral:
		return true
	case *ast.ParenExpr:
		return hintable(x.Expr)
	}
	return false
}

// pair compiles two operands so that a parameter or literal takes the other's type.
func (c *compiler) pair(a, b ast.Expr, sc *scope) (expr, expr, error) {
	if hintable(a) && !hintable(b) {
		eb, err := c.expr(b, sc, nil)
		if err != nil {
			return expr{}, expr{}, err
		}
		ea, err := c.expr(a, sc, eb.t)
		return ea, eb, err
	}
	ea, err := c.expr(a, sc, nil)
	if err != nil {
		return expr{}, expr{}, err
	}
	eb, err := c.expr(b, sc, ea.t)
	return ea, eb, err
}

func (c *compiler) boolExpr(e ast.Expr, sc *scope, what string) (expr, error) {
	x, err := c.expr(e, sc, tBool)
	if err != nil {
		return expr{}, err
	}
	if x.t != nil && code(x.t) != spannerpb.TypeCode_BOOL {
		return expr{}, c.invalid(e, "%s should return type BOOL, but returns %s", what, typeName(x.t))
	}
	return x, nil
}

// maxDepth bounds how deeply expressions and sub-queries nest: SQLite's parser and
// expression trees have limits of their own, which must not surface as internal errors.
const maxDepth = 150

func (c *compiler) expr(e ast.Expr, sc *scope, hint *spannerpb.Type) (expr, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxDepth {
		return expr{}, c.invalid(e, "Expression nesting exceeds the maximum depth of %d", maxDepth)
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		in, err := c.expr(x.Expr, sc, hint)
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "(" + in.sql + ")", t: in.t, param: in.param}, nil
	case *ast.Ident:
		r, err := c.resolveName(x, sc)
		if err != nil {
			switch upper(x.Name) {
			case "CURRENT_TIMESTAMP":
				return c.current(x, false)
			case "CURRENT_DATE":
				return c.current(x, true)
			}
		}
		return r, err
	case *ast.Path:
		return c.resolvePath(x, sc)
	case *ast.Param:
		return c.param(x, hint)
	case *ast.IntLiteral:
		n, err := parseIntLiteral(x.Value, x.Base)
		if err != nil {
			return expr{}, c.invalid(x, "Invalid integer literal: %s", x.Value)
		}
		return expr{sql: strconv.FormatInt(n, 10), t: tInt64}, nil
	case *ast.FloatLiteral:
		f, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			return expr{}, c.invalid(x, "Invalid floating point literal: %s", x.Value)
		}
		return expr{sql: floatSQL(f), t: tFloat64}, nil
	case *ast.StringLiteral:
		return c.stringLiteral(x, hint)
	case *ast.BytesLiteral:
		return expr{sql: "X'" + hex.EncodeToString(x.Value) + "'", t: tBytes}, nil
	case *ast.BoolLiteral:
		if x.Value {
			return expr{sql: "TRUE", t: tBool}, nil
		}
		return expr{sql: "FALSE", t: tBool}, nil
	case *ast.NullLiteral:
		return expr{sql: "NULL", t: hint}, nil
	case *ast.DateLiteral:
		d, err := value.ParseDate(x.Value.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Invalid DATE literal: %s", x.Value.Value)
		}
		return expr{sql: sqlString(d), t: tDate}, nil
	case *ast.TimestampLiteral:
		ts, err := sqlfn.ParseTimestampLiteral(x.Value.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Invalid TIMESTAMP literal: %s", x.Value.Value)
		}
		return expr{sql: sqlString(ts), t: tTimestamp}, nil
	case *ast.NumericLiteral:
		n, err := value.RoundNumeric(x.Value.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Invalid NUMERIC literal: %s", x.Value.Value)
		}
		return expr{sql: sqlString(n), t: tNumeric}, nil
	case *ast.JSONLiteral:
		j, err := value.NormalizeJSON(x.Value.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Invalid JSON literal: %s", x.Value.Value)
		}
		return expr{sql: sqlString(j), t: tJSON}, nil
	case *ast.ArrayLiteral:
		return c.arrayLiteral(x, sc, hint)
	case *ast.BinaryExpr:
		return c.binary(x, sc)
	case *ast.UnaryExpr:
		return c.unary(x, sc, hint)
	case *ast.InExpr:
		return c.in(x, sc)
	case *ast.IsNullExpr:
		in, err := c.expr(x.Left, sc, nil)
		if err != nil {
			return expr{}, err
		}
		if x.Not {
			return expr{sql: "(" + in.sql + " IS NOT NULL)", t: tBool}, nil
		}
		return expr{sql: "(" + in.sql + " IS NULL)", t: tBool}, nil
	case *ast.IsBoolExpr:
		in, err := c.boolExpr(x.Left, sc, "IS TRUE/FALSE operand")
		if err != nil {
			return expr{}, err
		}
		op := " IS "
		if x.Not {
			op = " IS NOT "
		}
		v := "FALSE"
		if x.Right {
			v = "TRUE"
		}
		return expr{sql: "(" + in.sql + op + v + ")", t: tBool}, nil
	case *ast.BetweenExpr:
		return c.between(x, sc)
	case *ast.CallExpr:
		return c.call(x, sc, hint)
	case *ast.CountStarExpr:
		if c.colExpr {
			return expr{}, c.invalid(x, "Aggregate functions are not allowed here")
		}
		if c.grouping != nil {
			c.grouping.aggSeen = true
		}
		return expr{sql: "count(*)", t: tInt64}, nil
	case *ast.CastExpr:
		return c.cast(x, sc)
	case *ast.CaseExpr:
		return c.caseExpr(x, sc, hint)
	case *ast.IfExpr:
		cond, err := c.boolExpr(x.Expr, sc, "IF condition")
		if err != nil {
			return expr{}, err
		}
		return c.branches(x, []string{"CASE WHEN " + cond.sql + " THEN ", " ELSE ", " END"}, []ast.Expr{x.TrueResult, x.ElseResult}, sc, hint)
	case *ast.ScalarSubQuery:
		res, err := c.subquery(x.Query, sc, x)
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "(" + res.sql + ")", t: res.fields[0].t}, nil
	case *ast.ArraySubQuery:
		res, err := c.subquery(x.Query, sc, x)
		if err != nil {
			return expr{}, err
		}
		elem := res.fields[0].t
		if elem == nil {
			elem = tInt64
		}
		return expr{sql: "(SELECT json_group_array(" + elemToJSON(outName(0), elem) + ") FROM (" + res.sql + "))", t: arrayOf(elem)}, nil
	case *ast.ExistsSubQuery:
		if c.colExpr {
			return expr{}, c.invalid(x, "Subqueries are not allowed here")
		}
		res, err := c.queryExpr(x.Query, sc)
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "EXISTS (" + res.sql + ")", t: tBool}, nil
	case *ast.ExtractExpr:
		return c.extract(x, sc)
	case *ast.IndexExpr:
		return c.subscript(x, sc)
	case *ast.TupleStructLiteral:
		return c.structLiteral(x, x.Values, nil, nil, sc)
	case *ast.TypedStructLiteral:
		st, err := astType(&ast.StructType{Fields: x.Fields})
		if err != nil {
			return expr{}, err
		}
		return c.structLiteral(x, x.Values, nil, st, sc)
	case *ast.TypelessStructLiteral:
		vals := make([]ast.Expr, len(x.Values))
		names := make([]string, len(x.Values))
		for i, v := range x.Values {
			switch a := v.(type) {
			case *ast.ExprArg:
				vals[i] = a.Expr
				switch n := a.Expr.(type) {
				case *ast.Ident:
					names[i] = n.Name
				case *ast.Path:
					names[i] = n.Idents[len(n.Idents)-1].Name
				}
			case *ast.Alias:
				vals[i], names[i] = a.Expr, a.As.Alias.Name
			}
		}
		return c.structLiteral(x, vals, names, nil, sc)
	case *ast.SelectorExpr:
		base, err := c.expr(x.Expr, sc, nil)
		if err != nil {
			return expr{}, err
		}
		return c.field(x.Ident, base)
	}
	return expr{}, c.unsupported(e, "the expression "+shorten(e.SQL()))
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func parseIntLiteral(v string, base int) (int64, error) {
	if base == 16 {
		neg := strings.HasPrefix(v, "-")
		v = strings.TrimPrefix(v, "-")
		v = strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
		u, err := strconv.ParseUint(v, 16, 64)
		if err != nil || u > math.MaxInt64 {
			return 0, fmt.Errorf("out of range")
		}
		if neg {
			return -int64(u), nil
		}
		return int64(u), nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func floatSQL(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "9e999"
	case math.IsInf(f, -1):
		return "-9e999"
	case math.IsNaN(f):
		return "'NaN'"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

func (c *compiler) current(n ast.Node, date bool) (expr, error) {
	if c.colExpr {
		return expr{}, c.invalid(n, "CURRENT_TIMESTAMP/CURRENT_DATE are not allowed in column expressions")
	}
	return c.nowParam(date), nil
}

func (c *compiler) stringLiteral(x *ast.StringLiteral, hint *spannerpb.Type) (expr, error) {
	switch code(hint) {
	case spannerpb.TypeCode_TIMESTAMP:
		ts, err := sqlfn.ParseTimestampLiteral(x.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Could not cast literal %q to type TIMESTAMP", x.Value)
		}
		return expr{sql: sqlString(ts), t: tTimestamp}, nil
	case spannerpb.TypeCode_DATE:
		d, err := value.ParseDate(x.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Could not cast literal %q to type DATE", x.Value)
		}
		return expr{sql: sqlString(d), t: tDate}, nil
	case spannerpb.TypeCode_UUID:
		u, err := value.ParseUUID(x.Value)
		if err != nil {
			return expr{}, c.invalid(x, "Could not cast literal %q to type UUID", x.Value)
		}
		return expr{sql: sqlString(u), t: tUUID}, nil
	case spannerpb.TypeCode_ENUM:
		// A string literal next to an ENUM names one of its values.
		if c.cat != nil {
			if n, ok := c.cat.EnumNumber(hint, x.Value); ok {
				return expr{sql: strconv.FormatInt(n, 10), t: hint}, nil
			}
		}
		return expr{}, c.invalid(x, "Could not cast literal %q to type %s", x.Value, hint.GetProtoTypeFqn())
	}
	return expr{sql: sqlString(x.Value), t: tString}, nil
}

func (c *compiler) resolveName(id *ast.Ident, sc *scope) (expr, error) {
	for s := sc; s != nil; s = s.parent {
		var found *relCol
		var foundIn *rel
		for _, r := range s.rels {
			for i := range r.cols {
				col := &r.cols[i]
				if col.name != "" && strings.EqualFold(col.name, id.Name) {
					if found != nil {
						return expr{}, c.invalid(id, "Column name %s is ambiguous", id.Name)
					}
					found, foundIn = col, r
				}
			}
		}
		if found != nil && c.strict && foundIn.name != "" && !strings.EqualFold(foundIn.name, found.name) {
			// A view's query: a column of a named FROM item needs its qualifier.
			return expr{}, c.invalid(id, "Alias %s cannot be used without a qualifier in strict name resolution mode", id.Name)
		}
		if found != nil {
			c.noteColumn(s, found.name, found.sql)
			return expr{sql: found.sql, t: found.t}, nil
		}
	}
	return expr{}, c.invalid(id, "Unrecognized name: %s", id.Name)
}

func (c *compiler) resolvePath(p *ast.Path, sc *scope) (expr, error) {
	first := strings.ToLower(p.Idents[0].Name)
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if r.name != first {
				continue
			}
			for i, col := range r.cols {
				if strings.EqualFold(col.name, p.Idents[1].Name) {
					for _, other := range r.cols[i+1:] {
						if strings.EqualFold(other.name, col.name) {
							return expr{}, c.invalid(p.Idents[1], "Name %s is ambiguous inside %s", p.Idents[1].Name, p.Idents[0].Name)
						}
					}
					c.noteColumn(s, p.SQL(), col.sql)
					base := expr{sql: col.sql, t: col.t}
					for _, id := range p.Idents[2:] {
						var err error
						if base, err = c.field(id, base); err != nil {
							return expr{}, err
						}
					}
					return base, nil
				}
			}
			return expr{}, c.invalid(p.Idents[1], "Name %s not found inside %s", p.Idents[1].Name, p.Idents[0].Name)
		}
	}
	base, err := c.resolveName(p.Idents[0], sc)
	if err != nil {
		return expr{}, c.invalid(p, "Unrecognized name: %s", p.Idents[0].Name)
	}
	for _, id := range p.Idents[1:] {
		if base, err = c.field(id, base); err != nil {
			return expr{}, err
		}
	}
	return base, nil
}

func (c *compiler) subquery(q ast.QueryExpr, sc *scope, n ast.Node) (*queryResult, error) {
	if c.colExpr {
		return nil, c.invalid(n, "Subqueries are not allowed here")
	}
	res, err := c.queryExpr(q, sc)
	if err != nil {
		return nil, err
	}
	if len(res.fields) != 1 {
		return nil, c.invalid(n, "Scalar subquery cannot have more than one column unless using SELECT AS STRUCT")
	}
	return res, nil
}

// elemToJSON converts a storage cell to its encoding as a JSON array element.
func elemToJSON(s string, elem *spannerpb.Type) string {
	switch code(elem) {
	case spannerpb.TypeCode_BYTES:
		return "sp_base64(" + s + ")"
	case spannerpb.TypeCode_STRUCT, spannerpb.TypeCode_ARRAY:
		return "json(" + s + ")"
	}
	return s
}

func (c *compiler) arrayLiteral(x *ast.ArrayLiteral, sc *scope, hint *spannerpb.Type) (expr, error) {
	var elem *spannerpb.Type
	if x.Type != nil {
		t, err := astType(x.Type)
		if err != nil {
			return expr{}, err
		}
		elem = t
	} else if code(hint) == spannerpb.TypeCode_ARRAY {
		elem = hint.GetArrayElementType()
	}
	vals := make([]expr, len(x.Values))
	for i, v := range x.Values {
		e, err := c.expr(v, sc, elem)
		if err != nil {
			return expr{}, err
		}
		t, ok := commonType(elem, e.t)
		if !ok {
			return expr{}, c.invalid(v, "Array elements of types {%s, %s} do not have a common supertype", typeName(elem), typeName(e.t))
		}
		elem = t
		vals[i] = e
	}
	if elem == nil {
		elem = tInt64
	}
	if code(elem) == spannerpb.TypeCode_ARRAY {
		return expr{}, c.invalid(x, "Cannot construct array with element type %s because nested arrays are not supported", typeName(elem))
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = elemToJSON(coerceSQL(v, elem), elem)
	}
	return expr{sql: "json_array(" + strings.Join(parts, ", ") + ")", t: arrayOf(elem)}, nil
}

// coerceSQL converts an expression's value to type t where the storage encodings
// differ (INT64 to FLOAT64).
func coerceSQL(e expr, t *spannerpb.Type) string {
	if isFloat(t) && code(e.t) == spannerpb.TypeCode_INT64 {
		return "CAST(" + e.sql + " AS REAL)"
	}
	return e.sql
}

func comparable(t *spannerpb.Type) bool {
	switch code(t) {
	case spannerpb.TypeCode_ARRAY, spannerpb.TypeCode_STRUCT, spannerpb.TypeCode_JSON:
		return false
	}
	return true
}

// equatable types support = and IN: the comparable ones, and STRUCTs (compared field
// by field through their JSON encodings).
func equatable(t *spannerpb.Type) bool {
	return comparable(t) || code(t) == spannerpb.TypeCode_STRUCT
}

func (c *compiler) binary(x *ast.BinaryExpr, sc *scope) (expr, error) {
	switch x.Op {
	case ast.OpAnd, ast.OpOr:
		a, err := c.boolExpr(x.Left, sc, string(x.Op)+" operand")
		if err != nil {
			return expr{}, err
		}
		b, err := c.boolExpr(x.Right, sc, string(x.Op)+" operand")
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "(" + a.sql + " " + string(x.Op) + " " + b.sql + ")", t: tBool}, nil
	}
	a, b, err := c.pair(x.Left, x.Right, sc)
	if err != nil {
		return expr{}, err
	}
	mismatch := func() error {
		return c.invalid(x, "No matching signature for operator %s for argument types: %s, %s", x.Op, typeName(a.t), typeName(b.t))
	}
	switch x.Op {
	case ast.OpEqual, ast.OpNotEqual, ast.OpLess, ast.OpGreater, ast.OpLessEqual, ast.OpGreaterEqual:
		eq := x.Op == ast.OpEqual || x.Op == ast.OpNotEqual
		if _, ok := commonType(a.t, b.t); !ok || !(comparable(a.t) || eq && equatable(a.t)) || !(comparable(b.t) || eq && equatable(b.t)) {
			return expr{}, mismatch()
		}
		if code(a.t) == spannerpb.TypeCode_STRUCT && code(b.t) == spannerpb.TypeCode_STRUCT {
			return expr{sql: structEqual(a.sql, b.sql, a.t, b.t, x.Op == ast.OpNotEqual), t: tBool}, nil
		}
		if code(a.t) == spannerpb.TypeCode_NUMERIC || code(b.t) == spannerpb.TypeCode_NUMERIC {
			return expr{sql: "(sp_numeric_cmp(" + a.sql + ", " + b.sql + ") " + sqlCmp(x.Op) + " 0)", t: tBool}, nil
		}
		cmp := "(" + a.sql + " " + sqlCmp(x.Op) + " " + b.sql + ")"
		if isFloat(a.t) || isFloat(b.t) {
			cmp = floatCmp(cmp, x.Op, a, b)
		}
		return expr{sql: cmp, t: tBool}, nil
	case ast.OpLike, ast.OpNotLike:
		t, ok := commonType(a.t, b.t)
		if !ok || (t != nil && code(t) != spannerpb.TypeCode_STRING && code(t) != spannerpb.TypeCode_BYTES) {
			return expr{}, mismatch()
		}
		return expr{sql: "(" + a.sql + " " + string(x.Op) + " " + b.sql + " ESCAPE '\\')", t: tBool}, nil
	case ast.OpAdd, ast.OpSub, ast.OpMul, ast.OpDiv:
		return c.arith(x, a, b, mismatch)
	case ast.OpConcat:
		return c.concat(x, []expr{a, b})
	case ast.OpBitAnd, ast.OpBitOr, ast.OpBitXor, ast.OpBitLeftShift, ast.OpBitRightShift:
		if !intOrNull(a.t) || !intOrNull(b.t) {
			return expr{}, mismatch()
		}
		switch x.Op {
		case ast.OpBitXor:
			return expr{sql: "sp_bitxor(" + a.sql + ", " + b.sql + ")", t: tInt64}, nil
		case ast.OpBitLeftShift:
			return expr{sql: "sp_shift(" + a.sql + ", " + b.sql + ", 1)", t: tInt64}, nil
		case ast.OpBitRightShift:
			return expr{sql: "sp_shift(" + a.sql + ", " + b.sql + ", 0)", t: tInt64}, nil
		}
		return expr{sql: "(" + a.sql + " " + string(x.Op) + " " + b.sql + ")", t: tInt64}, nil
	}
	return expr{}, c.unsupported(x, "the operator "+string(x.Op))
}

func intOrNull(t *spannerpb.Type) bool { return t == nil || code(t) == spannerpb.TypeCode_INT64 }

func sqlCmp(op ast.BinaryOp) string {
	if op == ast.OpNotEqual {
		return "<>"
	}
	return string(op)
}

func (c *compiler) arith(x *ast.BinaryExpr, a, b expr, mismatch func() error) (expr, error) {
	if (a.t != nil && !isNumeric(a.t)) || (b.t != nil && !isNumeric(b.t)) {
		return expr{}, mismatch()
	}
	t, _ := commonType(a.t, b.t)
	if t == nil {
		t = tInt64
	}
	if code(t) == spannerpb.TypeCode_NUMERIC {
		return expr{sql: "sp_numeric_op(" + a.sql + ", " + b.sql + ", '" + string(x.Op) + "')", t: tNumeric}, nil
	}
	if x.Op == ast.OpDiv {
		if code(t) == spannerpb.TypeCode_INT64 && c.cat.Dialect() == schema.PostgreSQL {
			// PostgreSQL divides integers as integers, truncating toward zero (DIV).
			return fnCall("sp_idiv", tInt64, []expr{a, b}), nil
		}
		return expr{sql: "sp_div(" + a.sql + ", " + b.sql + ")", t: tFloat64}, nil
	}
	if code(t) == spannerpb.TypeCode_INT64 {
		fn := map[ast.BinaryOp]string{ast.OpAdd: "sp_add", ast.OpSub: "sp_sub", ast.OpMul: "sp_mul"}[x.Op]
		return expr{sql: fn + "(" + a.sql + ", " + b.sql + ")", t: tInt64}, nil
	}
	return expr{sql: "sp_float_op(" + a.sql + ", " + b.sql + ", '" + string(x.Op) + "')", t: tFloat64}, nil
}

func (c *compiler) concat(n ast.Node, args []expr) (expr, error) {
	var t *spannerpb.Type
	parts := make([]string, len(args))
	for i, a := range args {
		nt, ok := commonType(t, a.t)
		if !ok || (nt != nil && code(nt) != spannerpb.TypeCode_STRING && code(nt) != spannerpb.TypeCode_BYTES) {
			return expr{}, c.invalid(n, "No matching signature for function CONCAT for argument types including %s", typeName(a.t))
		}
		t = nt
		parts[i] = a.sql
	}
	if t == nil {
		t = tString
	}
	s := "(" + strings.Join(parts, " || ") + ")"
	if code(t) == spannerpb.TypeCode_BYTES {
		s = "CAST(" + s + " AS BLOB)"
	}
	return expr{sql: s, t: t}, nil
}

func (c *compiler) unary(x *ast.UnaryExpr, sc *scope, hint *spannerpb.Type) (expr, error) {
	switch x.Op {
	case ast.OpNot:
		a, err := c.boolExpr(x.Expr, sc, "NOT operand")
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "(NOT " + a.sql + ")", t: tBool}, nil
	case ast.OpMinus:
		switch lit := x.Expr.(type) {
		case *ast.IntLiteral:
			n, err := parseIntLiteral("-"+lit.Value, lit.Base)
			if err != nil {
				return expr{}, c.invalid(x, "Invalid integer literal: -%s", lit.Value)
			}
			return expr{sql: strconv.FormatInt(n, 10), t: tInt64}, nil
		case *ast.FloatLiteral:
			f, err := strconv.ParseFloat(lit.Value, 64)
			if err != nil {
				return expr{}, c.invalid(x, "Invalid floating point literal: %s", lit.Value)
			}
			return expr{sql: floatSQL(-f), t: tFloat64}, nil
		}
		a, err := c.expr(x.Expr, sc, hint)
		if err != nil {
			return expr{}, err
		}
		switch {
		case intOrNull(a.t):
			return expr{sql: "sp_sub(0, " + a.sql + ")", t: tInt64}, nil
		case isFloat(a.t):
			return expr{sql: "sp_float_op(0.0, " + a.sql + ", '-')", t: a.t}, nil
		case code(a.t) == spannerpb.TypeCode_NUMERIC:
			return expr{sql: "sp_numeric_op('0', " + a.sql + ", '-')", t: a.t}, nil
		}
		return expr{}, c.invalid(x, "No matching signature for operator - for argument type %s", typeName(a.t))
	case ast.OpPlus:
		a, err := c.expr(x.Expr, sc, hint)
		if err != nil {
			return expr{}, err
		}
		if a.t != nil && !isNumeric(a.t) {
			return expr{}, c.invalid(x, "No matching signature for operator + for argument type %s", typeName(a.t))
		}
		return a, nil
	case ast.OpBitNot:
		a, err := c.expr(x.Expr, sc, tInt64)
		if err != nil {
			return expr{}, err
		}
		if !intOrNull(a.t) {
			return expr{}, c.invalid(x, "No matching signature for operator ~ for argument type %s", typeName(a.t))
		}
		return expr{sql: "(~ " + a.sql + ")", t: tInt64}, nil
	}
	return expr{}, c.unsupported(x, "the operator "+string(x.Op))
}

func (c *compiler) in(x *ast.InExpr, sc *scope) (expr, error) {
	left, err := c.expr(x.Left, sc, nil)
	if err != nil {
		return expr{}, err
	}
	not := ""
	if x.Not {
		not = "NOT "
	}
	switch r := x.Right.(type) {
	case *ast.ValuesInCondition:
		parts := make([]string, len(r.Exprs))
		for i, v := range r.Exprs {
			e, err := c.expr(v, sc, left.t)
			if err != nil {
				return expr{}, err
			}
			if _, ok := commonType(left.t, e.t); !ok || !equatable(e.t) {
				return expr{}, c.invalid(v, "No matching signature for operator IN for argument types %s and %s", typeName(left.t), typeName(e.t))
			}
			parts[i] = e.sql
		}
		return expr{sql: notNaNMember(left, "("+left.sql+" "+not+"IN ("+strings.Join(parts, ", ")+"))", x.Not), t: tBool}, nil
	case *ast.UnnestInCondition:
		var hint *spannerpb.Type
		if left.t != nil {
			hint = arrayOf(left.t)
		}
		arr, err := c.expr(r.Expr, sc, hint)
		if err != nil {
			return expr{}, err
		}
		if code(arr.t) != spannerpb.TypeCode_ARRAY {
			return expr{}, c.invalid(r.Expr, "Second argument of IN UNNEST must be an array but was %s", typeName(arr.t))
		}
		elem := arr.t.GetArrayElementType()
		if _, ok := commonType(left.t, elem); !ok || !equatable(elem) {
			return expr{}, c.invalid(x, "No matching signature for operator IN UNNEST for argument types %s and %s", typeName(left.t), typeName(arr.t))
		}
		return expr{sql: notNaNMember(left, "("+left.sql+" "+not+"IN (SELECT "+elemFromJSON("value", elem)+" FROM json_each("+arr.sql+")))", x.Not), t: tBool}, nil
	case *ast.SubQueryInCondition:
		res, err := c.subquery(r.Query, sc, r)
		if err != nil {
			return expr{}, err
		}
		if _, ok := commonType(left.t, res.fields[0].t); !ok {
			return expr{}, c.invalid(x, "Cannot execute IN subquery with uncomparable types %s and %s", typeName(left.t), typeName(res.fields[0].t))
		}
		return expr{sql: notNaNMember(left, "("+left.sql+" "+not+"IN ("+res.sql+"))", x.Not), t: tBool}, nil
	}
	return expr{}, c.unsupported(x, "this IN form")
}

func (c *compiler) between(x *ast.BetweenExpr, sc *scope) (expr, error) {
	v, err := c.expr(x.Left, sc, nil)
	if err != nil {
		return expr{}, err
	}
	lo, err := c.expr(x.RightStart, sc, v.t)
	if err != nil {
		return expr{}, err
	}
	hi, err := c.expr(x.RightEnd, sc, v.t)
	if err != nil {
		return expr{}, err
	}
	for _, o := range []expr{lo, hi} {
		if _, ok := commonType(v.t, o.t); !ok || !comparable(o.t) {
			return expr{}, c.invalid(x, "No matching signature for operator BETWEEN for argument types %s and %s", typeName(v.t), typeName(o.t))
		}
	}
	not := ""
	if x.Not {
		not = "NOT "
	}
	return expr{sql: "(" + v.sql + " " + not + "BETWEEN " + lo.sql + " AND " + hi.sql + ")", t: tBool}, nil
}

// branches compiles the result expressions of IF/CASE/COALESCE-like constructs into
// their common type and interleaves them with the SQL pieces around them.
func (c *compiler) branches(n ast.Node, pieces []string, results []ast.Expr, sc *scope, hint *spannerpb.Type) (expr, error) {
	parts, t, err := c.branchParts(results, sc, hint)
	if err != nil {
		return expr{}, err
	}
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(pieces[i])
		b.WriteString(p)
	}
	b.WriteString(pieces[len(parts)])
	return expr{sql: b.String(), t: t}, nil
}

// branchParts compiles results into their common type: the SQL of each, coerced.
func (c *compiler) branchParts(results []ast.Expr, sc *scope, hint *spannerpb.Type) ([]string, *spannerpb.Type, error) {
	es := make([]expr, len(results))
	var t *spannerpb.Type
	for i, r := range results {
		h := t
		if h == nil {
			h = hint
		}
		e, err := c.expr(r, sc, h)
		if err != nil {
			return nil, nil, err
		}
		nt, ok := commonType(t, e.t)
		if !ok {
			return nil, nil, c.invalid(r, "No matching signature: types %s and %s have no common supertype", typeName(t), typeName(e.t))
		}
		t = nt
		es[i] = e
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = coerceSQL(e, t)
	}
	return parts, t, nil
}

func (c *compiler) caseExpr(x *ast.CaseExpr, sc *scope, hint *spannerpb.Type) (expr, error) {
	var operand expr
	if x.Expr != nil {
		o, err := c.expr(x.Expr, sc, nil)
		if err != nil {
			return expr{}, err
		}
		operand = o
	}
	pieces := []string{"CASE "}
	if x.Expr != nil {
		pieces[0] += operand.sql + " "
	}
	var results []ast.Expr
	for _, w := range x.Whens {
		var cond expr
		var err error
		if x.Expr != nil {
			cond, err = c.expr(w.Cond, sc, operand.t)
			if err == nil {
				if _, ok := commonType(operand.t, cond.t); !ok {
					err = c.invalid(w.Cond, "CASE value of type %s cannot be compared with %s", typeName(cond.t), typeName(operand.t))
				}
			}
		} else {
			cond, err = c.boolExpr(w.Cond, sc, "CASE WHEN condition")
		}
		if err != nil {
			return expr{}, err
		}
		pieces[len(pieces)-1] += "WHEN " + cond.sql + " THEN "
		pieces = append(pieces, " ")
		results = append(results, w.Then)
	}
	if x.Else != nil {
		pieces[len(pieces)-1] += "ELSE "
		pieces = append(pieces, " END")
		results = append(results, x.Else.Expr)
	} else {
		pieces[len(pieces)-1] += "END"
	}
	return c.branches(x, pieces, results, sc, hint)
}

func (c *compiler) cast(x *ast.CastExpr, sc *scope) (expr, error) {
	if nt, ok := x.Type.(*ast.NamedType); ok && len(nt.Path) > 1 {
		return c.castProto(x, nt, sc)
	}
	to, err := astType(x.Type)
	if err != nil {
		return expr{}, err
	}
	hint := to
	if _, lit := x.Expr.(*ast.StringLiteral); lit && x.Safe {
		hint = nil // a bad literal is NULL at run time, not an error now
	}
	in, err := c.expr(x.Expr, sc, hint)
	if err != nil {
		return expr{}, err
	}
	if in.t == nil {
		return expr{sql: "NULL", t: to}, nil
	}
	if sameType(in.t, to) {
		return expr{sql: in.sql, t: to}, nil
	}
	from, tc := code(in.t), code(to)
	if from == spannerpb.TypeCode_STRUCT && tc == spannerpb.TypeCode_STRUCT {
		return c.castStruct(x, in, to)
	}
	if !x.Safe {
		switch {
		case from == spannerpb.TypeCode_INT64 && tc == spannerpb.TypeCode_FLOAT64:
			return expr{sql: "CAST(" + in.sql + " AS REAL)", t: to}, nil
		case from == spannerpb.TypeCode_INT64 && tc == spannerpb.TypeCode_STRING:
			return expr{sql: "CAST(" + in.sql + " AS TEXT)", t: to}, nil
		case from == spannerpb.TypeCode_STRING && tc == spannerpb.TypeCode_BYTES:
			return expr{sql: "CAST(" + in.sql + " AS BLOB)", t: to}, nil
		case from == spannerpb.TypeCode_BOOL && tc == spannerpb.TypeCode_INT64:
			return expr{sql: in.sql, t: to}, nil
		case from == spannerpb.TypeCode_INT64 && tc == spannerpb.TypeCode_BOOL:
			return expr{sql: "(" + in.sql + " <> 0)", t: to}, nil
		}
	}
	if from == spannerpb.TypeCode_ENUM || from == spannerpb.TypeCode_PROTO {
		return c.castFromProto(x, in, to)
	}
	if !castable(in.t, to) {
		return expr{}, c.invalid(x, "Invalid cast from %s to %s", typeName(in.t), typeName(to))
	}
	fn := "sp_cast"
	if x.Safe {
		fn = "sp_safe_cast"
	}
	return expr{sql: fn + "(" + in.sql + ", '" + typeName(in.t) + "', '" + typeName(to) + "')", t: to}, nil
}

func castable(from, to *spannerpb.Type) bool {
	if code(from) == spannerpb.TypeCode_ARRAY || code(to) == spannerpb.TypeCode_ARRAY {
		return false
	}
	return sqlfn.CastSupported(code(from), code(to))
}

func (c *compiler) extract(x *ast.ExtractExpr, sc *scope) (expr, error) {
	in, err := c.expr(x.Expr, sc, tTimestamp)
	if err != nil {
		return expr{}, err
	}
	if code(in.t) != spannerpb.TypeCode_TIMESTAMP && code(in.t) != spannerpb.TypeCode_DATE {
		return expr{}, c.invalid(x.Expr, "EXTRACT expects a TIMESTAMP or DATE, got %s", typeName(in.t))
	}
	part := upper(x.Part.Name)
	if !sqlfn.ExtractPartOK(part, code(in.t)) {
		return expr{}, c.invalid(x.Part, "EXTRACT from %s does not support the %s date part", typeName(in.t), part)
	}
	tz := sqlString(sqlfn.DefaultZoneName)
	if x.AtTimeZone != nil {
		z, err := c.expr(x.AtTimeZone.Expr, sc, tString)
		if err != nil {
			return expr{}, err
		}
		if code(z.t) != spannerpb.TypeCode_STRING {
			return expr{}, c.invalid(x.AtTimeZone.Expr, "AT TIME ZONE expects a STRING")
		}
		tz = z.sql
	}
	t := tInt64
	if part == "DATE" {
		t = tDate
	}
	return expr{sql: "sp_extract('" + part + "', " + in.sql + ", '" + typeName(in.t) + "', " + tz + ")", t: t}, nil
}

// subscript is array[OFFSET(i)], [SAFE_OFFSET(i)], [ORDINAL(i)], [SAFE_ORDINAL(i)] or
// array[i] (an offset).
func (c *compiler) subscript(x *ast.IndexExpr, sc *scope) (expr, error) {
	arr, err := c.expr(x.Expr, sc, nil)
	if err != nil {
		return expr{}, err
	}
	if code(arr.t) != spannerpb.TypeCode_ARRAY {
		return expr{}, c.invalid(x, "Element access using [] is not supported on values of type %s", typeName(arr.t))
	}
	var idxExpr ast.Expr
	keyword := ast.PositionKeywordOffset
	switch sp := x.Index.(type) {
	case *ast.ExprArg:
		idxExpr = sp.Expr
	case *ast.SubscriptSpecifierKeyword:
		idxExpr, keyword = sp.Expr, sp.Keyword
	default:
		return expr{}, c.unsupported(x, "this array subscript")
	}
	idx, err := c.expr(idxExpr, sc, tInt64)
	if err != nil {
		return expr{}, err
	}
	if !intOrNull(idx.t) {
		return expr{}, c.invalid(idxExpr, "Array position in [] must be coercible to INT64 type, but has type %s", typeName(idx.t))
	}
	off := idx.sql
	if keyword == ast.PositionKeywordOrdinal || keyword == ast.PositionKeywordSafeOrdinal {
		off = "(" + off + " - 1)"
	}
	elem := arr.t.GetArrayElementType()
	get := elemFromJSON("json_extract("+arr.sql+", '$[' || "+off+" || ']')", elem)
	outOfRange := "sp_error('Array index ' || " + idx.sql + " || ' is out of bounds')"
	if keyword == ast.PositionKeywordSafeOffset || keyword == ast.PositionKeywordSafeOrdinal {
		outOfRange = "NULL"
	}
	return expr{sql: "CASE WHEN " + off + " < 0 OR " + off + " >= json_array_length(" + arr.sql + ") THEN " + outOfRange + " ELSE " + get + " END", t: elem}, nil
}

// mayBeNaN reports whether a FLOAT64 expression can hold NaN (stored as the TEXT
// 'NaN'); literals and parameters other than NaN cannot.
func mayBeNaN(e expr) bool {
	if !isFloat(e.t) {
		return false
	}
	if _, err := strconv.ParseFloat(strings.Trim(e.sql, "()- "), 64); err == nil {
		return false
	}
	return true
}

// floatCmp makes a comparison involving FLOAT64 false when an operand is NaN (true for
// !=), as IEEE and Spanner have it; SQLite would compare the TEXT 'NaN' as text.
func floatCmp(cmp string, op ast.BinaryOp, a, b expr) string {
	var nan []string
	for _, e := range []expr{a, b} {
		if mayBeNaN(e) {
			nan = append(nan, "typeof("+e.sql+") = 'text'")
		}
	}
	if len(nan) == 0 {
		return cmp
	}
	anyNaN := strings.Join(nan, " OR ")
	if op == ast.OpNotEqual {
		return "(CASE WHEN " + a.sql + " IS NULL OR " + b.sql + " IS NULL THEN NULL WHEN " + anyNaN + " THEN TRUE ELSE " + cmp + " END)"
	}
	return "(CASE WHEN " + anyNaN + " THEN FALSE ELSE " + cmp + " END)"
}

// structLiteral compiles (a, b), STRUCT(a AS x, b) and STRUCT<x T, y U>(a, b).
func (c *compiler) structLiteral(n ast.Node, vals []ast.Expr, names []string, typed *spannerpb.Type, sc *scope) (expr, error) {
	st := &spannerpb.StructType{}
	parts := make([]string, len(vals))
	for i, v := range vals {
		var hint *spannerpb.Type
		if typed != nil {
			if len(typed.GetStructType().GetFields()) != len(vals) {
				return expr{}, c.invalid(n, "STRUCT type has %d fields but %d values", len(typed.GetStructType().GetFields()), len(vals))
			}
			hint = typed.GetStructType().GetFields()[i].GetType()
		}
		e, err := c.expr(v, sc, hint)
		if err != nil {
			return expr{}, err
		}
		t := e.t
		if hint != nil {
			if ct, ok := commonType(hint, e.t); !ok || !sameType(ct, hint) {
				return expr{}, c.invalid(v, "STRUCT field %d of type %s cannot take a value of type %s", i+1, typeName(hint), typeName(e.t))
			}
			t = hint
		}
		if t == nil {
			t = tInt64
		}
		name := ""
		if names != nil {
			name = names[i]
		} else if typed != nil {
			name = typed.GetStructType().GetFields()[i].GetName()
		}
		st.Fields = append(st.Fields, &spannerpb.StructType_Field{Name: name, Type: t})
		parts[i] = elemToJSON(coerceSQL(e, t), t)
	}
	return expr{sql: "json_array(" + strings.Join(parts, ", ") + ")", t: &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: st}}, nil
}

// field reads a named field of a STRUCT value.
func (c *compiler) field(id *ast.Ident, base expr) (expr, error) {
	if code(base.t) == spannerpb.TypeCode_PROTO {
		return c.protoField(id, base)
	}
	if code(base.t) != spannerpb.TypeCode_STRUCT {
		return expr{}, c.invalid(id, "Cannot access field %s on a value with type %s", id.Name, typeName(base.t))
	}
	found := -1
	fields := base.t.GetStructType().GetFields()
	for i, f := range fields {
		if strings.EqualFold(f.GetName(), id.Name) {
			if found >= 0 {
				return expr{}, c.invalid(id, "Field name %s is ambiguous", id.Name)
			}
			found = i
		}
	}
	if found >= 0 {
		t := fields[found].GetType()
		return expr{sql: fieldSQL(base.sql, found, t), t: t}, nil
	}
	return expr{}, c.invalid(id, "Field name %s does not exist in %s", id.Name, typeName(base.t))
}
