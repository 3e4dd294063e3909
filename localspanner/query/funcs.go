package query

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"

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

// namedArgs lists the functions that take named arguments, and their names.
var namedArgs = map[string][]string{"PARSE_JSON": {"wide_number_mode"}}

func (c *compiler) callArgs(x *ast.CallExpr, name string) ([]ast.Expr, error) {
	if len(x.NamedArgs) > 0 && namedArgs[name] == nil || x.NullHandling != nil || x.Having != nil || x.OrderBy != nil || x.Limit != nil {
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

// callSite is one function call being compiled, with the checks every function
// family shares.
type callSite struct {
	c    *compiler
	x    *ast.CallExpr
	name string // upper case, SAFE. prefix removed
	args []ast.Expr
	sc   *scope
	hint *spannerpb.Type
}

// nargs fails unless the call has between min and max arguments.
func (k *callSite) nargs(min, max int) error {
	if len(k.args) < min || len(k.args) > max {
		return k.c.invalid(k.x, "Number of arguments does not match for function %s", k.name)
	}
	return nil
}

// sig is the error for arguments of types no signature of the function takes.
func (k *callSite) sig(es []expr) error {
	ts := make([]string, len(es))
	for i, e := range es {
		ts[i] = typeName(e.t)
	}
	return k.c.invalid(k.x, "No matching signature for function %s for argument types: %s", k.name, strings.Join(ts, ", "))
}

// fnCall is the SQLite call sqlName(es...) of type t.
func fnCall(sqlName string, t *spannerpb.Type, es []expr) expr {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.sql
	}
	return expr{sql: sqlName + "(" + strings.Join(parts, ", ") + ")", t: t}
}

// hasType reports whether e is untyped (NULL, an untyped parameter) or of one of codes.
func hasType(e expr, codes ...spannerpb.TypeCode) bool {
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

// Type codes the function families check arguments against.
const (
	tcInt64     = spannerpb.TypeCode_INT64
	tcFloat64   = spannerpb.TypeCode_FLOAT64
	tcFloat32   = spannerpb.TypeCode_FLOAT32
	tcString    = spannerpb.TypeCode_STRING
	tcTimestamp = spannerpb.TypeCode_TIMESTAMP
	tcDate      = spannerpb.TypeCode_DATE
)

// funcFamily compiles the calls of one family of functions.
type funcFamily func(c *compiler, k *callSite) (expr, error)

// funcFamilies lists the scalar functions that are neither aggregates nor
// simpleFuncs, one entry per family: the names it compiles and how.
var funcFamilies = []struct {
	names   []string
	compile funcFamily
}{
	{[]string{"CURRENT_TIMESTAMP", "CURRENT_DATE"}, callCurrent},
	{[]string{"PENDING_COMMIT_TIMESTAMP"}, callPendingCommitTimestamp},
	{[]string{"GENERATE_UUID", "NEW_UUID"}, callGenerateUUID},
	{[]string{"MOD", "DIV"}, callIntDivision},
	{[]string{"SAFE_DIVIDE", "IEEE_DIVIDE", "SAFE_ADD", "SAFE_SUBTRACT", "SAFE_MULTIPLY"}, callSafeArithmetic},
	{[]string{"SAFE_NEGATE"}, callSafeNegate},
	{[]string{"ABS", "SIGN"}, callAbsSign},
	{[]string{"IS_NAN", "IS_INF"}, callIsNaNInf},
	{[]string{"GREATEST", "LEAST"}, callGreatestLeast},
	{[]string{"COALESCE", "IFNULL"}, callCoalesce},
	{[]string{"NULLIF"}, callNullif},
	{[]string{"IF"}, callIf},
	{[]string{"CONCAT"}, callConcat},
	{[]string{"ERROR"}, callError},
	{[]string{"TIMESTAMP_ADD", "TIMESTAMP_SUB", "DATE_ADD", "DATE_SUB"}, callDateAdd},
	{[]string{"TIMESTAMP_DIFF", "DATE_DIFF"}, callDateDiff},
	{[]string{"TIMESTAMP_TRUNC"}, callTimestampTrunc},
	{[]string{"TIMESTAMP"}, callTimestamp},
	{[]string{"DATE"}, callDate},
	{[]string{"ARRAY"}, callArray},
	{[]string{"FORMAT_TIMESTAMP", "FORMAT_DATE"}, callFormatTime},
	{[]string{"FORMAT"}, callFormat},
	{[]string{"TO_JSON_STRING"}, callToJSONString},
	{[]string{"PARSE_JSON"}, callParseJSON},
	{mathNames(), callMath},
}

func mathNames() []string {
	names := make([]string, 0, len(mathFuncs))
	for name := range mathFuncs {
		names = append(names, name)
	}
	return names
}

// funcByName indexes funcFamilies by function name. It is filled in init: the
// families call back into the compiler, which reads it.
var funcByName map[string]funcFamily

func init() {
	funcByName = map[string]funcFamily{}
	for _, f := range funcFamilies {
		for _, name := range f.names {
			funcByName[name] = f.compile
		}
	}
}

func (c *compiler) call(x *ast.CallExpr, sc *scope, hint *spannerpb.Type) (expr, error) {
	name := upper(x.Func.SQL())
	if strings.HasPrefix(name, "SAFE.") {
		name = strings.TrimPrefix(name, "SAFE.")
		e, err := c.unsafeCall(x, name, sc, hint)
		if err != nil {
			return expr{}, err
		}
		return c.safeCall(x, name, e)
	}
	return c.unsafeCall(x, name, sc, hint)
}

// unsafeCall compiles a call of the function name (without its SAFE. prefix).
func (c *compiler) unsafeCall(x *ast.CallExpr, name string, sc *scope, hint *spannerpb.Type) (expr, error) {
	args, err := c.callArgs(x, name)
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
	if f, ok := funcByName[name]; ok {
		return f(c, &callSite{c: c, x: x, name: name, args: args, sc: sc, hint: hint})
	}
	return expr{}, c.invalid(x.Func, "Function not found: %s", x.Func.SQL())
}

func callGenerateUUID(c *compiler, k *callSite) (expr, error) {
	if err := k.nargs(0, 0); err != nil {
		return expr{}, err
	}
	// In a column expression, DEFAULT (NEW_UUID()) is Spanner's usual UUID key; a
	// generated column cannot use it: SQLite refuses the non-deterministic sp_uuid there.
	t := tString
	if k.name == "NEW_UUID" {
		t = tUUID
	}
	return expr{sql: "sp_uuid()", t: t}, nil
}

// pair compiles the two arguments of a two-argument function to a common type.
func (k *callSite) pair(c *compiler) (a, b expr, err error) {
	if err := k.nargs(2, 2); err != nil {
		return expr{}, expr{}, err
	}
	return c.pair(k.args[0], k.args[1], k.sc)
}

func callIntDivision(c *compiler, k *callSite) (expr, error) {
	name := k.name
	a, b, err := k.pair(c)
	if err != nil {
		return expr{}, err
	}
	if !hasType(a, tcInt64) || !hasType(b, tcInt64) {
		return expr{}, k.sig([]expr{a, b})
	}
	f := "sp_mod"
	if name == "DIV" {
		f = "sp_idiv"
	}
	return fnCall(f, tInt64, []expr{a, b}), nil
}

func callSafeArithmetic(c *compiler, k *callSite) (expr, error) {
	name := k.name
	a, b, err := k.pair(c)
	if err != nil {
		return expr{}, err
	}
	if (a.t != nil && !isNumeric(a.t)) || (b.t != nil && !isNumeric(b.t)) || code(a.t) == spannerpb.TypeCode_NUMERIC || code(b.t) == spannerpb.TypeCode_NUMERIC {
		return expr{}, k.sig([]expr{a, b})
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
}

// numberArg compiles the one INT64 or floating-point argument of ABS, SIGN and
// SAFE_NEGATE; an untyped NULL argument is INT64.
func (k *callSite) numberArg(c *compiler) (expr, error) {
	if err := k.nargs(1, 1); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(k.args, k.sc, tInt64)
	if err != nil {
		return expr{}, err
	}
	if !hasType(es[0], tcInt64, tcFloat64, tcFloat32) {
		return expr{}, k.sig(es)
	}
	if es[0].t == nil {
		es[0].t = tInt64
	}
	return es[0], nil
}

func callSafeNegate(c *compiler, k *callSite) (expr, error) {
	a, err := k.numberArg(c)
	if err != nil {
		return expr{}, err
	}
	return expr{sql: "sp_safe_op(0, " + a.sql + ", '-', " + sqlString(typeName(a.t)) + ")", t: a.t}, nil
}

func callAbsSign(c *compiler, k *callSite) (expr, error) {
	a, err := k.numberArg(c)
	if err != nil {
		return expr{}, err
	}
	e := fnCall(strings.ToLower(k.name), a.t, []expr{a})
	if isFloat(a.t) && k.name == "SIGN" {
		e.sql = "CAST(" + e.sql + " AS REAL)"
	}
	e.sql = nanGuard(a, e.sql)
	return e, nil
}

func callGreatestLeast(c *compiler, k *callSite) (expr, error) {
	name, args, sc, hint := k.name, k.args, k.sc, k.hint
	if len(args) == 0 {
		return expr{}, k.nargs(1, 1)
	}
	sqlName := "max"
	if name == "LEAST" {
		sqlName = "min"
	}
	if len(args) == 1 {
		e, err := c.expr(args[0], sc, hint)
		return e, err
	}
	parts, t, err := c.branchParts(args, sc, hint)
	if err != nil {
		return expr{}, err
	}
	list := strings.Join(parts, ", ")
	e := expr{sql: sqlName + "(" + list + ")", t: t}
	if isFloat(t) {
		// SQLite's min/max order the TEXT 'NaN' above every number; GoogleSQL's result
		// is NULL if an argument is NULL, else NaN if one is NaN.
		e.sql = "(CASE WHEN " + e.sql + " IS NULL THEN NULL WHEN 'NaN' IN (" + list + ") THEN 'NaN' ELSE " + e.sql + " END)"
	}
	return e, nil
}

func callCoalesce(c *compiler, k *callSite) (expr, error) {
	x, name, args, sc, hint := k.x, k.name, k.args, k.sc, k.hint
	if len(args) == 0 || (name == "IFNULL" && len(args) != 2) {
		return expr{}, k.nargs(2, 2)
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
}

func callNullif(c *compiler, k *callSite) (expr, error) {
	a, b, err := k.pair(c)
	if err != nil {
		return expr{}, err
	}
	if _, ok := commonType(a.t, b.t); !ok {
		return expr{}, k.sig([]expr{a, b})
	}
	return expr{sql: "nullif(" + a.sql + ", " + b.sql + ")", t: a.t}, nil
}

func callIf(c *compiler, k *callSite) (expr, error) {
	x, args, sc, hint := k.x, k.args, k.sc, k.hint
	if err := k.nargs(3, 3); err != nil {
		return expr{}, err
	}
	cond, err := c.boolExpr(args[0], sc, "IF condition")
	if err != nil {
		return expr{}, err
	}
	return c.branches(x, []string{"CASE WHEN " + cond.sql + " THEN ", " ELSE ", " END"}, args[1:], sc, hint)
}

func callConcat(c *compiler, k *callSite) (expr, error) {
	x, args, sc := k.x, k.args, k.sc
	es, err := c.argExprs(args, sc)
	if err != nil {
		return expr{}, err
	}
	if len(es) == 0 {
		return expr{}, k.nargs(1, 1)
	}
	return c.concat(x, es)
}

func callError(c *compiler, k *callSite) (expr, error) {
	args, sc, hint := k.args, k.sc, k.hint
	if err := k.nargs(1, 1); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(args, sc, tString)
	if err != nil {
		return expr{}, err
	}
	return expr{sql: "sp_error(" + es[0].sql + ")", t: hint}, nil
}

func callArray(c *compiler, k *callSite) (expr, error) {
	x := k.x
	return expr{}, c.unsupported(x, "ARRAY() without a subquery")
}

func callFormat(c *compiler, k *callSite) (expr, error) {
	x, args, sc := k.x, k.args, k.sc
	if len(args) == 0 {
		return expr{}, k.nargs(1, 1)
	}
	es, err := c.argExprs(args, sc, tString)
	if err != nil {
		return expr{}, err
	}
	if !hasType(es[0], tcString) {
		return expr{}, k.sig(es)
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
}

func callToJSONString(c *compiler, k *callSite) (expr, error) {
	args, sc := k.args, k.sc
	if err := k.nargs(1, 1); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(args, sc)
	if err != nil {
		return expr{}, err
	}
	if code(es[0].t) == spannerpb.TypeCode_STRUCT {
		return expr{}, k.sig(es)
	}
	return expr{sql: "sp_to_json_string(" + es[0].sql + ", '" + typeName(es[0].t) + "')", t: tString}, nil
}

// callParseJSON compiles PARSE_JSON(json_string_expr[, wide_number_mode=>mode]), mode
// 'exact' (the default: a number that does not round-trip through a double is an
// error) or 'round' (it becomes the nearest double), as GoogleSQL's JSON functions
// define it; sp_parse_json checks the mode and the text when the row is read.
func callParseJSON(c *compiler, k *callSite) (expr, error) {
	if err := k.nargs(1, 1); err != nil {
		return expr{}, err
	}
	args := []ast.Expr{k.args[0], &ast.StringLiteral{Value: "exact"}}
	for _, na := range k.x.NamedArgs {
		if !strings.EqualFold(na.Name.Name, "wide_number_mode") {
			return expr{}, c.invalid(na, "Named argument %s not found in signature for call to function PARSE_JSON", na.Name.Name)
		}
		args[1] = na.Value
	}
	es, err := c.argExprs(args, k.sc, tString, tString)
	if err != nil {
		return expr{}, err
	}
	if !hasType(es[0], tcString) || !hasType(es[1], tcString) {
		return expr{}, k.sig(es[:1+len(k.x.NamedArgs)])
	}
	return fnCall("sp_parse_json", tJSON, es), nil
}

// callMath compiles the mathFuncs (ROUND, SQRT, POW, ...).
func callMath(c *compiler, k *callSite) (expr, error) {
	m := mathFuncs[k.name]
	args, sc := k.args, k.sc
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
	if err := k.nargs(min, max); err != nil {
		return expr{}, err
	}
	for _, e := range es {
		if !hasType(e, tcInt64, tcFloat64, tcFloat32) {
			return expr{}, k.sig(es)
		}
	}
	parts := []string{"'" + m + "'"}
	for _, e := range es {
		parts = append(parts, e.sql)
	}
	return expr{sql: "sp_math(" + strings.Join(parts, ", ") + ")", t: tFloat64}, nil
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
	if isFloat(a.t) && (name == "SUM" || name == "AVG" || name == "MIN" || name == "MAX") {
		return floatAggregate(name, distinct, a), nil
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
		if code(elem) == spannerpb.TypeCode_ARRAY {
			return bad()
		}
		return expr{sql: "json_group_array(" + distinct + elemToJSON(a.sql, elem) + ")", t: arrayOf(elem)}, nil
	}
	return bad()
}

var _ = value.TypeString
