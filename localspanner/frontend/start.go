package frontend

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/stats"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// janitorInterval is how often idle transactions are discarded and old row
// versions pruned.
const janitorInterval = 10 * time.Second

// Start registers every service on srv, backed by reg, and runs the background
// cleanup until ctx ends. It returns the backend.
func Start(ctx context.Context, srv *grpc.Server, reg *storage.Registry) *Backend {
	col := stats.New()
	txns := txn.NewManager()
	b := &Backend{Reg: reg, Txns: txns, Exec: &exec.Engine{Txns: txns, Stats: col}, collector: col}
	b.Txns.OnCommit = func(db *storage.DB, c txn.CommitStat) {
		col.RecordCommit(db, c.Shape, c.Tag, c.Committed, c.Aborted, c.Participants, c.ModelCPU.Seconds(), c.CommitDur.Seconds(), c.TotalDur.Seconds())
	}
	b.Txns.OnLockConflict = func(db *storage.DB, c txn.LockConflict) {
		reqs := make([]stats.LockRequest, len(c.Requests))
		for i, r := range c.Requests {
			reqs[i] = stats.LockRequest(r)
		}
		col.RecordLockConflict(db, c.RowRange, c.Wait.Seconds(), reqs)
	}
	for _, db := range reg.AllDatabases() {
		db.Sys = col.For(db)
	}
	reg.OnOpen = func(db *storage.DB) { db.Sys = col.For(db) }
	if dir := reg.PersistentDir(); dir != "" {
		if err := txns.Persist(dir, reg.Database); err != nil {
			slog.Warn("sessions will not survive a restart", "err", err)
		}
	}
	Register(srv, b)
	go b.Txns.Janitor(ctx, janitorInterval)
	go func() {
		tick := time.NewTicker(janitorInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				for _, db := range reg.AllDatabases() {
					if err := db.PruneHistory(ctx); err != nil {
						slog.Warn("pruning history failed", "db", db.Name, "err", err)
					}
				}
			}
		}
	}()
	return b
}
