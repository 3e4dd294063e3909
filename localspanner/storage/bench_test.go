package storage

import (
	"context"
	"testing"
)

func BenchmarkCommitInsertOrUpdate(b *testing.B) {
	db := openTestDB(b)
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
