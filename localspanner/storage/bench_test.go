package storage

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/schema"
)

func BenchmarkCommitInsertOrUpdate(b *testing.B) { benchCommit(b, false) }

// BenchmarkCommitInsertOrUpdateWatched is the same commit into a table a change stream
// watches (the change log's trigger writes one more row per row written).
func BenchmarkCommitInsertOrUpdateWatched(b *testing.B) { benchCommit(b, true) }

func benchCommit(b *testing.B, watched bool) {
	db := openTestDB(b)
	if watched {
		if _, err := db.ApplyDDL(context.Background(), []string{"CREATE CHANGE STREAM S FOR P"}, schema.Compilers{}); err != nil {
			b.Fatal(err)
		}
	}
	tb, _ := db.Catalog().Table("P")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := &Mutation{Op: OpInsertOrUpdate, Table: tb, Columns: tb.Columns[:2], Rows: [][]any{{int64(i % 1000), "name"}}}
		if _, err := db.Commit(ctx, []*Mutation{m}, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPointRead(b *testing.B) {
	db := openTestDB(b)
	tb, _ := db.Catalog().Table("P")
	ctx := context.Background()
	for i := 0; i < 1000; i++ {
		m := &Mutation{Op: OpInsert, Table: tb, Columns: tb.Columns[:2], Rows: [][]any{{int64(i), "name"}}}
		if _, err := db.Commit(ctx, []*Mutation{m}, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	spec := &ReadSpec{Table: tb, Columns: tb.Columns[:2]}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		spec.KeySet = KeySet{Keys: [][]any{{int64(i % 1000)}}}
		q, args, err := spec.SQL(db.CurrentSource())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Read(ctx, q, args, func([]any) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitSixRowsIndexed is the 2PC preset's commit (6 new rows spread over
// the key space) into a table with a secondary index, as the Change Watcher's has.
func BenchmarkCommitSixRowsIndexed(b *testing.B) {
	db := openTestDB(b)
	ctx := context.Background()
	if _, err := db.ApplyDDL(ctx, []string{
		"CREATE TABLE T (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)",
		"CREATE INDEX TByV ON T (V)",
	}, schema.Compilers{}); err != nil {
		b.Fatal(err)
	}
	tb, _ := db.Catalog().Table("T")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows := make([][]any, 6)
		for j := range rows {
			k := int64(i*6+j) * 7919 % 1_000_003
			rows[j] = []any{k, k % 1000}
		}
		m := &Mutation{Op: OpInsertOrUpdate, Table: tb, Columns: tb.Columns[:2], Rows: rows}
		if _, err := db.Commit(ctx, []*Mutation{m}, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPruneHistory: the cost of pruning one superseded version (the soak's
// high preset supersedes ~2,200 a second, all pruned once past the retention).
func BenchmarkPruneHistory(b *testing.B) {
	db := openTestDB(b)
	tb, _ := db.Catalog().Table("P")
	ctx := context.Background()
	const perCommit = 1000
	for round := 0; round <= b.N/perCommit+1; round++ {
		rows := make([][]any, perCommit)
		for i := range rows {
			rows[i] = []any{int64(i), "name " + strconv.Itoa(round)}
		}
		m := &Mutation{Op: OpInsertOrUpdate, Table: tb, Columns: tb.Columns[:2], Rows: rows}
		if _, err := db.Commit(ctx, []*Mutation{m}, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	if err := db.pruneHistory(ctx, time.Now().Add(DefaultRetention+RetentionSlack+time.Minute)); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if n := db.one(b, "SELECT COUNT(*) FROM _h_P"); n != int64(0) {
		b.Fatalf("%v versions left after pruning", n)
	}
}
