package clienttest

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner"
	"github.com/google/uuid"
)

// Issue 17, "Types and values": the Go client's uuid.UUID / spanner.NullUUID against
// a UUID key column with DEFAULT (NEW_UUID()) (GoogleSQL "UUID type", "NEW_UUID").
func TestGoClientUUID(t *testing.T) {
	startServer(t)
	client := newDatabase(t, "uuids", []string{
		"CREATE TABLE U (Id UUID NOT NULL DEFAULT (NEW_UUID()), S STRING(MAX), A ARRAY<UUID>) PRIMARY KEY (Id)",
	})
	ctx := context.Background()
	id := uuid.MustParse("9d3f8a1e-6c2b-4f5e-8a7d-1b2c3d4e5f60")
	if _, err := client.Apply(ctx, []*spanner.Mutation{
		spanner.Insert("U", []string{"Id", "S", "A"}, []any{id, "one", []spanner.NullUUID{{UUID: id, Valid: true}, {}}}),
	}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if _, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		_, err := tx.Update(ctx, spanner.Statement{SQL: "INSERT INTO U (S) VALUES ('two')"})
		return err
	}); err != nil {
		t.Fatalf("insert without the key: %v", err)
	}
	row, err := client.Single().Query(ctx, spanner.Statement{
		SQL: "SELECT Id, A FROM U WHERE Id = @id", Params: map[string]any{"id": id},
	}).Next()
	if err != nil {
		t.Fatalf("query by uuid.UUID parameter: %v", err)
	}
	var got uuid.UUID
	var arr []spanner.NullUUID
	if err := row.Columns(&got, &arr); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got != id || len(arr) != 2 || arr[0].UUID != id || arr[1].Valid {
		t.Errorf("read back %v %v, want %v [%v NULL]", got, arr, id, id)
	}
	row, err = client.Single().Query(ctx, spanner.Statement{SQL: "SELECT Id FROM U WHERE S = 'two'"}).Next()
	if err != nil {
		t.Fatalf("query the defaulted key: %v", err)
	}
	var generated uuid.UUID
	if err := row.Columns(&generated); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if generated.Version() != 4 || generated.Variant() != uuid.RFC4122 {
		t.Errorf("NEW_UUID() key %v is not a version 4 RFC 4122 UUID", generated)
	}
}
