package query

import (
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/schema"
)

// ViewColumns compiles view v's query against cat and returns its output columns. It is
// the schema.ViewCompiler that DDL uses to check views.
func ViewColumns(cat *schema.Catalog, v *schema.View) ([]schema.ViewColumn, error) {
	c := newCompiler(cat, v.Text, nil, CurrentRows{})
	c.strict = true
	res, err := c.queryExpr(v.Query, nil)
	if err != nil {
		return nil, err
	}
	cols := make([]schema.ViewColumn, len(res.fields))
	for i, f := range res.fields {
		t := f.t
		if t == nil {
			t = tInt64
		}
		cols[i] = schema.ViewColumn{Name: f.name, Type: t}
	}
	return cols, nil
}

// viewTable inlines view v as a FROM item: its query is compiled in place, in a scope
// of its own (the outer query's names and WITH tables are not visible inside it), and
// its output columns are added to sc under alias.
func (c *compiler) viewTable(v *schema.View, alias string, hint *ast.Hint, sc *scope) (string, error) {
	if hint != nil {
		for _, rec := range hint.Records {
			if strings.EqualFold(rec.Key.SQL(), "FORCE_INDEX") {
				return "", c.invalid(rec.Value, "FORCE_INDEX cannot be applied to the view %s", v.Name)
			}
		}
	}
	text, ctes, strict := c.text, c.ctes, c.strict
	c.text, c.ctes, c.strict = v.Text, nil, true
	res, err := c.queryExpr(v.Query, nil)
	c.text, c.ctes, c.strict = text, ctes, strict
	if err != nil {
		return "", err
	}
	return "(" + res.sql + ") AS " + c.addFieldsRel(sc, alias, res.fields), nil
}
