package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

// applyPGDDL applies the DDL statements of a PostgreSQL-dialect database: each is
// lowered to its GoogleSQL equivalent (schema.LowerPG) and applied as one, and an error
// names the statement as the client sent it.
func applyPGDDL(ctx context.Context, db *storage.DB, stmts []string, comp schema.Compilers) (int, error) {
	for i, s := range stmts {
		g, err := schema.LowerPG(db.Catalog(), s)
		if err == nil {
			_, err = db.ApplyDDL(ctx, []string{g}, comp)
			if inner := errors.Unwrap(err); inner != nil {
				err = inner // storage names the lowered statement; name the sent one
			}
		}
		if err != nil {
			return i, fmt.Errorf("statement %q: %w", s, err)
		}
	}
	return len(stmts), nil
}
