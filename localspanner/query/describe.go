package query

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
)

// undeclared collects the parameters a statement uses that the request did not
// declare, each typed by the context of its first use.
type undeclared struct {
	names []string
	types map[string]*spannerpb.Type
}

// note records parameter name used where hint is the type its context expects (nil:
// none) and returns its type. With no context it is a STRING, as PostgreSQL resolves
// an unknown-type literal to text ("Type Conversion", 10.5).
func (u *undeclared) note(name string, hint *spannerpb.Type) *spannerpb.Type {
	if t, ok := u.types[name]; ok {
		return t
	}
	t := hint
	if t == nil {
		t = tString
	}
	u.names = append(u.names, name)
	u.types[name] = t
	return t
}

// Description is what ExecuteSql in PLAN mode tells about a statement: its result
// columns and the parameters it uses that the request did not declare, with the types
// their contexts give them (ResultSetMetadata.undeclared_parameters, which PGAdapter
// asks for to type a PostgreSQL driver's untyped parameters).
type Description struct {
	Fields     []*spannerpb.StructType_Field // the rows (a query) or RETURNING columns (DML)
	Undeclared []*spannerpb.StructType_Field
	SQL        string // the compiled statement
}

// Describe compiles a query (dml false) or DML statement without running it, taking
// the parameters params does not declare as undeclared instead of refusing them.
func Describe(cat *schema.Catalog, sqlText string, params Params, src Source, dml bool) (*Description, error) {
	if src == nil {
		src = CurrentRows{}
	}
	und := &undeclared{types: map[string]*spannerpb.Type{}}
	d := &Description{}
	if dml {
		tmpl, err := buildDMLTemplate(cat, sqlText, params, src, und)
		if err != nil {
			return nil, pgWording(cat, err)
		}
		d.Fields, d.SQL = tmpl.returning, tmpl.sql
	} else {
		tmpl, err := buildQueryTemplate(cat, sqlText, params, src, false, und)
		if err != nil {
			return nil, pgWording(cat, err)
		}
		d.Fields, d.SQL = tmpl.fields, tmpl.sql
	}
	for _, n := range und.names {
		d.Undeclared = append(d.Undeclared, &spannerpb.StructType_Field{Name: n, Type: und.types[n]})
	}
	if cat.Dialect() == schema.PostgreSQL {
		PGAnnotate(d.Undeclared)
	}
	return d, nil
}
