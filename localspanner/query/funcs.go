package query

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/value"
)

// aggregates maps GoogleSQL aggregate functions handled by aggregate().
var aggregates = map[string]bool{
	"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true, "COUNTIF": true,
	"ANY_VALUE": true, "LOGICAL_AND": true, "LOGICAL_OR": true, "STRING_AGG": true, "ARRAY_AGG": true,
	"BIT_AND": true, "BIT_OR": true,
}

var mathFuncs = map[string]string{
	"ROUND": "ROUND", "TRUNC": "TRUNC", "CEIL": "CEIL", "CEILING": "CEIL", "FLOOR": "FLOOR", "SQRT": "SQRT",
	"POW": "POW", "POWER": "POW", "EXP": "EXP", "LN": "LN", "LOG": "LOG", "LOG10": "LOG10",
}

func (c *compiler) callArgs(x *ast.CallExpr) ([]ast.Expr, error) {
	if len(x.NamedArgs) > 0 || x.NullHandling != nil || x.Having != nil || x.OrderBy != nil || x.Limit != nil {
		return nil, c.unsupported(x, "this form of "+x.Func.SQL()+"(...)")
	}
	out := make([]ast.Expr, len(x.Args))
	for i, a := range x.Args {
		ea, ok := a.(*ast.ExprArg)
		if !ok {
			return nil, c.unsupported(a, "this function argument")
		}
		out[i] = ea.Expr
	}
	return out, nil
}

// argTypes compiles arguments; hints[i] (if any) types parameters and literals.
func (c *compiler) argExprs(args []ast.Expr, sc *scope, hints ...*spannerpb.Type) ([]expr, error) {
	out := make([]expr, len(args))
	for i, a := range args {
		var h *spannerpb.Type
		if i < len(hints) {
			h = hints[i]
		}
		e, err := c.expr(a, sc, h)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func (c *compiler) call(x *ast.CallExpr, sc *scope, hint *spannerpb.Type) (expr, error) {
	name := upper(x.Func.SQL())
	name = strings.TrimPrefix(name, "SAFE.")
	args, err := c.callArgs(x)
	if err != nil {
		return expr{}, err
	}
	if aggregates[name] {
		return c.aggregate(x, name, args, sc)
	}
	if x.Distinct {
		return expr{}, c.invalid(x, "DISTINCT is only allowed in aggregate functions")
	}
	if f, ok := simpleFuncs[name]; ok {
		return c.simpleCall(x, name, f, args, sc)
	}
	nargs := func(min, max int) error {
		if len(args) < min || len(args) > max {
			return c.invalid(x, "Number of arguments does not match for function %s", name)
		}
		return nil
	}
	sig := func(es []expr) error {
		ts := make([]string, len(es))
		for i, e := range es {
			ts[i] = typeName(e.t)
		}
		return c.invalid(x, "No matching signature for function %s for argument types: %s", name, strings.Join(ts, ", "))
	}
	fn := func(sqlName string, t *spannerpb.Type, es []expr) expr {
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = e.sql
		}
		return expr{sql: sqlName + "(" + strings.Join(parts, ", ") + ")", t: t}
	}
	is := func(e expr, codes ...spannerpb.TypeCode) bool {
		if e.t == nil {
			return true
		}
		for _, cd := range codes {
			if code(e.t) == cd {
				return true
			}
		}
		return false
	}
	const (
		I64 = spannerpb.TypeCode_INT64
		F64 = spannerpb.TypeCode_FLOAT64
		F32 = spannerpb.TypeCode_FLOAT32
		STR = spannerpb.TypeCode_STRING
		BYT = spannerpb.TypeCode_BYTES
		TS  = spannerpb.TypeCode_TIMESTAMP
		DT  = spannerpb.TypeCode_DATE
		BL  = spannerpb.TypeCode_BOOL
		ARR = spannerpb.TypeCode_ARRAY
	)

	switch name {
	case "CURRENT_TIMESTAMP":
		if err := nargs(0, 0); err != nil {
			return expr{}, err
		}
		return c.current(x, false)
	case "CURRENT_DATE":
		if err := nargs(0, 1); err != nil {
			return expr{}, err
		}
		return c.current(x, true)
	case "PENDING_COMMIT_TIMESTAMP":
		if err := nargs(0, 0); err != nil {
			return expr{}, err
		}
		if !c.pendingTS {
			return expr{}, c.invalid(x, "The PENDING_COMMIT_TIMESTAMP() function may only be used as a value for INSERT or UPDATE of an appropriately typed column")
		}
		return expr{sql: sqlString(CommitTimestampMarker), t: tTimestamp}, nil
	case "GENERATE_UUID":
		if err := nargs(0, 0); err != nil {
			return expr{}, err
		}
		if c.colExpr {
			return expr{}, c.invalid(x, "GENERATE_UUID() is not allowed in a generated column")
		}
		return expr{sql: "sp_uuid()", t: tString}, nil
	case "MOD", "DIV":
		if err := nargs(2, 2); err != nil {
			return expr{}, err
		}
		a, b, err := c.pair(args[0], args[1], sc)
		if err != nil {
			return expr{}, err
		}
		if !is(a, I64) || !is(b, I64) {
			return expr{}, sig([]expr{a, b})
		}
		f := "sp_mod"
		if name == "DIV" {
			f = "sp_idiv"
		}
		return fn(f, tInt64, []expr{a, b}), nil
	case "SAFE_DIVIDE", "IEEE_DIVIDE", "SAFE_ADD", "SAFE_SUBTRACT", "SAFE_MULTIPLY":
		if err := nargs(2, 2); err != nil {
			return expr{}, err
		}
		a, b, err := c.pair(args[0], args[1], sc)
		if err != nil {
			return expr{}, err
		}
		if (a.t != nil && !isNumeric(a.t)) || (b.t != nil && !isNumeric(b.t)) || code(a.t) == spannerpb.TypeCode_NUMERIC || code(b.t) == spannerpb.TypeCode_NUMERIC {
			return expr{}, sig([]expr{a, b})
		}
		t, _ := commonType(a.t, b.t)
		switch {
		case name == "SAFE_DIVIDE" || name == "IEEE_DIVIDE":
			t = tFloat64
		case t == nil:
			t = tInt64
		}
		op := map[string]string{"SAFE_DIVIDE": "/", "IEEE_DIVIDE": "ieee/", "SAFE_ADD": "+", "SAFE_SUBTRACT": "-", "SAFE_MULTIPLY": "*"}[name]
		return expr{sql: "sp_safe_op(" + a.sql + ", " + b.sql + ", '" + op + "', " + sqlString(typeName(t)) + ")", t: t}, nil
	case "SAFE_NEGATE":
		if err := nargs(1, 1); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args, sc, tInt64)
		if err != nil {
			return expr{}, err
		}
		if !is(es[0], I64, F64, F32) {
			return expr{}, sig(es)
		}
		t := es[0].t
		if t == nil {
			t = tInt64
		}
		return expr{sql: "sp_safe_op(0, " + es[0].sql + ", '-', " + sqlString(typeName(t)) + ")", t: t}, nil
	case "ABS", "SIGN":
		if err := nargs(1, 1); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args, sc, tInt64)
		if err != nil {
			return expr{}, err
		}
		if !is(es[0], I64, F64, F32) {
			return expr{}, sig(es)
		}
		t := es[0].t
		if t == nil {
			t = tInt64
		}
		e := fn(strings.ToLower(name), t, es)
		if isFloat(t) && name == "SIGN" {
			e.sql = "CAST(" + e.sql + " AS REAL)"
		}
		return e, nil
	case "GREATEST", "LEAST":
		if len(args) == 0 {
			return expr{}, nargs(1, 1)
		}
		sqlName := "max"
		if name == "LEAST" {
			sqlName = "min"
		}
		if len(args) == 1 {
			e, err := c.expr(args[0], sc, hint)
			return e, err
		}
		pieces := []string{sqlName + "("}
		for range args[1:] {
			pieces = append(pieces, ", ")
		}
		pieces = append(pieces, ")")
		return c.branches(x, pieces, args, sc, hint)
	case "COALESCE", "IFNULL":
		if len(args) == 0 || (name == "IFNULL" && len(args) != 2) {
			return expr{}, nargs(2, 2)
		}
		if len(args) == 1 {
			return c.expr(args[0], sc, hint)
		}
		pieces := []string{"coalesce("}
		for range args[1:] {
			pieces = append(pieces, ", ")
		}
		pieces = append(pieces, ")")
		return c.branches(x, pieces, args, sc, hint)
	case "NULLIF":
		if err := nargs(2, 2); err != nil {
			return expr{}, err
		}
		a, b, err := c.pair(args[0], args[1], sc)
		if err != nil {
			return expr{}, err
		}
		if _, ok := commonType(a.t, b.t); !ok {
			return expr{}, sig([]expr{a, b})
		}
		return expr{sql: "nullif(" + a.sql + ", " + b.sql + ")", t: a.t}, nil
	case "IF":
		if err := nargs(3, 3); err != nil {
			return expr{}, err
		}
		cond, err := c.boolExpr(args[0], sc, "IF condition")
		if err != nil {
			return expr{}, err
		}
		return c.branches(x, []string{"CASE WHEN " + cond.sql + " THEN ", " ELSE ", " END"}, args[1:], sc, hint)
	case "CONCAT":
		es, err := c.argExprs(args, sc)
		if err != nil {
			return expr{}, err
		}
		if len(es) == 0 {
			return expr{}, nargs(1, 1)
		}
		return c.concat(x, es)
	case "ERROR":
		if err := nargs(1, 1); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args, sc, tString)
		if err != nil {
			return expr{}, err
		}
		return expr{sql: "sp_error(" + es[0].sql + ")", t: hint}, nil
	case "TIMESTAMP_ADD", "TIMESTAMP_SUB", "DATE_ADD", "DATE_SUB":
		if err := nargs(2, 2); err != nil {
			return expr{}, err
		}
		want := tTimestamp
		if strings.HasPrefix(name, "DATE") {
			want = tDate
		}
		es, err := c.argExprs(args[:1], sc, want)
		if err != nil {
			return expr{}, err
		}
		if es[0].t != nil && !sameType(es[0].t, want) {
			return expr{}, sig(es)
		}
		iv, ok := args[1].(*ast.IntervalLiteralSingle)
		if !ok {
			return expr{}, c.unsupported(args[1], name+" with this interval (use INTERVAL n PART)")
		}
		n, err := c.intervalValue(iv, sc)
		if err != nil {
			return expr{}, err
		}
		part := string(iv.DateTimePart)
		sign := "1"
		if strings.HasSuffix(name, "_SUB") {
			sign = "-1"
		}
		f := "sp_ts_add"
		valid := sqlfn.IsFixedPart(part)
		if want == tDate {
			f = "sp_date_add"
			valid = part == "DAY" || part == "WEEK" || part == "MONTH" || part == "QUARTER" || part == "YEAR"
		}
		if !valid {
			return expr{}, c.invalid(iv, "Unsupported date part %s in %s", part, name)
		}
		return expr{sql: f + "(" + es[0].sql + ", " + n + ", '" + part + "', " + sign + ")", t: want}, nil
	case "TIMESTAMP_DIFF", "DATE_DIFF":
		if err := nargs(3, 3); err != nil {
			return expr{}, err
		}
		want := tTimestamp
		f := "sp_ts_diff"
		if name == "DATE_DIFF" {
			want, f = tDate, "sp_date_diff"
		}
		a, b, err := c.pair(args[0], args[1], sc)
		if err != nil {
			return expr{}, err
		}
		for _, e := range []expr{a, b} {
			if e.t != nil && !sameType(e.t, want) {
				return expr{}, sig([]expr{a, b})
			}
		}
		part, err := c.datePart(args[2])
		if err != nil {
			return expr{}, err
		}
		if want == tTimestamp && !sqlfn.IsFixedPart(part) {
			return expr{}, c.invalid(args[2], "Unsupported date part %s in TIMESTAMP_DIFF", part)
		}
		return expr{sql: f + "(" + a.sql + ", " + b.sql + ", '" + part + "')", t: tInt64}, nil
	case "TIMESTAMP_TRUNC":
		if err := nargs(2, 3); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args[:1], sc, tTimestamp)
		if err != nil {
			return expr{}, err
		}
		if !is(es[0], TS) {
			return expr{}, sig(es)
		}
		part, err := c.datePart(args[1])
		if err != nil {
			return expr{}, err
		}
		zone := "NULL"
		if len(args) == 3 {
			z, err := c.expr(args[2], sc, tString)
			if err != nil {
				return expr{}, err
			}
			zone = z.sql
		}
		if !sqlfn.TruncPartOK(part) {
			return expr{}, c.invalid(args[1], "Unsupported date part %s in TIMESTAMP_TRUNC", part)
		}
		return expr{sql: "sp_ts_trunc(" + es[0].sql + ", '" + part + "', " + zone + ")", t: tTimestamp}, nil
	case "TIMESTAMP":
		if err := nargs(1, 2); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args, sc, tString, tString)
		if err != nil {
			return expr{}, err
		}
		switch {
		case len(es) == 1 && is(es[0], TS):
			return expr{sql: es[0].sql, t: tTimestamp}, nil
		case len(es) == 1 && is(es[0], STR, DT):
			return expr{sql: "sp_cast(" + es[0].sql + ", '" + typeName(es[0].t) + "', 'TIMESTAMP')", t: tTimestamp}, nil
		}
		return expr{}, c.unsupported(x, "TIMESTAMP() with a time zone argument")
	case "DATE":
		es, err := c.argExprs(args, sc, tTimestamp, tString)
		if err != nil {
			return expr{}, err
		}
		switch {
		case len(es) == 3:
			for _, e := range es {
				if !is(e, I64) {
					return expr{}, sig(es)
				}
			}
			return expr{sql: "sp_cast(printf('%04d-%02d-%02d', " + es[0].sql + ", " + es[1].sql + ", " + es[2].sql + "), 'STRING', 'DATE')", t: tDate}, nil
		case len(es) >= 1 && len(es) <= 2 && is(es[0], TS):
			zone := sqlString(sqlfn.DefaultZoneName)
			if len(es) == 2 {
				zone = es[1].sql
			}
			return expr{sql: "sp_extract('DATE', " + es[0].sql + ", 'TIMESTAMP', " + zone + ")", t: tDate}, nil
		case len(es) == 1 && is(es[0], DT):
			return expr{sql: es[0].sql, t: tDate}, nil
		}
		return expr{}, sig(es)
	case "ARRAY":
		return expr{}, c.unsupported(x, "ARRAY() without a subquery")
	case "FORMAT_TIMESTAMP", "FORMAT_DATE":
		want, n := tTimestamp, 3
		if name == "FORMAT_DATE" {
			want, n = tDate, 2
		}
		if err := nargs(2, n); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args, sc, tString, want, tString)
		if err != nil {
			return expr{}, err
		}
		if !is(es[0], STR) || (es[1].t != nil && !sameType(es[1].t, want)) || (len(es) == 3 && !is(es[2], STR)) {
			return expr{}, sig(es)
		}
		zone := "NULL"
		if len(es) == 3 {
			zone = es[2].sql
		}
		return expr{sql: "sp_format_time(" + es[0].sql + ", " + es[1].sql + ", '" + typeName(want) + "', " + zone + ")", t: tString}, nil
	case "FORMAT":
		if len(args) == 0 {
			return expr{}, nargs(1, 1)
		}
		es, err := c.argExprs(args, sc, tString)
		if err != nil {
			return expr{}, err
		}
		if !is(es[0], STR) {
			return expr{}, sig(es)
		}
		kinds := make([]string, 0, len(es)-1)
		parts := []string{es[0].sql, ""}
		for _, e := range es[1:] {
			if code(e.t) == spannerpb.TypeCode_ARRAY || code(e.t) == spannerpb.TypeCode_STRUCT {
				return expr{}, c.unsupported(x, "FORMAT of "+typeName(e.t)+" values")
			}
			kinds = append(kinds, typeName(e.t))
			parts = append(parts, e.sql)
		}
		parts[1] = sqlString(strings.Join(kinds, ","))
		return expr{sql: "sp_format(" + strings.Join(parts, ", ") + ")", t: tString}, nil
	case "TO_JSON_STRING":
		if err := nargs(1, 1); err != nil {
			return expr{}, err
		}
		es, err := c.argExprs(args, sc)
		if err != nil {
			return expr{}, err
		}
		if code(es[0].t) == spannerpb.TypeCode_STRUCT {
			return expr{}, sig(es)
		}
		return expr{sql: "sp_to_json_string(" + es[0].sql + ", '" + typeName(es[0].t) + "')", t: tString}, nil
	}
	if m, ok := mathFuncs[name]; ok {
		es, err := c.argExprs(args, sc, tFloat64, tInt64)
		if err != nil {
			return expr{}, err
		}
		max := 1
		if m == "ROUND" || m == "TRUNC" || m == "LOG" || m == "POW" {
			max = 2
		}
		min := 1
		if m == "POW" {
			min = 2
		}
		if err := nargs(min, max); err != nil {
			return expr{}, err
		}
		for _, e := range es {
			if !is(e, I64, F64, F32) {
				return expr{}, sig(es)
			}
		}
		parts := []string{"'" + m + "'"}
		for _, e := range es {
			parts = append(parts, e.sql)
		}
		return expr{sql: "sp_math(" + strings.Join(parts, ", ") + ")", t: tFloat64}, nil
	}
	return expr{}, c.invalid(x.Func, "Function not found: %s", x.Func.SQL())
}

func (c *compiler) datePart(e ast.Expr) (string, error) {
	switch p := e.(type) {
	case *ast.Ident:
		return upper(p.Name), nil
	case *ast.Path:
		return upper(p.SQL()), nil
	}
	return "", c.invalid(e, "A valid date part name is required")
}

func (c *compiler) intervalValue(iv *ast.IntervalLiteralSingle, sc *scope) (string, error) {
	switch v := iv.Value.(type) {
	case *ast.IntLiteral:
		n, err := parseIntLiteral(v.Value, v.Base)
		if err != nil {
			return "", c.invalid(v, "Invalid integer literal: %s", v.Value)
		}
		return itoa(n), nil
	case *ast.Param:
		e, err := c.param(v, tInt64)
		if err != nil {
			return "", err
		}
		if code(e.t) != spannerpb.TypeCode_INT64 {
			return "", c.invalid(v, "INTERVAL value must be INT64, got %s", typeName(e.t))
		}
		return e.sql, nil
	case *ast.CastIntValue:
		return c.intervalValue(&ast.IntervalLiteralSingle{Value: v.Expr, DateTimePart: iv.DateTimePart}, sc)
	}
	return "", c.unsupported(iv, "this INTERVAL value")
}

func (c *compiler) aggregate(x *ast.CallExpr, name string, args []ast.Expr, sc *scope) (expr, error) {
	if c.colExpr {
		return expr{}, c.invalid(x, "Aggregate function %s not allowed here", name)
	}
	if len(args) == 0 || len(args) > 2 || (len(args) == 2 && name != "STRING_AGG") {
		return expr{}, c.invalid(x, "Number of arguments does not match for aggregate function %s", name)
	}
	if c.grouping != nil {
		c.grouping.aggSeen = true
	}
	c.aggDepth++
	a, err := c.expr(args[0], sc, nil)
	c.aggDepth--
	if err != nil {
		return expr{}, err
	}
	distinct := ""
	if x.Distinct {
		distinct = "DISTINCT "
	}
	bad := func() (expr, error) {
		return expr{}, c.invalid(x, "No matching signature for aggregate function %s for argument type %s", name, typeName(a.t))
	}
	switch name {
	case "COUNT":
		return expr{sql: "count(" + distinct + a.sql + ")", t: tInt64}, nil
	case "SUM", "AVG":
		if code(a.t) == spannerpb.TypeCode_NUMERIC {
			return expr{sql: "sp_numeric_" + strings.ToLower(name) + "(" + distinct + a.sql + ")", t: tNumeric}, nil
		}
	}
	switch name {
	case "SUM":
		switch {
		case intOrNull(a.t):
			return expr{sql: "sum(" + distinct + a.sql + ")", t: tInt64}, nil
		case isFloat(a.t):
			return expr{sql: "sum(" + distinct + a.sql + ")", t: tFloat64}, nil
		}
		return bad()
	case "AVG":
		if !intOrNull(a.t) && !isFloat(a.t) {
			return bad()
		}
		return expr{sql: "avg(" + distinct + a.sql + ")", t: tFloat64}, nil
	case "MIN", "MAX", "ANY_VALUE":
		if !comparable(a.t) && name != "ANY_VALUE" {
			return bad()
		}
		f := strings.ToLower(name)
		if name == "ANY_VALUE" {
			f = "max"
		}
		if code(a.t) == spannerpb.TypeCode_NUMERIC {
			return expr{sql: "sp_numeric_unkey(" + f + "(" + distinct + "sp_numeric_key(" + a.sql + ")))", t: a.t}, nil
		}
		return expr{sql: f + "(" + distinct + a.sql + ")", t: a.t}, nil
	case "COUNTIF":
		if a.t != nil && code(a.t) != spannerpb.TypeCode_BOOL {
			return bad()
		}
		return expr{sql: "count(" + distinct + "CASE WHEN " + a.sql + " THEN 1 END)", t: tInt64}, nil
	case "LOGICAL_AND", "LOGICAL_OR":
		if a.t != nil && code(a.t) != spannerpb.TypeCode_BOOL {
			return bad()
		}
		f := "min"
		if name == "LOGICAL_OR" {
			f = "max"
		}
		return expr{sql: f + "(" + a.sql + ")", t: tBool}, nil
	case "BIT_AND", "BIT_OR":
		return expr{}, c.unsupported(x, name)
	case "STRING_AGG":
		if a.t != nil && code(a.t) != spannerpb.TypeCode_STRING {
			return bad()
		}
		sep := "','"
		if len(args) == 2 {
			s, err := c.expr(args[1], sc, tString)
			if err != nil {
				return expr{}, err
			}
			sep = s.sql
		}
		if distinct != "" && len(args) == 2 {
			return expr{}, c.unsupported(x, "STRING_AGG(DISTINCT ..., separator)")
		}
		if distinct != "" {
			return expr{sql: "group_concat(DISTINCT " + a.sql + ")", t: tString}, nil
		}
		return expr{sql: "group_concat(" + a.sql + ", " + sep + ")", t: tString}, nil
	case "ARRAY_AGG":
		elem := a.t
		if elem == nil {
			elem = tInt64
		}
		if code(elem) == spannerpb.TypeCode_ARRAY || code(elem) == spannerpb.TypeCode_STRUCT {
			return bad()
		}
		return expr{sql: "json_group_array(" + distinct + elemToJSON(a.sql, elem) + ")", t: arrayOf(elem)}, nil
	}
	return bad()
}

var _ = value.TypeString
