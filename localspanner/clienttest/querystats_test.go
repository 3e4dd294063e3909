package clienttest

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
)

// Issue 25, "beyond the emulator": the Go client's TestIntegration_QueryStats, which
// its suite skips against the emulator (whose README says query plans and statistics
// are disabled there): AnalyzeQuery returns a plan, and QueryWithStats a plan and the
// statistics of the run; here the statistics' row count is compared too.
func TestGoClientQueryStats(t *testing.T) {
	startServer(t)
	client := newDatabase(t, "querystats", []string{
		"CREATE TABLE Accounts (AccountId INT64 NOT NULL, Nickname STRING(100), Balance INT64 NOT NULL) PRIMARY KEY (AccountId)",
	})
	ctx := context.Background()
	cols := []string{"AccountId", "Nickname", "Balance"}
	if _, err := client.Apply(ctx, []*spanner.Mutation{
		spanner.Insert("Accounts", cols, []any{int64(1), "Foo", int64(50)}),
		spanner.Insert("Accounts", cols, []any{int64(2), "Bar", int64(1)}),
	}, spanner.ApplyAtLeastOnce()); err != nil {
		t.Fatal(err)
	}
	const sql = "SELECT Balance FROM Accounts"
	qp, err := client.Single().AnalyzeQuery(ctx, spanner.Statement{SQL: sql})
	if err != nil {
		t.Fatal(err)
	}
	if len(qp.PlanNodes) == 0 {
		t.Error("got zero plan nodes, expected at least one")
	}
	iter := client.Single().QueryWithStats(ctx, spanner.Statement{SQL: sql})
	defer iter.Stop()
	rows := 0
	for {
		_, err := iter.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows++
	}
	if iter.QueryPlan == nil || len(iter.QueryPlan.PlanNodes) == 0 {
		t.Error("got no QueryPlan, expected one")
	}
	if got := iter.QueryStats["rows_returned"]; rows != 2 || got != "2" {
		t.Errorf("%d rows, QueryStats rows_returned %v; want 2 and \"2\"", rows, got)
	}
}
