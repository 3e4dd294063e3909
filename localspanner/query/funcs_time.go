package query

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/sqlfn"
)

// The date and time function families of funcFamilies.

func callCurrent(c *compiler, k *callSite) (expr, error) {
	date := k.name == "CURRENT_DATE"
	maxArgs := 0
	if date {
		maxArgs = 1
	}
	if err := k.nargs(0, maxArgs); err != nil {
		return expr{}, err
	}
	return c.current(k.x, date)
}

func callPendingCommitTimestamp(c *compiler, k *callSite) (expr, error) {
	x := k.x
	if err := k.nargs(0, 0); err != nil {
		return expr{}, err
	}
	if !c.pendingTS {
		return expr{}, c.invalid(x, "The PENDING_COMMIT_TIMESTAMP() function may only be used as a value for INSERT or UPDATE of an appropriately typed column")
	}
	return expr{sql: sqlString(CommitTimestampMarker), t: tTimestamp}, nil
}

func callDateAdd(c *compiler, k *callSite) (expr, error) {
	name, args, sc := k.name, k.args, k.sc
	if err := k.nargs(2, 2); err != nil {
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
		return expr{}, k.sig(es)
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
}

func callDateDiff(c *compiler, k *callSite) (expr, error) {
	name, args, sc := k.name, k.args, k.sc
	if err := k.nargs(3, 3); err != nil {
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
			return expr{}, k.sig([]expr{a, b})
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
}

func callTimestampTrunc(c *compiler, k *callSite) (expr, error) {
	args, sc := k.args, k.sc
	if err := k.nargs(2, 3); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(args[:1], sc, tTimestamp)
	if err != nil {
		return expr{}, err
	}
	if !hasType(es[0], tcTimestamp) {
		return expr{}, k.sig(es)
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
}

func callTimestamp(c *compiler, k *callSite) (expr, error) {
	x, args, sc := k.x, k.args, k.sc
	if err := k.nargs(1, 2); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(args, sc, tString, tString)
	if err != nil {
		return expr{}, err
	}
	switch {
	case len(es) == 1 && hasType(es[0], tcTimestamp):
		return expr{sql: es[0].sql, t: tTimestamp}, nil
	case len(es) == 1 && hasType(es[0], tcString, tcDate):
		return expr{sql: "sp_cast(" + es[0].sql + ", '" + typeName(es[0].t) + "', 'TIMESTAMP')", t: tTimestamp}, nil
	}
	return expr{}, c.unsupported(x, "TIMESTAMP() with a time zone argument")
}

func callDate(c *compiler, k *callSite) (expr, error) {
	args, sc := k.args, k.sc
	es, err := c.argExprs(args, sc, tTimestamp, tString)
	if err != nil {
		return expr{}, err
	}
	switch {
	case len(es) == 3:
		for _, e := range es {
			if !hasType(e, tcInt64) {
				return expr{}, k.sig(es)
			}
		}
		return expr{sql: "sp_cast(printf('%04d-%02d-%02d', " + es[0].sql + ", " + es[1].sql + ", " + es[2].sql + "), 'STRING', 'DATE')", t: tDate}, nil
	case len(es) >= 1 && len(es) <= 2 && hasType(es[0], tcTimestamp):
		zone := sqlString(sqlfn.DefaultZoneName)
		if len(es) == 2 {
			zone = es[1].sql
		}
		return expr{sql: "sp_extract('DATE', " + es[0].sql + ", 'TIMESTAMP', " + zone + ")", t: tDate}, nil
	case len(es) == 1 && hasType(es[0], tcDate):
		return expr{sql: es[0].sql, t: tDate}, nil
	}
	return expr{}, k.sig(es)
}

func callFormatTime(c *compiler, k *callSite) (expr, error) {
	name, args, sc := k.name, k.args, k.sc
	want, n := tTimestamp, 3
	if name == "FORMAT_DATE" {
		want, n = tDate, 2
	}
	if err := k.nargs(2, n); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(args, sc, tString, want, tString)
	if err != nil {
		return expr{}, err
	}
	if !hasType(es[0], tcString) || (es[1].t != nil && !sameType(es[1].t, want)) || (len(es) == 3 && !hasType(es[2], tcString)) {
		return expr{}, k.sig(es)
	}
	zone := "NULL"
	if len(es) == 3 {
		zone = es[2].sql
	}
	return expr{sql: "sp_format_time(" + es[0].sql + ", " + es[1].sql + ", '" + typeName(want) + "', " + zone + ")", t: tString}, nil
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
