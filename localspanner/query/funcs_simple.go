package query

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
)

// argKind is what one argument of a simple function accepts.
type argKind int

const (
	argText  argKind = iota // STRING or BYTES; all argText arguments share one type
	argStr                  // STRING
	argInt                  // INT64
	argBytes                // BYTES
	argTS                   // TIMESTAMP
	argArray                // any ARRAY
	argJSON                 // JSON
)

func (k argKind) hint() *spannerpb.Type {
	switch k {
	case argInt:
		return tInt64
	case argBytes:
		return tBytes
	case argTS:
		return tTimestamp
	case argArray:
		return nil
	case argJSON:
		return tJSON
	}
	return tString
}

func (k argKind) accepts(t *spannerpb.Type) bool {
	if t == nil {
		return true
	}
	switch k {
	case argText:
		return code(t) == spannerpb.TypeCode_STRING || code(t) == spannerpb.TypeCode_BYTES
	case argStr:
		return code(t) == spannerpb.TypeCode_STRING
	case argInt:
		return code(t) == spannerpb.TypeCode_INT64
	case argBytes:
		return code(t) == spannerpb.TypeCode_BYTES
	case argTS:
		return code(t) == spannerpb.TypeCode_TIMESTAMP
	case argArray:
		return code(t) == spannerpb.TypeCode_ARRAY
	case argJSON:
		return code(t) == spannerpb.TypeCode_JSON
	}
	return false
}

// simpleFunc is a scalar function whose arguments are checked by kind and whose SQL
// is a call with the compiled arguments.
type simpleFunc struct {
	args   []argKind       // one per position; len(args) is the maximum count
	min    int             // minimum argument count
	result *spannerpb.Type // nil: the common type of the argText arguments
	// emit builds the SQL from the compiled arguments; nil: fn(args...).
	emit func(args []string) string
	fn   string
}

func call(fn string) func(args []string) string {
	return func(args []string) string { return fn + "(" + strings.Join(args, ", ") + ")" }
}

func constFirst(fn, first string) func(args []string) string {
	return func(args []string) string {
		return fn + "(" + strings.Join(append([]string{first}, args...), ", ") + ")"
	}
}

func withLast(fn, last string) func(args []string) string {
	return func(args []string) string { return fn + "(" + strings.Join(append(args, last), ", ") + ")" }
}

var simpleFuncs = map[string]simpleFunc{
	"LOWER":            {args: []argKind{argText}, min: 1, fn: "sp_lower"},
	"UPPER":            {args: []argKind{argText}, min: 1, fn: "sp_upper"},
	"LENGTH":           {args: []argKind{argText}, min: 1, result: tInt64, fn: "length"},
	"CHAR_LENGTH":      {args: []argKind{argText}, min: 1, result: tInt64, fn: "length"},
	"CHARACTER_LENGTH": {args: []argKind{argText}, min: 1, result: tInt64, fn: "length"},
	"BYTE_LENGTH":      {args: []argKind{argText}, min: 1, result: tInt64, emit: func(a []string) string { return "length(CAST(" + a[0] + " AS BLOB))" }},
	"SUBSTR":           {args: []argKind{argText, argInt, argInt}, min: 2, fn: "sp_substr"},
	"SUBSTRING":        {args: []argKind{argText, argInt, argInt}, min: 2, fn: "sp_substr"},
	"STARTS_WITH":      {args: []argKind{argText, argText}, min: 2, result: tBool, fn: "sp_starts_with"},
	"ENDS_WITH":        {args: []argKind{argText, argText}, min: 2, result: tBool, fn: "sp_ends_with"},
	"STRPOS":           {args: []argKind{argText, argText}, min: 2, result: tInt64, fn: "instr"},
	"INSTR":            {args: []argKind{argText, argText}, min: 2, result: tInt64, fn: "instr"},
	"REPLACE": {args: []argKind{argText, argText, argText}, min: 3, emit: func(a []string) string {
		return "CASE WHEN " + a[1] + " = '' THEN " + a[0] + " ELSE replace(" + a[0] + ", " + a[1] + ", " + a[2] + ") END"
	}},
	"TRIM":              {args: []argKind{argText, argText}, min: 1, emit: trimSQL("trim", "0")},
	"LTRIM":             {args: []argKind{argText, argText}, min: 1, emit: trimSQL("ltrim", "1")},
	"RTRIM":             {args: []argKind{argText, argText}, min: 1, emit: trimSQL("rtrim", "2")},
	"REPEAT":            {args: []argKind{argText, argInt}, min: 2, fn: "sp_repeat"},
	"REVERSE":           {args: []argKind{argText}, min: 1, fn: "sp_reverse"},
	"LPAD":              {args: []argKind{argStr, argInt, argStr}, min: 2, result: tString, emit: padSQL("1")},
	"RPAD":              {args: []argKind{argStr, argInt, argStr}, min: 2, result: tString, emit: padSQL("0")},
	"SPLIT":             {args: []argKind{argStr, argStr}, min: 1, result: arrayOf(tString), emit: func(a []string) string { return call("sp_split")(append(a, "','")[:2]) }},
	"REGEXP_CONTAINS":   {args: []argKind{argStr, argStr}, min: 2, result: tBool, fn: "sp_regexp_contains"},
	"REGEXP_EXTRACT":    {args: []argKind{argStr, argStr}, min: 2, result: tString, fn: "sp_regexp_extract"},
	"REGEXP_REPLACE":    {args: []argKind{argStr, argStr, argStr}, min: 3, result: tString, fn: "sp_regexp_replace"},
	"FARM_FINGERPRINT":  {args: []argKind{argText}, min: 1, result: tInt64, fn: "sp_farm_fingerprint"},
	"SHA1":              {args: []argKind{argText}, min: 1, result: tBytes, emit: constFirst("sp_hash", "'SHA1'")},
	"SHA256":            {args: []argKind{argText}, min: 1, result: tBytes, emit: constFirst("sp_hash", "'SHA256'")},
	"SHA512":            {args: []argKind{argText}, min: 1, result: tBytes, emit: constFirst("sp_hash", "'SHA512'")},
	"MD5":               {args: []argKind{argText}, min: 1, result: tBytes, emit: constFirst("sp_hash", "'MD5'")},
	"TO_HEX":            {args: []argKind{argBytes}, min: 1, result: tString, emit: func(a []string) string { return "lower(hex(" + a[0] + "))" }},
	"TO_BASE64":         {args: []argKind{argBytes}, min: 1, result: tString, fn: "sp_base64"},
	"FROM_BASE64":       {args: []argKind{argStr}, min: 1, result: tBytes, fn: "sp_unbase64"},
	"ARRAY_LENGTH":      {args: []argKind{argArray}, min: 1, result: tInt64, fn: "json_array_length"},
	"JSON_QUERY":        {args: []argKind{argJSON, argStr}, min: 2, result: tJSON, emit: func(a []string) string { return "(" + a[0] + " -> " + a[1] + ")" }},
	"JSON_VALUE":        {args: []argKind{argJSON, argStr}, min: 2, result: tString, emit: jsonValueSQL},
	"UNIX_SECONDS":      {args: []argKind{argTS}, min: 1, result: tInt64, emit: withLast("sp_unix", "'SECONDS'")},
	"UNIX_MILLIS":       {args: []argKind{argTS}, min: 1, result: tInt64, emit: withLast("sp_unix", "'MILLIS'")},
	"UNIX_MICROS":       {args: []argKind{argTS}, min: 1, result: tInt64, emit: withLast("sp_unix", "'MICROS'")},
	"TIMESTAMP_SECONDS": {args: []argKind{argInt}, min: 1, result: tTimestamp, emit: withLast("sp_from_unix", "'SECONDS'")},
	"TIMESTAMP_MILLIS":  {args: []argKind{argInt}, min: 1, result: tTimestamp, emit: withLast("sp_from_unix", "'MILLIS'")},
	"TIMESTAMP_MICROS":  {args: []argKind{argInt}, min: 1, result: tTimestamp, emit: withLast("sp_from_unix", "'MICROS'")},
}

func padSQL(left string) func(a []string) string {
	return func(a []string) string {
		pad := "' '"
		if len(a) == 3 {
			pad = a[2]
		}
		return "sp_pad(" + a[0] + ", " + a[1] + ", " + pad + ", " + left + ")"
	}
}

func (c *compiler) simpleCall(x *ast.CallExpr, name string, f simpleFunc, args []ast.Expr, sc *scope) (expr, error) {
	if len(args) < f.min || len(args) > len(f.args) {
		return expr{}, c.invalid(x, "Number of arguments does not match for function %s", name)
	}
	es := make([]expr, len(args))
	sqls := make([]string, len(args))
	var text *spannerpb.Type
	ok := true
	for i, a := range args {
		e, err := c.expr(a, sc, f.args[i].hint())
		if err != nil {
			return expr{}, err
		}
		es[i], sqls[i] = e, e.sql
		if !f.args[i].accepts(e.t) {
			ok = false
		}
		if f.args[i] == argText {
			nt, same := commonType(text, e.t)
			ok = ok && same
			text = nt
		}
	}
	if !ok {
		ts := make([]string, len(es))
		for i, e := range es {
			ts[i] = typeName(e.t)
		}
		return expr{}, c.invalid(x, "No matching signature for function %s for argument types: %s", name, strings.Join(ts, ", "))
	}
	t := f.result
	if t == nil {
		t = text
		if t == nil {
			t = tString
		}
	}
	emit := f.emit
	if emit == nil {
		emit = call(f.fn)
	}
	return expr{sql: emit(sqls), t: t}, nil
}

// jsonValueSQL is JSON_VALUE: a scalar at the path as STRING, NULL for objects and arrays.
// Integers keep their JSON text: ->> would turn one past INT64 into a REAL.
func jsonValueSQL(a []string) string {
	return "CASE json_type(" + a[0] + ", " + a[1] + ") WHEN 'object' THEN NULL WHEN 'array' THEN NULL WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'integer' THEN (" + a[0] + " -> " + a[1] + ") ELSE CAST((" + a[0] + " ->> " + a[1] + ") AS TEXT) END"
}

// trimSQL trims the given characters with SQLite's function, and Unicode whitespace
// (Spanner's default, where SQLite trims only spaces) with sp_trim.
func trimSQL(fn, side string) func(a []string) string {
	return func(a []string) string {
		if len(a) == 2 {
			return fn + "(" + a[0] + ", " + a[1] + ")"
		}
		return "sp_trim(" + a[0] + ", " + side + ")"
	}
}
