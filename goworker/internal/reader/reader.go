// Package reader runs queries on the open-loop schedule (workers/reader.py): point (one row by a
// random key), recent_changes (the newest rows) and leaderboard (a join of Players and Scores);
// staleness_s > 0 reads at that exact staleness, 0 is a strong read.
package reader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/schema"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const (
	// RecentWindow is how far back recent_changes looks.
	RecentWindow = 10 * time.Second
	usPerS       = 1_000_000
)

// Statement is the SQL and parameters of one read.
func Statement(spec *schema.Spec, query string, rng *rand.Rand, keySpace int64, now time.Time) (spanner.Statement, error) {
	switch query {
	case protocol.QueryPoint:
		return spanner.Statement{SQL: spec.PointQuery, Params: map[string]any{"key": rng.Int64N(keySpace)}}, nil
	case protocol.QueryRecentChanges:
		if !strings.Contains(spec.RecentQuery, "@since") {
			return spanner.NewStatement(spec.RecentQuery), nil
		}
		return spanner.Statement{SQL: spec.RecentQuery, Params: map[string]any{"since": now.Add(-RecentWindow)}}, nil
	case protocol.QueryLeaderboard:
		if spec.LeaderboardQuery == "" {
			return spanner.Statement{}, fmt.Errorf("schema %q has no leaderboard query", spec.Kind)
		}
		return spanner.NewStatement(spec.LeaderboardQuery), nil
	}
	return spanner.Statement{}, fmt.Errorf("unknown reader query %q", query)
}

// Reader is the read workload of one worker.
type Reader struct {
	*pacing.Load
	conn     func() *spanclient.Conn
	spec     *schema.Spec
	keySpace func() int64
	stats    *metrics.Stats
	worker   int
	workers  int
	mu       sync.Mutex
	config   protocol.ReaderConfig
	rngPool  sync.Pool
}

func New(conn func() *spanclient.Conn, spec *schema.Spec, cfg protocol.ReaderConfig, keySpace func() int64,
	stats *metrics.Stats, worker, workers int) *Reader {
	r := &Reader{conn: conn, spec: spec, keySpace: keySpace, stats: stats, worker: worker, workers: workers, config: cfg}
	r.rngPool.New = func() any { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
	p := pacing.New("reader", r.read, pacing.Share(cfg.ReadsPerSecond, workers),
		pacing.ShareThreads(cfg.Concurrency, worker, workers), thinkTime(cfg), nil)
	r.Load = pacing.NewLoad(p, cfg.Enabled)
	return r
}

func thinkTime(cfg protocol.ReaderConfig) time.Duration {
	return time.Duration(cfg.ThinkTimeMs) * time.Millisecond
}

func (r *Reader) Apply(cfg protocol.ReaderConfig) {
	r.mu.Lock()
	r.config = cfg
	r.mu.Unlock()
	r.Pacer.SetRate(pacing.Share(cfg.ReadsPerSecond, r.workers))
	r.Pacer.SetParallelism(pacing.ShareThreads(cfg.Concurrency, r.worker, r.workers))
	r.Pacer.SetThinkTime(thinkTime(cfg))
	r.SetEnabled(cfg.Enabled)
}

func (r *Reader) Gauges(out map[string]float64) {
	out[protocol.GaugeReaderTargetRPS] = r.Pacer.Rate()
	out[protocol.GaugeReaderBehind] = float64(r.Pacer.Behind())
}

func (r *Reader) read(intended, actual float64) {
	r.mu.Lock()
	cfg := r.config
	r.mu.Unlock()
	rng := r.rngPool.Get().(*rand.Rand)
	stmt, err := Statement(r.spec, cfg.Query, rng, r.keySpace(), time.Now())
	r.rngPool.Put(rng)
	if err != nil {
		r.stats.Error(err)
		return
	}
	conn := r.conn()
	ctx, timing, done, err := conn.Begin(spanclient.Tagged(context.Background(), protocol.TagOpReader))
	if err != nil { // no session in time
		r.stats.Failed(protocol.OpReaderRead, err, (pacing.Now()-actual)*usPerS, codes.OK)
		return
	}
	err = consume(ctx, conn.Client, stmt, cfg.StalenessS)
	done()
	if err != nil {
		r.stats.Failed(protocol.OpReaderRead, err, (pacing.Now()-actual)*usPerS, timing.LastFailure())
		slog.Debug("read failed", "err", err)
		return
	}
	r.stats.Succeeded(protocol.OpReaderRead, intended, actual, pacing.Now(), timing.Parts())
	r.stats.Count(protocol.CounterReads, 1)
}

func consume(ctx context.Context, client *spanner.Client, stmt spanner.Statement, stalenessS float64) error {
	txn := client.Single()
	if stalenessS > 0 {
		txn = txn.WithTimestampBound(spanner.ExactStaleness(time.Duration(stalenessS * float64(time.Second))))
	}
	it := txn.Query(ctx, stmt)
	defer it.Stop()
	for {
		_, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
