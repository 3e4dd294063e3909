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
// protoDescriptors (the request's FileDescriptorSet, or nil) go with the CREATE and
// ALTER PROTO BUNDLE statements.
func ApplyDDL(ctx context.Context, db *storage.DB, stmts []string, protoDescriptors []byte) (int, error) {
	comp := schema.Compilers{Expr: compileColumnExpr, View: query.ViewColumns, Default: query.CheckColumnDefault}
	if db.Dialect() == schema.PostgreSQL {
		return applyPGDDL(ctx, db, stmts, comp)
	}
	withDesc := make([]string, len(stmts))
	for i, s := range stmts {
		withDesc[i] = schema.WithDescriptors(s, protoDescriptors)
	}
	return db.ApplyDDL(ctx, withDesc, comp)
}
