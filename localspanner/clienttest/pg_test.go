package clienttest

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner"
	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
)

// newPGDatabase starts the server and creates, in a new instance instance, the PostgreSQL-dialect
// database "db": its client, a database admin client (closed when the test ends) and the
// instance's name.
func newPGDatabase(t *testing.T, instance string) (*spanner.Client, *database.DatabaseAdminClient, string) {
	t.Helper()
	startServer(t)
	inst := newInstance(t, instance)
	client := createDatabase(t, inst, &databasepb.CreateDatabaseRequest{
		CreateStatement: `CREATE DATABASE "db"`, DatabaseDialect: databasepb.DatabaseDialect_POSTGRESQL,
	})
	da, err := database.NewDatabaseAdminClient(context.Background())
	if err != nil {
		t.Fatalf("database admin client: %v", err)
	}
	t.Cleanup(func() { da.Close() })
	return client, da, inst
}

// TestGoClientPostgreSQL drives a PostgreSQL-dialect database with the Go client, the way
// Spanner's documentation shows it ("Work with PostgreSQL-dialect databases"): the database
// is created with DatabaseDialect POSTGRESQL, its schema sent with UpdateDatabaseDdl,
// statements use $1, $2 ... bound as p1, p2 ..., numeric and jsonb are spanner.PGNumeric and
// spanner.PGJsonB (which the client decodes only from columns annotated PG_NUMERIC and
// PG_JSONB).
func TestGoClientPostgreSQL(t *testing.T) {
	ctx := context.Background()
	client, da, inst := newPGDatabase(t, "pg")
	db, err := da.GetDatabase(ctx, &databasepb.GetDatabaseRequest{Name: inst + "/databases/db"})
	if err != nil || db.DatabaseDialect != databasepb.DatabaseDialect_POSTGRESQL {
		t.Fatalf("GetDatabase: dialect %v, err %v; want POSTGRESQL", db.GetDatabaseDialect(), err)
	}
	op, err := da.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: inst + "/databases/db", Statements: []string{
		`CREATE TABLE accounts (id bigint PRIMARY KEY, owner varchar(64) NOT NULL, balance numeric, doc jsonb,
			changed spanner.commit_timestamp)`,
	}})
	if err != nil {
		t.Fatalf("UpdateDatabaseDdl: %v", err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatalf("UpdateDatabaseDdl: %v", err)
	}

	var returned string
	commit, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		it := tx.Query(ctx, spanner.Statement{
			SQL: "INSERT INTO accounts (id, owner, balance, doc, changed) VALUES ($1, $2, $3, $4, spanner.pending_commit_timestamp()) RETURNING owner",
			Params: map[string]any{
				"p1": int64(1), "p2": "ann",
				"p3": spanner.PGNumeric{Numeric: "10.25", Valid: true},
				"p4": spanner.PGJsonB{Value: map[string]any{"tier": "gold"}, Valid: true},
			},
		})
		return it.Do(func(r *spanner.Row) error { return r.Columns(&returned) })
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	if returned != "ann" {
		t.Errorf("RETURNING owner = %q, want ann", returned)
	}
	if _, err := client.Apply(ctx, []*spanner.Mutation{
		spanner.Insert("accounts", []string{"id", "owner", "balance"}, []any{int64(2), "bob", spanner.PGNumeric{Numeric: "-3.5", Valid: true}}),
	}); err != nil {
		t.Fatalf("insert mutation: %v", err)
	}

	type account struct {
		id      int64
		owner   string
		balance spanner.PGNumeric
		doc     spanner.PGJsonB
		changed spanner.NullTime
	}
	var got []account
	err = client.Single().Query(ctx, spanner.Statement{
		SQL:    "SELECT id, owner, balance, doc, changed FROM accounts WHERE id >= $1 ORDER BY id",
		Params: map[string]any{"p1": int64(1)},
	}).Do(func(r *spanner.Row) error {
		var a account
		if err := r.Columns(&a.id, &a.owner, &a.balance, &a.doc, &a.changed); err != nil {
			return err
		}
		got = append(got, a)
		return nil
	})
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d rows, want 2", len(got))
	}
	if a := got[0]; a.id != 1 || a.owner != "ann" || a.balance.Numeric != "10.25" || !a.changed.Time.Equal(commit) {
		t.Errorf("row 1 = %+v, want id 1, ann, 10.25, changed at the commit timestamp %v", a, commit)
	}
	if doc, ok := got[0].doc.Value.(map[string]any); !ok || doc["tier"] != "gold" {
		t.Errorf("row 1 doc = %#v, want {tier: gold}", got[0].doc.Value)
	}
	if a := got[1]; a.id != 2 || a.owner != "bob" || a.balance.Numeric != "-3.5" || a.doc.Valid || a.changed.Valid {
		t.Errorf("row 2 = %+v, want id 2, bob, -3.5, NULL doc, NULL changed", a)
	}

	row, err := client.Single().ReadRow(ctx, "accounts", spanner.Key{int64(2)}, []string{"balance"})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var bal spanner.PGNumeric
	if err := row.Columns(&bal); err != nil || bal.Numeric != "-3.5" {
		t.Errorf("read balance = %+v (err %v), want -3.5", bal, err)
	}

	count, err := client.PartitionedUpdate(ctx, spanner.Statement{
		SQL: "UPDATE accounts SET owner = upper(owner) WHERE id >= $1", Params: map[string]any{"p1": int64(1)},
	})
	if err != nil || count != 2 {
		t.Errorf("partitioned update: %d rows, err %v; want 2", count, err)
	}
}
