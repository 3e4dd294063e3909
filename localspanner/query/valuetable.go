package query

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish/ast"
)

// STRUCT values in FROM and SELECT lists: UNNEST of an ARRAY<STRUCT> is a value table
// (one column per field, GoogleSQL's "UNNEST operator": "For input arrays of STRUCTs,
// UNNEST returns a row for each STRUCT, with a separate column for each field"), and
// expr.* expands a STRUCT expression into its fields. Fields may be anonymous or share
// a name: they are addressed by position, never by name.

// fieldSQL reads field i (of type t) of the STRUCT cell base.
func fieldSQL(base string, i int, t *spannerpb.Type) string {
	return elemFromJSON("json_extract("+base+", '$["+strconv.Itoa(i)+"]')", t)
}

// structFieldCols are the columns of a value table whose row value is the STRUCT cell base.
func structFieldCols(base string, st *spannerpb.Type) []relCol {
	fields := st.GetStructType().GetFields()
	cols := make([]relCol, len(fields))
	for i, f := range fields {
		cols[i] = relCol{name: f.GetName(), sql: fieldSQL(base, i, f.GetType()), t: f.GetType()}
	}
	return cols
}

// starItems are the columns r contributes to SELECT * (or r.*).
func starItems(r *rel) []selectItem {
	var out []selectItem
	for _, col := range r.cols {
		if !col.noStar {
			out = append(out, selectItem{field{col.name, col.t}, col.sql})
		}
	}
	return out
}

// structStar compiles expr.* for a STRUCT expression: one select item per field.
func (c *compiler) structStar(x *ast.DotStar, sc *scope) ([]selectItem, error) {
	e, err := c.expr(x.Expr, sc, nil)
	if err != nil {
		return nil, err
	}
	if code(e.t) != spannerpb.TypeCode_STRUCT {
		return nil, c.invalid(x, "Dot-star is not supported for type %s", typeName(e.t))
	}
	cols := structFieldCols(e.sql, e.t)
	out := make([]selectItem, len(cols))
	for i, col := range cols {
		out[i] = selectItem{field{col.name, col.t}, col.sql}
	}
	return out, nil
}

// castStruct compiles CAST(s AS STRUCT<...>): the same number of fields, each cast to
// its new type (GoogleSQL casts STRUCTs field by field; the names come from the target).
func (c *compiler) castStruct(x *ast.CastExpr, in expr, to *spannerpb.Type) (expr, error) {
	from, target := in.t.GetStructType().GetFields(), to.GetStructType().GetFields()
	if len(from) != len(target) {
		return expr{}, c.invalid(x, "Invalid cast from %s to %s", typeName(in.t), typeName(to))
	}
	parts := make([]string, len(from))
	for i, f := range from {
		fe := expr{sql: fieldSQL(in.sql, i, f.GetType()), t: f.GetType()}
		ft := target[i].GetType()
		switch {
		case sameType(f.GetType(), ft):
		case code(f.GetType()) == spannerpb.TypeCode_INT64 && isFloat(ft):
			fe.sql = coerceSQL(fe, ft)
		case castable(f.GetType(), ft):
			fn := "sp_cast"
			if x.Safe {
				fn = "sp_safe_cast"
			}
			fe.sql = fn + "(" + fe.sql + ", '" + typeName(f.GetType()) + "', '" + typeName(ft) + "')"
		default:
			return expr{}, c.invalid(x, "Invalid cast from %s to %s", typeName(in.t), typeName(to))
		}
		parts[i] = elemToJSON(fe.sql, ft)
	}
	// A NULL STRUCT stays NULL rather than becoming a STRUCT of NULL fields.
	return expr{sql: "CASE WHEN " + in.sql + " IS NULL THEN NULL ELSE json_array(" + strings.Join(parts, ", ") + ") END", t: to}, nil
}

// structEqual compares two STRUCT cells field by field, as GoogleSQL does: NULL when
// either STRUCT is NULL, or when no field differs but one is NULL (SQL's AND of the
// field comparisons gives exactly that); not negates it for !=.
func structEqual(a, b string, ta, tb *spannerpb.Type, not bool) string {
	fa, fb := ta.GetStructType().GetFields(), tb.GetStructType().GetFields()
	conds := make([]string, len(fa))
	for i, f := range fa {
		x, y := fieldSQL(a, i, f.GetType()), fieldSQL(b, i, fb[i].GetType())
		switch code(f.GetType()) {
		case spannerpb.TypeCode_STRUCT:
			conds[i] = structEqual(x, y, f.GetType(), fb[i].GetType(), false)
		case spannerpb.TypeCode_NUMERIC:
			conds[i] = "(sp_numeric_cmp(" + x + ", " + y + ") = 0)"
		default:
			conds[i] = "(" + x + " = " + y + ")"
		}
	}
	all := "TRUE"
	if len(conds) > 0 {
		all = strings.Join(conds, " AND ")
	}
	if not {
		all = "NOT (" + all + ")"
	}
	return "(CASE WHEN " + a + " IS NULL OR " + b + " IS NULL THEN NULL ELSE " + all + " END)"
}
