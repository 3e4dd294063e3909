package txn

import (
	"strings"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/value"
)

// A write mutation may leave out a key column whose DEFAULT generates a UUID
// (`Id UUID DEFAULT (NEW_UUID())`, `Id STRING(36) DEFAULT (GENERATE_UUID())`, as
// Spanner's "Primary key default values" page recommends): each row gets a new one.
// Other key DEFAULTs still have to be written (the storage layer says which column).

// uuidDefault reports whether a DEFAULT expression is NEW_UUID() or GENERATE_UUID().
func uuidDefault(expr string) bool {
	e := strings.ToUpper(strings.Join(strings.Fields(expr), ""))
	for len(e) > 2 && e[0] == '(' && e[len(e)-1] == ')' {
		e = e[1 : len(e)-1]
	}
	return e == "NEW_UUID()" || e == "GENERATE_UUID()"
}

func addKeyDefaults(t *schema.Table, cols []*schema.Column, rows [][]any) ([]*schema.Column, [][]any) {
	for _, kp := range t.PrimaryKey {
		c := kp.Column
		listed := false
		for _, x := range cols {
			listed = listed || x == c
		}
		if listed || !uuidDefault(c.Default) {
			continue
		}
		cols = append(cols[:len(cols):len(cols)], c)
		for i, row := range rows {
			rows[i] = append(row[:len(row):len(row)], value.NewUUID())
		}
	}
	return cols, rows
}
