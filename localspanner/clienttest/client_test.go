package clienttest

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
)

var watcherDDL = []string{
	`CREATE TABLE Changes (
		Id INT64 NOT NULL,
		ShardId INT64 AS (MOD(FARM_FINGERPRINT(CAST(Id AS STRING)), 19)) STORED,
		Payload STRING(MAX),
		LastUpdated TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
	) PRIMARY KEY (Id)`,
	"CREATE NULL_FILTERED INDEX ChangesByShard ON Changes (ShardId, LastUpdated)",
	"CREATE TABLE Counters (Id INT64 NOT NULL, Value INT64 NOT NULL) PRIMARY KEY (Id)",
}

func TestGoClient(t *testing.T) {
	for _, mode := range []struct{ name, multiplexed string }{{"multiplexed", "true"}, {"regular", "false"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Setenv("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS", mode.multiplexed)
			t.Setenv("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW", mode.multiplexed)
			startServer(t)
			runClientSuite(t, newDatabase(t, "watcher-"+mode.name, watcherDDL))
		})
	}
}

func runClientSuite(t *testing.T, client *spanner.Client) {
	ctx := context.Background()

	t.Run("commit timestamps are stored as returned", func(t *testing.T) {
		ts, err := client.Apply(ctx, []*spanner.Mutation{
			spanner.InsertOrUpdate("Changes", []string{"Id", "Payload", "LastUpdated"}, []any{int64(1), "one", spanner.CommitTimestamp}),
			spanner.InsertOrUpdate("Changes", []string{"Id", "Payload", "LastUpdated"}, []any{int64(2), "two", spanner.CommitTimestamp}),
		})
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		row, err := client.Single().ReadRow(ctx, "Changes", spanner.Key{int64(2)}, []string{"LastUpdated", "ShardId"})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var stored time.Time
		var shard int64
		if err := row.Columns(&stored, &shard); err != nil {
			t.Fatalf("columns: %v", err)
		}
		if !stored.Equal(ts) {
			t.Errorf("stored commit timestamp %v, CommitResponse said %v", stored, ts)
		}
		if shard < -18 || shard > 18 {
			t.Errorf("ShardId %d outside -18..18", shard)
		}
	})

	t.Run("change watcher query sees every commit in timestamp order", func(t *testing.T) {
		var written sync.Map
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					id := int64(1000 + w*100 + i)
					ts, err := client.Apply(ctx, []*spanner.Mutation{spanner.Insert("Changes", []string{"Id", "Payload", "LastUpdated"}, []any{id, "w", spanner.CommitTimestamp})})
					if err != nil {
						t.Errorf("apply: %v", err)
						return
					}
					written.Store(id, ts)
				}
			}(w)
		}
		wg.Wait()
		shards := make([]int64, 0, 37)
		for s := int64(-18); s <= 18; s++ {
			shards = append(shards, s)
		}
		stmt := spanner.Statement{
			SQL: `SELECT Id, LastUpdated FROM Changes@{FORCE_INDEX=ChangesByShard}
				WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit`,
			Params: map[string]any{"shards": shards, "ts": time.Unix(0, 0), "limit": int64(1000)},
		}
		seen := map[int64]time.Time{}
		var last time.Time
		err := client.Single().Query(ctx, stmt).Do(func(r *spanner.Row) error {
			var id int64
			var ts time.Time
			if err := r.Columns(&id, &ts); err != nil {
				return err
			}
			if ts.Before(last) {
				t.Errorf("row %d at %v comes after %v: not in LastUpdated order", id, ts, last)
			}
			last = ts
			seen[id] = ts
			return nil
		})
		if err != nil {
			t.Fatalf("watcher query: %v", err)
		}
		written.Range(func(k, v any) bool {
			got, ok := seen[k.(int64)]
			if !ok {
				t.Errorf("watcher missed row %d", k)
			} else if !got.Equal(v.(time.Time)) {
				t.Errorf("row %d: LastUpdated %v, commit timestamp %v", k, got, v)
			}
			return true
		})
	})

	t.Run("read-write transactions under contention lose no update", func(t *testing.T) {
		if _, err := client.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("Counters", []string{"Id", "Value"}, []any{int64(1), int64(0)})}); err != nil {
			t.Fatalf("seed: %v", err)
		}
		const workers, each = 8, 5
		var attempts atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
						attempts.Add(1)
						row, err := tx.ReadRow(ctx, "Counters", spanner.Key{int64(1)}, []string{"Value"})
						if err != nil {
							return err
						}
						var v int64
						if err := row.Columns(&v); err != nil {
							return err
						}
						return tx.BufferWrite([]*spanner.Mutation{spanner.Update("Counters", []string{"Id", "Value"}, []any{int64(1), v + 1})})
					})
					if err != nil {
						t.Errorf("transaction: %v", err)
					}
				}
			}()
		}
		wg.Wait()
		row, err := client.Single().ReadRow(ctx, "Counters", spanner.Key{int64(1)}, []string{"Value"})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var v int64
		if err := row.Columns(&v); err != nil {
			t.Fatalf("columns: %v", err)
		}
		if v != workers*each {
			t.Errorf("counter is %d after %d increments: lost updates", v, workers*each)
		}
		t.Logf("%d increments took %d attempts", workers*each, attempts.Load())
	})

	t.Run("transactions on different rows do not abort each other", func(t *testing.T) {
		for id := int64(10); id < 12; id++ {
			if _, err := client.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("Counters", []string{"Id", "Value"}, []any{id, int64(0)})}); err != nil {
				t.Fatalf("seed: %v", err)
			}
		}
		var attempts [2]atomic.Int64
		var both sync.WaitGroup
		both.Add(2)
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				id := int64(10 + i)
				_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
					n := attempts[i].Add(1)
					iter := tx.Query(ctx, spanner.Statement{SQL: "SELECT Value FROM Counters WHERE Id = @id", Params: map[string]any{"id": id}})
					defer iter.Stop()
					if _, err := iter.Next(); err != nil && !errors.Is(err, iterator.Done) {
						return err
					}
					if n == 1 {
						both.Done()
						both.Wait() // both transactions have read before either writes
					}
					_, err := tx.Update(ctx, spanner.Statement{SQL: "UPDATE Counters SET Value = Value + 1 WHERE Id = @id", Params: map[string]any{"id": id}})
					return err
				})
				if err != nil {
					t.Errorf("transaction on row %d: %v", id, err)
				}
			}(i)
		}
		wg.Wait()
		if a, b := attempts[0].Load(), attempts[1].Load(); a != 1 || b != 1 {
			t.Errorf("attempts %d and %d: transactions on different rows were aborted", a, b)
		}
	})

	t.Run("errors carry Spanner codes", func(t *testing.T) {
		_, err := client.Apply(ctx, []*spanner.Mutation{spanner.Insert("Changes", []string{"Id", "Payload", "LastUpdated"}, []any{int64(1), "dup", spanner.CommitTimestamp})})
		if spanner.ErrCode(err) != codes.AlreadyExists {
			t.Errorf("duplicate insert: got %v, want ALREADY_EXISTS", err)
		}
		_, err = client.Apply(ctx, []*spanner.Mutation{spanner.Update("Counters", []string{"Id", "Value"}, []any{int64(999), int64(1)})})
		if spanner.ErrCode(err) != codes.NotFound {
			t.Errorf("update of a missing row: got %v, want NOT_FOUND", err)
		}
	})

	t.Run("BatchWrite commits each group on its own", func(t *testing.T) {
		groups := []*spanner.MutationGroup{
			{Mutations: []*spanner.Mutation{spanner.Insert("Counters", []string{"Id", "Value"}, []any{int64(70), int64(1)})}},
			{Mutations: []*spanner.Mutation{spanner.Insert("Counters", []string{"Id", "Value"}, []any{int64(70), int64(2)})}},
		}
		codesSeen := map[int32]codes.Code{}
		err := client.BatchWrite(ctx, groups).Do(func(r *spannerpb.BatchWriteResponse) error {
			for _, i := range r.Indexes {
				codesSeen[i] = codes.Code(r.GetStatus().GetCode())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("batch write: %v", err)
		}
		if codesSeen[0] != codes.OK || codesSeen[1] != codes.AlreadyExists {
			t.Errorf("group codes %v, want 0: OK, 1: ALREADY_EXISTS", codesSeen)
		}
	})

	t.Run("stale reads see the past", func(t *testing.T) {
		before, err := client.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("Counters", []string{"Id", "Value"}, []any{int64(50), int64(1)})})
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if _, err := client.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("Counters", []string{"Id", "Value"}, []any{int64(50), int64(2)})}); err != nil {
			t.Fatalf("apply: %v", err)
		}
		var got []int64
		for _, tb := range []spanner.TimestampBound{spanner.ReadTimestamp(before), spanner.StrongRead()} {
			row, err := client.Single().WithTimestampBound(tb).ReadRow(ctx, "Counters", spanner.Key{int64(50)}, []string{"Value"})
			if err != nil {
				t.Fatalf("read %v: %v", tb, err)
			}
			var v int64
			if err := row.Columns(&v); err != nil {
				t.Fatalf("columns: %v", err)
			}
			got = append(got, v)
		}
		if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i] < got[j] }) || got[0] != 1 || got[1] != 2 {
			t.Errorf("read at the first commit and strong read gave %v, want [1 2]", got)
		}
	})
}
