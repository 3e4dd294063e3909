package clienttest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
)

// Issue 17, "DML", "Reads" and "Transactions" with the Go client, in both session
// modes. Where it differs from the Python client: it takes a batch DML's precommit
// token from the ExecuteBatchDmlResponse (the Python client from its first result
// set), returns a failed batch's counts with the error, and runs partitions
// through PartitionRead/PartitionQuery + Execute.
func TestGoClientDMLAndTransactions(t *testing.T) {
	for _, mode := range []struct{ name, multiplexed string }{{"multiplexed", "true"}, {"regular", "false"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Setenv("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS", mode.multiplexed)
			t.Setenv("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW", mode.multiplexed)
			startServer(t)
			client := newDatabase(t, "dml-"+mode.name, []string{"CREATE TABLE T (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)"})
			runDMLSuite(t, client)
		})
	}
}

func tRows(t *testing.T, client *spanner.Client) string {
	t.Helper()
	var out []string
	err := client.Single().Query(context.Background(), spanner.Statement{SQL: "SELECT Id, V FROM T ORDER BY Id"}).Do(func(r *spanner.Row) error {
		var id, v int64
		if err := r.Columns(&id, &v); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%d=%d", id, v))
		return nil
	})
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	return strings.Join(out, " ")
}

func runDMLSuite(t *testing.T, client *spanner.Client) {
	ctx := context.Background()
	stmts := func(sqls ...string) []spanner.Statement {
		out := make([]spanner.Statement, len(sqls))
		for i, s := range sqls {
			out[i] = spanner.Statement{SQL: s}
		}
		return out
	}

	t.Run("batches, a statement and THEN RETURN commit together", func(t *testing.T) {
		var counts []int64
		var returned []string
		_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			c, err := tx.BatchUpdate(ctx, stmts("INSERT INTO T (Id, V) VALUES (1, 10), (2, 20)", "UPDATE T SET V = V + 1 WHERE Id = 2"))
			if err != nil {
				return err
			}
			n, err := tx.Update(ctx, spanner.Statement{SQL: "INSERT INTO T (Id, V) VALUES (3, 30)"})
			if err != nil {
				return err
			}
			counts = append(c, n)
			returned = nil
			return tx.Query(ctx, spanner.Statement{SQL: "UPDATE T SET V = V * 2 WHERE Id >= 2 THEN RETURN Id, V"}).Do(func(r *spanner.Row) error {
				var id, v int64
				if err := r.Columns(&id, &v); err != nil {
					return err
				}
				returned = append(returned, fmt.Sprintf("%d=%d", id, v))
				return nil
			})
		})
		if err != nil {
			t.Fatalf("transaction: %v", err)
		}
		if fmt.Sprint(counts) != "[2 1 1]" {
			t.Errorf("row counts %v, want [2 1 1]", counts)
		}
		if got := strings.Join(returned, " "); got != "2=42 3=60" {
			t.Errorf("THEN RETURN gave %q, want \"2=42 3=60\"", got)
		}
		if got := tRows(t, client); got != "1=10 2=42 3=60" {
			t.Errorf("rows %q", got)
		}
	})

	t.Run("a failed batch returns the earlier counts and the statement's code", func(t *testing.T) {
		var counts []int64
		var batchErr error
		_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			counts, batchErr = tx.BatchUpdate(ctx, stmts("UPDATE T SET V = 11 WHERE Id = 1", "INSERT INTO T (Id, V) VALUES (2, 0)", "DELETE FROM T WHERE TRUE"))
			return nil // keep what ran: the first statement
		})
		if err != nil {
			t.Fatalf("transaction: %v", err)
		}
		if spanner.ErrCode(batchErr) != codes.AlreadyExists || fmt.Sprint(counts) != "[1]" {
			t.Errorf("batch gave %v, %v; want [1] and ALREADY_EXISTS", counts, batchErr)
		}
		if got := tRows(t, client); got != "1=11 2=42 3=60" {
			t.Errorf("rows %q", got)
		}
	})

	t.Run("partitioned update", func(t *testing.T) {
		n, err := client.PartitionedUpdate(ctx, spanner.Statement{SQL: "UPDATE T SET V = V + 1 WHERE Id > 1"})
		if err != nil || n != 2 {
			t.Fatalf("PartitionedUpdate = %d, %v; want 2", n, err)
		}
		_, err = client.PartitionedUpdate(ctx, spanner.Statement{SQL: "INSERT INTO T (Id, V) VALUES (9, 9)"})
		if spanner.ErrCode(err) != codes.InvalidArgument {
			t.Errorf("INSERT as Partitioned DML: %v, want INVALID_ARGUMENT", err)
		}
		if got := tRows(t, client); got != "1=11 2=43 3=61" {
			t.Errorf("rows %q", got)
		}
	})

	t.Run("partitioned read and query", func(t *testing.T) {
		tx, err := client.BatchReadOnlyTransaction(ctx, spanner.StrongRead())
		if err != nil {
			t.Fatalf("batch transaction: %v", err)
		}
		defer tx.Close()
		parts, err := tx.PartitionRead(ctx, "T", spanner.KeyRange{Start: spanner.Key{2}, End: spanner.Key{3}, Kind: spanner.ClosedClosed}, []string{"Id"}, spanner.PartitionOptions{})
		if err != nil {
			t.Fatalf("PartitionRead: %v", err)
		}
		var ids []int64
		for _, p := range parts {
			err := tx.Execute(ctx, p).Do(func(r *spanner.Row) error {
				var id int64
				ids = append(ids, 0)
				if err := r.Column(0, &id); err != nil {
					return err
				}
				ids[len(ids)-1] = id
				return nil
			})
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
		}
		if fmt.Sprint(ids) != "[2 3]" {
			t.Errorf("partitions read %v, want [2 3]", ids)
		}
		_, err = tx.PartitionQuery(ctx, spanner.Statement{SQL: "SELECT Id FROM T ORDER BY Id"}, spanner.PartitionOptions{})
		if spanner.ErrCode(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "not root partitionable") {
			t.Errorf("ORDER BY in PartitionQuery: %v, want INVALID_ARGUMENT not root partitionable", err)
		}
	})
}
