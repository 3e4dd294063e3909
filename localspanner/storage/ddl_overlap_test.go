package storage

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/schema"
)

// A DDL batch's statements each get a commit timestamp, later than every commit before them,
// and commits going on meanwhile land between them rather than after the whole batch.
func TestDDLStatementsCommitInTurnWithWrites(t *testing.T) {
	db := openTestDB(t)
	rows := make([][]any, 0, 5000)
	for i := 0; i < 5000; i++ {
		rows = append(rows, []any{int64(-1 - i), "n"})
	}
	before, err := db.write(t, OpInsert, "P", []string{"Id", "Name"}, rows...)
	if err != nil {
		t.Fatal(err)
	}
	var (
		stop    atomic.Bool
		mu      sync.Mutex
		commits []int64
		wg      sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int64(0); !stop.Load() && i < 100_000; i++ {
			ts, err := db.Commit(context.Background(), []*Mutation{db.mutation(t, OpInsert, "P", []string{"Id", "Name"}, []any{i, "w"})}, nil, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			commits = append(commits, ts)
			mu.Unlock()
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := len(commits)
		mu.Unlock()
		if n >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d commits in 30 s", n)
		}
	}
	var stamps []int64
	ctx := WithDDLCommitted(context.Background(), func(ts int64) { stamps = append(stamps, ts) })
	n, err := db.ApplyDDL(ctx, []string{
		"CREATE INDEX PByName ON P (Name)",
		"ALTER TABLE P ADD COLUMN W STRING(MAX)",
		"CREATE INDEX PByW ON P (W)",
	}, schema.Compilers{})
	stop.Store(true)
	wg.Wait()
	if err != nil || n != 3 {
		t.Fatalf("ApplyDDL = %d, %v", n, err)
	}
	if len(stamps) != 3 || stamps[0] <= before || stamps[1] <= stamps[0] || stamps[2] <= stamps[1] {
		t.Fatalf("statement commit timestamps %v, after the preload's %d", stamps, before)
	}
	between := 0
	for _, ts := range commits {
		if stamps[0] < ts && ts < stamps[2] {
			between++
		}
	}
	if between == 0 {
		t.Fatalf("no commit between the first statement (%d) and the last (%d) of %d commits", stamps[0], stamps[2], len(commits))
	}
}
