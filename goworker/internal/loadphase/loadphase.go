// Package loadphase runs a load phase: batches of rows, InFlight commits at a time, each batch
// tried Attempts times, a stalled load asking whether the target still answers; with resume, a
// batch already there is counted and skipped.
package loadphase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner"
)

const (
	BatchRows    = 1000 // rows per commit (7 columns: 7,000 mutations)
	InFlight     = 4    // commits in flight per worker process
	Attempts     = 4
	retryBackoff = 200 * time.Millisecond
	// MinBatchTimeout is the least deadline of one batch: big commits into a busy server take
	// longer than the measured phase's operations, and a batch that times out is only tried again.
	MinBatchTimeout = 60 * time.Second
	// A batch's deadline is long and the client retries a refused connection within it: a target
	// that died mid-load failed the run only after Attempts x 60 s. So while no batch finishes for
	// StallProbe, the context's probe (WithProbe: the start-up probe, one quick RPC) is asked;
	// UnreachableProbes unanswered in a row end the load at once. A busy target answers it, and
	// its slow commits keep their whole deadline.
	UnreachableProbes = 2
)

// StallProbe is how long the load stands still before the target is asked (a var for the tests).
var StallProbe = 2 * time.Second

type probeKey struct{}

// WithProbe is ctx with the probe a stalled load asks: nil when the target answers, else an error
// that names it.
func WithProbe(ctx context.Context, probe func(context.Context) error) context.Context {
	return context.WithValue(ctx, probeKey{}, probe)
}

// watch asks ctx's probe while progress stands still; it calls fail with a sentence naming the
// target and the rows reached once the target has not answered UnreachableProbes times in a row.
func watch(ctx context.Context, start, count int64, progress *Progress, fail func(error)) {
	probe, _ := ctx.Value(probeKey{}).(func(context.Context) error)
	if probe == nil {
		return
	}
	tick := time.NewTicker(StallProbe)
	defer tick.Stop()
	last, misses := progress.Rows.Load(), 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if rows := progress.Rows.Load(); rows != last {
			last, misses = rows, 0
			continue
		}
		err := probe(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			misses = 0
			continue
		}
		misses++
		slog.Warn("preload stalled and the target did not answer", "rows", last, "of", count, "err", err)
		if misses >= UnreachableProbes {
			fail(fmt.Errorf("%v; the load stopped with %d of its %d rows [%d, %d) written (%d probes in a row unanswered)",
				err, last, count, start, start+count, misses))
			return
		}
	}
}

// CountWith runs stmt, a SELECT COUNT(*) of table, in a single-use read.
func CountWith(ctx context.Context, client *spanner.Client, stmt spanner.Statement, table string) (int64, error) {
	it := client.Single().Query(ctx, stmt)
	defer it.Stop()
	row, err := it.Next()
	if err != nil {
		return 0, fmt.Errorf("count the rows of %s: %w", table, err)
	}
	var n int64
	if err := row.Columns(&n); err != nil {
		return 0, fmt.Errorf("count the rows of %s: %w", table, err)
	}
	return n, nil
}

// Progress counts a load's rows from every batch goroutine.
type Progress struct {
	Rows    atomic.Int64
	Skipped atomic.Int64
}

// Batch writes rows [lo, hi) under ctx (the batch's deadline), or says they are there already
// (skipped).
type Batch func(ctx context.Context, lo, hi int64) (skipped bool, err error)

// BatchEnds cuts batches of [start, start+count) at multiples of size and at the given ends
// (each load table's last row), so no batch spans two tables.
type BatchEnds func(lo int64) (hi int64)

// RunBatches runs write over [start, start+count) in batches of at most size rows, InFlight at a
// time, each tried Attempts times; it returns the first batch that failed, or ctx's error once
// ctx ends.
func RunBatches(ctx context.Context, start, count, size int64, timeout time.Duration, progress *Progress, write Batch) error {
	return RunCut(ctx, start, count, func(lo int64) int64 { return min(lo+size, start+count) }, timeout, progress, write)
}

// RunCut is RunBatches with batches cut by next (the end of the batch that starts at lo).
func RunCut(ctx context.Context, start, count int64, next BatchEnds, timeout time.Duration, progress *Progress, write Batch) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timeout = max(timeout, MinBatchTimeout)
	slots := make(chan struct{}, InFlight)
	var wg sync.WaitGroup
	var once sync.Once
	var failure error
	fail := func(err error) {
		once.Do(func() { failure = err; cancel() })
	}
	go watch(ctx, start, count, progress, fail)
	end := start + count
	for lo, hi := start, min(next(start), end); lo < end; lo, hi = hi, min(next(hi), end) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := batch(ctx, lo, hi, timeout, progress, write); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	if failure != nil {
		return failure
	}
	return ctx.Err()
}

func batch(ctx context.Context, lo, hi int64, timeout time.Duration, progress *Progress, write Batch) error {
	var err error
	for attempt := 1; attempt <= Attempts; attempt++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err = func() error {
			opCtx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			skipped, err := write(opCtx, lo, hi)
			if err != nil {
				return err
			}
			if skipped {
				progress.Skipped.Add(hi - lo)
			}
			progress.Rows.Add(hi - lo)
			return nil
		}()
		if err == nil || errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return err
		}
		slog.Warn("preloading a batch failed", "lo", lo, "hi", hi, "attempt", attempt, "err", err)
		select {
		case <-time.After(retryBackoff * time.Duration(attempt)):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("preloading rows [%d, %d) failed %d times: %w", lo, hi, Attempts, err)
}
