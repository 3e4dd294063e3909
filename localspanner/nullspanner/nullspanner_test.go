package nullspanner

import (
	"context"
	"net"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc"
)

const db = "projects/p/instances/i/databases/d"

// The official Go client completes what a worker does against the do-nothing server: the
// schema round trip, single-use commits, read-write transactions, queries and reads.
func TestTheGoClientCompletesEveryWorkerCall(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	Register(srv)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	t.Setenv("SPANNER_EMULATOR_HOST", lis.Addr().String())
	t.Setenv("SPANNER_DISABLE_BUILTIN_METRICS", "true")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	admin, err := database.NewDatabaseAdminClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ddl := []string{"CREATE TABLE T (K INT64) PRIMARY KEY (K)"}
	op, err := admin.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: ddl})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := admin.GetDatabaseDdl(ctx, &databasepb.GetDatabaseDdlRequest{Database: db})
	if err != nil || len(got.Statements) != 1 || got.Statements[0] != ddl[0] {
		t.Fatalf("GetDatabaseDdl = %v, %v; want the statement just applied", got.GetStatements(), err)
	}

	client, err := spanner.NewClient(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	m := []*spanner.Mutation{spanner.InsertOrUpdate("T", []string{"K"}, []any{int64(1)})}
	ts, err := client.Apply(ctx, m, spanner.ApplyAtLeastOnce())
	if err != nil || time.Since(ts) > time.Minute {
		t.Fatalf("single-use commit: %v at %v", err, ts)
	}
	if _, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		n, err := tx.Update(ctx, spanner.NewStatement("UPDATE T SET K = 2 WHERE K = 1"))
		if err == nil && n != 1 {
			t.Errorf("DML changed %d rows, want the canned 1", n)
		}
		return err
	}); err != nil {
		t.Fatalf("read-write transaction: %v", err)
	}
	rows := 0
	err = client.Single().Query(ctx, spanner.NewStatement("SELECT K FROM T WHERE K = 1")).Do(func(*spanner.Row) error {
		rows++
		return nil
	})
	if err != nil || rows != 0 {
		t.Fatalf("query: %d rows, %v; want no rows", rows, err)
	}
	var now time.Time
	err = client.Single().Query(ctx, spanner.NewStatement("SELECT CURRENT_TIMESTAMP()")).Do(func(r *spanner.Row) error {
		return r.Column(0, &now)
	})
	if err != nil || time.Since(now).Abs() > time.Minute {
		t.Fatalf("CURRENT_TIMESTAMP() = %v, %v; want now", now, err)
	}
	it := client.Single().Read(ctx, "T", spanner.AllKeys(), []string{"K"})
	defer it.Stop()
	if _, err := it.Next(); err != iterator.Done {
		t.Fatalf("read: %v; want no rows", err)
	}
}
