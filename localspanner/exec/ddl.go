package exec

import (
	"context"
	"fmt"

	"github.com/spanload/spanload/localspanner/query"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

// compileColumnExpr compiles a generated column's or DEFAULT's expression for storage.
func compileColumnExpr(t *schema.Table, expr string) (string, error) {
	s, _, err := query.CompileColumnExpr(t, expr)
	if err != nil {
		return "", fmt.Errorf("expression %q of table %s: %w", expr, t.Name, err)
	}
	return s, nil
}

// ApplyDDL applies DDL statements to db in order (see storage.DB.ApplyDDL).
func ApplyDDL(ctx context.Context, db *storage.DB, stmts []string) (int, error) {
	return db.ApplyDDL(ctx, stmts, schema.Compilers{Expr: compileColumnExpr, View: query.ViewColumns})
}
