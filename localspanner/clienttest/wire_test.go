package clienttest

import (
	"context"
	"fmt"
	"testing"

	"cloud.google.com/go/spanner"
	"go.opencensus.io/stats/view"
	"google.golang.org/api/iterator"
)

// Issue 17, "Wire format": where the Go client differs from the Python one.

// The Go client records the server-timing header's gfet4t7 figure as its GFE
// latency statistic only when the value is whole milliseconds (stats.go parses it
// with strconv.Atoi); a fraction was silently dropped, so code waiting for the
// statistic waited forever. Batch transactions capture it for PartitionQuery and
// for each partition's Execute.
func TestGoClientRecordsServerTiming(t *testing.T) {
	startServer(t)
	if err := spanner.EnableGfeLatencyView(); err != nil {
		t.Fatalf("enable view: %v", err)
	}
	t.Cleanup(spanner.DisableGfeLatencyAndHeaderMissingCountViews)
	client := newDatabase(t, "timing", []string{"CREATE TABLE T (Id INT64 NOT NULL) PRIMARY KEY (Id)"})
	ctx := context.Background()
	if _, err := client.Apply(ctx, []*spanner.Mutation{spanner.Insert("T", []string{"Id"}, []any{int64(7)})}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	tx, err := client.BatchReadOnlyTransaction(ctx, spanner.StrongRead())
	if err != nil {
		t.Fatalf("batch transaction: %v", err)
	}
	defer tx.Close()
	// One trailing semicolon is accepted in PartitionQuery and in its partitions too.
	parts, err := tx.PartitionQuery(ctx, spanner.Statement{SQL: "SELECT Id FROM T;"}, spanner.PartitionOptions{})
	if err != nil {
		t.Fatalf("PartitionQuery: %v", err)
	}
	var ids []int64
	for _, p := range parts {
		iter := tx.Execute(ctx, p)
		err := iter.Do(func(r *spanner.Row) error {
			var id int64
			ids = append(ids, id)
			return r.Column(0, &ids[len(ids)-1])
		})
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
	}
	if fmt.Sprint(ids) != "[7]" {
		t.Errorf("partitions returned %v, want [7]", ids)
	}
	rows, err := view.RetrieveData(spanner.GFELatencyView.Name)
	if err != nil {
		t.Fatalf("retrieve: %v", err)
	}
	var count int64
	for _, r := range rows {
		if d, ok := r.Data.(*view.DistributionData); ok {
			count += d.Count
		}
	}
	if want := int64(1 + len(parts)); count < want {
		t.Errorf("GFE latency recorded %d times, want at least %d (PartitionQuery and each Execute)", count, want)
	}
}

// ClientConfig.Compression "gzip" makes the Go client send grpc-encoding: gzip;
// the server answers it. In this in-process server the Go client's own import of
// grpc's gzip codec registers it too, so the case that fails without the server's
// registration is tests/localspanner/test_fidelity.py's, against the binary.
func TestGoClientGzip(t *testing.T) {
	startServer(t)
	plain := newDatabase(t, "gzip", []string{"CREATE TABLE T (Id INT64 NOT NULL, S STRING(MAX)) PRIMARY KEY (Id)"})
	ctx := context.Background()
	client, err := spanner.NewClientWithConfig(ctx, plain.DatabaseName(), spanner.ClientConfig{Compression: "gzip"})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer client.Close()
	if _, err := client.Apply(ctx, []*spanner.Mutation{spanner.Insert("T", []string{"Id", "S"}, []any{int64(1), "zipped"})}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	iter := client.Single().Read(ctx, "T", spanner.AllKeys(), []string{"S"})
	defer iter.Stop()
	var got []string
	for {
		row, err := iter.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var s string
		if err := row.Column(0, &s); err != nil {
			t.Fatalf("column: %v", err)
		}
		got = append(got, s)
	}
	if fmt.Sprint(got) != "[zipped]" {
		t.Errorf("read %v, want [zipped]", got)
	}
}
