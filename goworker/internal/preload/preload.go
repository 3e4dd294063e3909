// Package preload is the load phase of workers/preload.py: fill the run's table with rows shaped
// like the updater's (key = row number, the schema's payload, Version 0, WriterId "preload", the
// commit timestamp), in batches of loadphase.BatchRows rows (loadphase.RunBatches).
package preload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/loadphase"
	"github.com/spanload/spanload/goworker/internal/schema"
)

const (
	WriterID = "preload" // no run's writer: the reconciliation ignores these rows
	Version  = 0
)

// Count is the number of rows of spec's table with keys in [lo, hi); all of them when hi < 0.
func Count(ctx context.Context, client *spanner.Client, spec *schema.Spec, lo, hi int64) (int64, error) {
	stmt := spanner.NewStatement("SELECT COUNT(*) FROM " + spec.Table)
	if hi >= 0 {
		stmt.SQL += fmt.Sprintf(" WHERE %s >= @lo AND %s < @hi", spec.Key, spec.Key)
		stmt.Params = map[string]any{"lo": lo, "hi": hi}
	}
	return loadphase.CountWith(ctx, client, stmt, spec.Table)
}

// Write commits rows [lo, hi) of spec's table in one single-use commit (insert or update: a retried
// or resumed batch rewrites, never fails).
func Write(ctx context.Context, client *spanner.Client, spec *schema.Spec, lo, hi int64) error {
	rng := rand.New(rand.NewPCG(uint64(lo), 0x5eed))
	cols := spec.WriteColumns()
	ms := make([]*spanner.Mutation, 0, hi-lo)
	for key := lo; key < hi; key++ {
		row := make([]any, 0, len(cols))
		row = append(row, key)
		row = append(row, spec.Payload(rng, key)...)
		row = append(row, int64(Version), WriterID, spanner.CommitTimestamp)
		ms = append(ms, spanner.InsertOrUpdate(spec.Table, cols, row))
	}
	_, err := client.Apply(ctx, ms, spanner.ApplyAtLeastOnce())
	return err
}

// Run loads rows [start, start+count) of spec's table; it returns the first batch that failed
// Attempts times, or ctx's error once ctx ends.
func Run(ctx context.Context, client *spanner.Client, spec *schema.Spec, start, count int64, resume bool,
	timeout time.Duration, progress *loadphase.Progress) error {
	return loadphase.RunBatches(ctx, start, count, loadphase.BatchRows, timeout, progress, func(ctx context.Context, lo, hi int64) (bool, error) {
		if resume {
			n, err := Count(ctx, client, spec, lo, hi)
			if err != nil {
				return false, err
			}
			if n >= hi-lo {
				return true, nil
			}
		}
		return false, Write(ctx, client, spec, lo, hi)
	})
}
