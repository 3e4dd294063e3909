package storage

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// A foreign key on columns that do not lead a primary key gets SQLite indexes on both
// sides (its checks are lookups, as with Spanner's backing indexes); they go with it.
func TestForeignKeyIndexesAndChecks(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	if _, err := db.ApplyDDL(ctx, []string{
		"CREATE TABLE R (Id INT64 NOT NULL, Code STRING(MAX)) PRIMARY KEY (Id)",
		"CREATE TABLE F (Id INT64 NOT NULL, RCode STRING(MAX), CONSTRAINT FkCode FOREIGN KEY (RCode) REFERENCES R (Code)) PRIMARY KEY (Id)",
	}, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
	indexes := func() int64 {
		return db.count(t, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN ('_fk_FkCode_ref', '_fk_FkCode_cols')`)
	}
	if n := indexes(); n != 2 {
		t.Fatalf("foreign key indexes: %d, want 2", n)
	}
	if _, err := db.write(t, OpInsert, "F", []string{"Id", "RCode"}, []any{int64(1), "x"}); spanerr.Code(err, codes.Unknown) != codes.FailedPrecondition {
		t.Fatalf("a referencing row without its referenced row: %v, want FAILED_PRECONDITION", err)
	}
	if _, err := db.write(t, OpInsert, "R", []string{"Id", "Code"}, []any{int64(1), "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write(t, OpInsert, "F", []string{"Id", "RCode"}, []any{int64(1), "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ApplyDDL(ctx, []string{"ALTER TABLE F DROP CONSTRAINT FkCode"}, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
	if n := indexes(); n != 0 {
		t.Fatalf("foreign key indexes after DROP CONSTRAINT: %d, want 0", n)
	}
}
