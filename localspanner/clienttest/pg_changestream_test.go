package clienttest

// The PostgreSQL dialect's change streams through the official Go client: the read
// function spanner.read_json_<stream>, each row one record as JSONB. Its keys are the
// GoogleSQL ChangeRecord's field names (data_change_record: commit_timestamp, mods with
// keys and new_values...; child_partitions_record: start_timestamp, child_partitions with
// token and parent_partition_tokens), as Spanner's own PostgreSQL converter writes them
// (tests/localspanner/test_pg_change_streams.py). The json tags below match those keys
// only: a record keyed otherwise (commitTimestamp, say) decodes empty and fails the test.

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
)

type pgCSRecord struct {
	Data *struct {
		CommitTimestamp time.Time `json:"commit_timestamp"`
		Mods            []struct {
			Keys      map[string]any `json:"keys"`
			NewValues map[string]any `json:"new_values"`
		} `json:"mods"`
	} `json:"data_change_record"`
	Children *struct {
		StartTimestamp  time.Time `json:"start_timestamp"`
		ChildPartitions []struct {
			Token                 string   `json:"token"`
			ParentPartitionTokens []string `json:"parent_partition_tokens"`
		} `json:"child_partitions"`
	} `json:"child_partitions_record"`
}

// readPGStream runs one spanner.read_json_<stream> call and returns its records in order.
func readPGStream(ctx context.Context, client *spanner.Client, stream string, start, end time.Time, token *string) ([]pgCSRecord, error) {
	stmt := spanner.Statement{
		SQL:    "SELECT * FROM spanner.read_json_" + stream + "($1::timestamptz, $2::timestamptz, $3::text, $4::bigint, null)",
		Params: map[string]any{"p1": start, "p2": end, "p3": spanner.NullString{}, "p4": int64(100)},
	}
	if token != nil {
		stmt.Params["p3"] = *token
	}
	var out []pgCSRecord
	err := client.Single().Query(ctx, stmt).Do(func(row *spanner.Row) error {
		var j spanner.PGJsonB
		if err := row.Columns(&j); err != nil {
			return err
		}
		b, err := json.Marshal(j.Value)
		if err != nil {
			return err
		}
		var rec pgCSRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}

func TestPGChangeStreamChildrenAfterASplit(t *testing.T) {
	ctx := context.Background()
	client, da, inst := newPGDatabase(t, "pgcs")
	op, err := da.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: inst + "/databases/db", Statements: []string{
		"ALTER DATABASE db SET spanload_split_rows = 8", // the local server's split size, as PostgreSQL sets a parameter
		"CREATE TABLE t (id bigint PRIMARY KEY, b bigint)",
		"CREATE CHANGE STREAM s FOR t WITH (value_capture_type = 'NEW_VALUES')",
	}})
	if err != nil {
		t.Fatalf("UpdateDatabaseDdl: %v", err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatalf("UpdateDatabaseDdl: %v", err)
	}
	start := time.Now()
	var want []csChange
	for i := int64(0); i < 40; i++ {
		id := (i * 7) % 20
		ts, err := client.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("t", []string{"id", "b"}, []any{id, i})})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, csChange{ts: ts, id: id, b: i})
	}
	end := time.Now()
	read := func(token *string, from time.Time) ([]csChange, []*csChildren, error) {
		recs, err := readPGStream(ctx, client, "s", from, end, token)
		var changes []csChange
		var children []*csChildren
		for _, r := range recs {
			if d := r.Data; d != nil {
				for _, m := range d.Mods {
					changes = append(changes, csChangeOf(d.CommitTimestamp, m.Keys, m.NewValues, "id", "b"))
				}
			}
			if c := r.Children; c != nil {
				cp := &csChildren{StartTimestamp: c.StartTimestamp}
				for _, k := range c.ChildPartitions {
					cp.ChildPartitions = append(cp.ChildPartitions, &csChild{Token: k.Token, ParentPartitionTokens: k.ParentPartitionTokens})
				}
				children = append(children, cp)
			}
		}
		return changes, children, err
	}
	checkExactlyOnce(t, want, read, start)
}
