package query

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// NaN and infinities in FLOAT64 / FLOAT32 expressions. A NaN cell is the TEXT 'NaN'
// (value.StoreFloat), which SQLite's own functions read as 0 or as a string: the
// functions below keep GoogleSQL's rules ("mathematical functions return NaN if any
// of the arguments is NaN"; IS_NAN, IS_INF; NaN equals nothing, itself included).

// nanGuard returns sqlText, or NaN when the FLOAT operand e is NaN.
func nanGuard(e expr, sqlText string) string {
	if !mayBeNaN(e) {
		return sqlText
	}
	return "(CASE WHEN sp_is_nan(" + e.sql + ") THEN 'NaN' ELSE " + sqlText + " END)"
}

// callIsNaNInf compiles IS_NAN(x) and IS_INF(x): FLOAT64 (INT64 coerces to it);
// NUMERIC is never NaN nor infinite.
func callIsNaNInf(c *compiler, k *callSite) (expr, error) {
	if err := k.nargs(1, 1); err != nil {
		return expr{}, err
	}
	es, err := c.argExprs(k.args, k.sc, tFloat64)
	if err != nil {
		return expr{}, err
	}
	a := es[0]
	if !hasType(a, tcInt64, tcFloat64, tcFloat32, spannerpb.TypeCode_NUMERIC) {
		return expr{}, k.sig(es)
	}
	if !isFloat(a.t) {
		return expr{sql: "(CASE WHEN " + a.sql + " IS NULL THEN NULL ELSE FALSE END)", t: tBool}, nil
	}
	return expr{sql: "sp_" + strings.ToLower(k.name) + "(" + a.sql + ")", t: tBool}, nil
}

// floatAggregate compiles SUM, AVG, MIN and MAX over a FLOAT64 or FLOAT32 argument.
func floatAggregate(name, distinct string, a expr) expr {
	t := a.t
	if name == "SUM" || name == "AVG" {
		t = tFloat64
	}
	return expr{sql: "sp_float_" + strings.ToLower(name) + "(" + distinct + a.sql + ")", t: t}
}

// notNaNMember guards an IN test whose left operand is a FLOAT: NaN is in no list
// (IN compares with =, and NaN = NaN is FALSE); NaN NOT IN a list is TRUE.
func notNaNMember(left expr, inSQL string, not bool) string {
	if !mayBeNaN(left) {
		return inSQL
	}
	v := "FALSE"
	if not {
		v = "TRUE"
	}
	return "(CASE WHEN sp_is_nan(" + left.sql + ") THEN " + v + " ELSE " + inSQL + " END)"
}
