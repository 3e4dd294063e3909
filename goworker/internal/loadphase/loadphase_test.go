package loadphase

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunCutCoversEveryRowOnceInItsBatches: the batches of [start, start+count) are cut at the
// size and at the given ends, and every row is written exactly once whatever the cuts.
func TestRunCutCoversEveryRowOnceInItsBatches(t *testing.T) {
	for _, c := range []struct {
		name         string
		start, count int64
		next         func(lo int64) int64
		batches      int
	}{
		{"one batch", 0, 10, func(lo int64) int64 { return lo + 1000 }, 1},
		{"batches of 3", 5, 10, func(lo int64) int64 { return lo + 3 }, 4},
		{"cut at a table's end (7)", 0, 12, func(lo int64) int64 {
			if lo < 7 {
				return min(lo+5, 7)
			}
			return lo + 5
		}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[int64]int{}
			batches := 0
			progress := &Progress{}
			err := RunCut(context.Background(), c.start, c.count, c.next, time.Second, progress,
				func(_ context.Context, lo, hi int64) (bool, error) {
					mu.Lock()
					defer mu.Unlock()
					batches++
					for i := lo; i < hi; i++ {
						seen[i]++
					}
					return false, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			for i := c.start; i < c.start+c.count; i++ {
				if seen[i] != 1 {
					t.Errorf("row %d written %d times", i, seen[i])
				}
			}
			if len(seen) != int(c.count) || batches != c.batches || progress.Rows.Load() != c.count {
				t.Errorf("%d rows in %d batches (progress %d); want %d in %d", len(seen), batches,
					progress.Rows.Load(), c.count, c.batches)
			}
		})
	}
}

// TestABatchThatKeepsFailingFailsTheLoadAndSkippedRowsCount: Attempts tries, then the error;
// skipped batches count as done and skipped.
func TestABatchThatKeepsFailingFailsTheLoadAndSkippedRowsCount(t *testing.T) {
	boom := errors.New("boom")
	tries := 0
	err := RunBatches(context.Background(), 0, 3, 10, time.Second, &Progress{}, func(context.Context, int64, int64) (bool, error) {
		tries++
		return false, boom
	})
	if !errors.Is(err, boom) || tries != Attempts {
		t.Errorf("err %v after %d tries; want boom after %d", err, tries, Attempts)
	}
	progress := &Progress{}
	if err := RunBatches(context.Background(), 0, 25, 10, time.Second, progress, func(_ context.Context, lo, _ int64) (bool, error) {
		return lo == 10, nil
	}); err != nil {
		t.Fatal(err)
	}
	if progress.Rows.Load() != 25 || progress.Skipped.Load() != 10 {
		t.Errorf("rows %d, skipped %d; want 25 and 10", progress.Rows.Load(), progress.Skipped.Load())
	}
}

// TestATargetThatStopsAnsweringEndsTheLoadAtOnce: while no batch finishes the probe is asked; two
// unanswered probes end the load with the target's sentence and the rows reached, without
// waiting out the commits in flight (they end with the load's context).
func TestATargetThatStopsAnsweringEndsTheLoadAtOnce(t *testing.T) {
	defer func(d time.Duration) { StallProbe = d }(StallProbe)
	StallProbe = 20 * time.Millisecond
	var probes atomic.Int32
	ctx := WithProbe(context.Background(), func(context.Context) error {
		probes.Add(1)
		return errors.New("the local target at 127.0.0.1:1 did not answer: UNAVAILABLE: refused")
	})
	err := RunBatches(ctx, 0, 100, 10, time.Minute, &Progress{}, func(ctx context.Context, lo, _ int64) (bool, error) {
		if lo < 20 {
			return false, nil
		}
		<-ctx.Done() // a commit whose client keeps retrying a refused connection, until its deadline
		return false, ctx.Err()
	})
	want := "the local target at 127.0.0.1:1 did not answer: UNAVAILABLE: refused; the load stopped with 20 of its " +
		"100 rows [0, 100) written (2 probes in a row unanswered)"
	if err == nil || err.Error() != want || probes.Load() != UnreachableProbes {
		t.Errorf("err %v after %d probes; want %q", err, probes.Load(), want)
	}
}

// TestASlowCommitIntoATargetThatAnswersKeepsItsTime: the probe answers, the load waits.
func TestASlowCommitIntoATargetThatAnswersKeepsItsTime(t *testing.T) {
	defer func(d time.Duration) { StallProbe = d }(StallProbe)
	StallProbe = 20 * time.Millisecond
	var probes atomic.Int32
	ctx := WithProbe(context.Background(), func(context.Context) error { probes.Add(1); return nil })
	progress := &Progress{}
	err := RunBatches(ctx, 0, 30, 10, time.Minute, progress, func(_ context.Context, lo, _ int64) (bool, error) {
		if lo == 10 {
			time.Sleep(time.Second)
		}
		return false, nil
	})
	if err != nil || progress.Rows.Load() != 30 || probes.Load() < UnreachableProbes {
		t.Errorf("err %v, rows %d, probes %d; want the whole load, the probe asked", err, progress.Rows.Load(), probes.Load())
	}
}
