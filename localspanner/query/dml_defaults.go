package query

import (
	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// keyDefaults adds to tmpl.columns the primary key columns that an INSERT does not
// list but that have a DEFAULT (Spanner's UUID keys: `Id UUID DEFAULT (NEW_UUID())`),
// and returns their DEFAULT expressions: every inserted row computes its own key.
func keyDefaults(t *schema.Table, tmpl *dmlTemplate) ([]string, error) {
	var out []string
	for _, kp := range t.PrimaryKey {
		col := kp.Column
		listed := false
		for _, c := range tmpl.columns {
			listed = listed || c == col
		}
		if listed || col.Default == "" {
			continue
		}
		s, _, err := compileColumnExpr(nil, col.Default)
		if err != nil {
			return nil, err
		}
		tmpl.columns = append(tmpl.columns, col)
		out = append(out, s)
	}
	return out, nil
}

// appendKeyDefaults appends the key DEFAULT cells after the listed ones.
func appendKeyDefaults(cells, defaults []string) []string {
	for _, d := range defaults {
		cells = append(cells, d+" AS "+outName(len(cells)))
	}
	return cells
}

// CheckColumnDefault checks that col's DEFAULT expression has a value of col's type
// (or one that coerces to it), as Spanner checks a DEFAULT before it accepts it.
func CheckColumnDefault(t *schema.Table, col *schema.Column) error {
	x, err := columnExpr(t, col.Default, col.Type)
	if err != nil {
		return spanerr.InvalidArgument("Error parsing the default value of column `%s`.`%s`: %v", t.Name, col.Name, err)
	}
	if x.t == nil {
		return nil // NULL
	}
	if typ, ok := commonType(col.Type, x.t); !ok || !sameType(typ, col.Type) {
		return spanerr.InvalidArgument("Error parsing the default value of column `%s`.`%s`: Expected type %s; found %s", t.Name, col.Name, typeName(col.Type), typeName(x.t))
	}
	return nil
}
