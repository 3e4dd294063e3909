package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/schema"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const (
	errorBackoff = 200 * time.Millisecond
	// drainGiveUp bounds the final drain's retries (as the Python watcher's DRAIN_GIVE_UP_S): a
	// target that comes back within it loses nothing; past it the worker fails saying why, inside
	// the supervisor's stop grace (SPANLOAD_STOP_GRACE_S, 30 s).
	drainGiveUp = 20 * time.Second
	pausedNap   = 50 * time.Millisecond
	usPerS      = 1_000_000
)

// Position is a (commit timestamp, key) point in the watched table's change order.
type Position struct {
	TS  time.Time
	Key int64
}

// Before says whether p comes before or at q.
func (p Position) NotAfter(q Position) bool {
	return p.TS.Before(q.TS) || (p.TS.Equal(q.TS) && p.Key <= q.Key)
}

type group struct {
	w      *Watcher
	name   string
	shards []int64
	last   Position
	skip   map[int64]Position // shard -> position a previous group reached
	lag    *lagMeter
	stop   chan struct{}
	wake   chan struct{}
	done   chan struct{}
}

func (g *group) run() {
	defer close(g.done)
	for {
		select {
		case <-g.stop:
			return
		default:
		}
		if g.w.Paused() {
			g.lag.Pause(pacing.Now())
			g.sleep(pausedNap)
			continue
		}
		g.lag.Resume(pacing.Now())
		started := time.Now()
		full, err := g.pollOnce()
		if err != nil {
			select {
			case <-g.stop:
				return
			case <-time.After(errorBackoff):
			}
			continue
		}
		if full {
			continue
		}
		g.sleep(time.Duration(g.w.Config().PollIntervalMs)*time.Millisecond - time.Since(started))
	}
}

func (g *group) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-g.wake:
	case <-g.stop:
	}
}

// drain polls until a page is not full: after every writer stopped, it sees every change.
func (g *group) drain() error {
	return drainWith(g.pollOnce, drainGiveUp, errorBackoff, g.name)
}

// drainWith calls poll until a page is not full, retrying failed polls for giveUp; then it fails
// naming the last error.
func drainWith(poll func() (bool, error), giveUp, backoff time.Duration, name string) error {
	deadline := time.Now().Add(giveUp)
	for {
		full, err := poll()
		if err == nil && !full {
			return nil
		}
		if err != nil {
			if !time.Now().Before(deadline) {
				return fmt.Errorf("%s: the final drain failed for %.0f s; last error: %w", name, giveUp.Seconds(), err)
			}
			time.Sleep(backoff)
		}
	}
}

type row struct {
	key      int64
	version  spanner.NullInt64
	writerID spanner.NullString
	ts       time.Time
	shard    spanner.NullInt64
}

func (g *group) pollOnce() (bool, error) {
	w := g.w
	cfg := w.Config()
	params := map[string]any{"ts": g.last.TS, "key": g.last.Key, "limit": cfg.Limit}
	if cfg.ShardFilter == protocol.ShardFixed {
		params["shards"] = g.shards
	}
	stmt := spanner.Statement{SQL: PollSQL(w.spec, cfg), Params: params}
	conn := w.conn()
	start := pacing.Now()
	ctx, timing, done, err := conn.Begin(spanclient.Tagged(context.Background(), protocol.TagOpWatcher))
	lastRPC := codes.OK
	var rows []row
	if err == nil {
		rows, err = query(ctx, conn.Client, stmt)
		done()
		lastRPC = timing.LastFailure()
	}
	if err != nil {
		w.stats.Failed(protocol.OpWatcherPoll, err, (pacing.Now()-start)*usPerS, lastRPC)
		slog.Debug("poll failed", "group", g.name, "err", err)
		return false, err
	}
	w.stats.Succeeded(protocol.OpWatcherPoll, -1, start, pacing.Now(), timing.Parts())
	seenAt := time.Now()
	w.stats.Count(protocol.CounterPolls, 1)
	w.stats.Count(protocol.CounterRowsPolled, int64(len(rows)))
	if len(rows) > 0 {
		latencies := make([]float64, 0, len(rows))
		for _, r := range rows {
			if r.shard.Valid {
				if before, ok := g.skip[r.shard.Int64]; ok && (Position{r.ts, r.key}).NotAfter(before) {
					continue // already received by the group that watched this shard before a regroup
				}
			}
			var version *int64
			if r.version.Valid {
				version = &r.version.Int64
			}
			var writer *string
			if r.writerID.Valid {
				writer = &r.writerID.StringVal
			}
			w.seen.Saw(r.key, version, writer)
			latencies = append(latencies, float64(seenAt.Sub(r.ts).Microseconds()))
		}
		if len(latencies) > 0 {
			w.stats.Recorder.RecordMany(protocol.OpWatcherNotify, latencies)
			w.stats.Count(protocol.CounterReceivedChanges, int64(len(latencies)))
		}
		last := rows[len(rows)-1]
		g.last = Position{last.ts, last.key}
	}
	full := int64(len(rows)) >= cfg.Limit
	g.lag.Polled(start, pacing.Now(), full)
	return full, nil
}

func query(ctx context.Context, client *spanner.Client, stmt spanner.Statement) ([]row, error) {
	it := client.Single().Query(ctx, stmt)
	defer it.Stop()
	var rows []row
	for {
		r, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		var x row
		if err := r.Columns(&x.key, &x.version, &x.writerID, &x.ts, &x.shard); err != nil {
			return nil, fmt.Errorf("decode a polled row: %w", err)
		}
		rows = append(rows, x)
	}
}

// Watcher runs config.watchers shard groups; a change of watchers (or of the shard filter)
// regroups from the oldest position any group had, skipping what each shard's old group saw.
type Watcher struct {
	conn      func() *spanclient.Conn
	spec      *schema.Spec
	stats     *metrics.Stats
	seen      *ledger.SeenLedger
	startTS   time.Time
	mu        sync.Mutex
	config    protocol.WatcherConfig
	runPaused bool
	view      []*group // the groups, for the gauges (under mu: never waits for a poll)
	groupsMu  sync.Mutex
	groups    []*group
}

func (w *Watcher) setGroupsLocked(groups []*group) {
	w.groups = groups
	w.mu.Lock()
	w.view = groups
	w.mu.Unlock()
}

func New(conn func() *spanclient.Conn, spec *schema.Spec, cfg protocol.WatcherConfig, stats *metrics.Stats,
	seen *ledger.SeenLedger, startTS time.Time) *Watcher {
	return &Watcher{conn: conn, spec: spec, config: cfg, stats: stats, seen: seen, startTS: startTS}
}

func (w *Watcher) Config() protocol.WatcherConfig {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.config
}

func (w *Watcher) Paused() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runPaused || !w.config.Enabled
}

func (w *Watcher) SetPaused(paused bool) {
	w.mu.Lock()
	w.runPaused = paused
	w.mu.Unlock()
}

// SetStart makes the watcher start from ts instead (before Start): after a load phase, whose rows
// are not changes.
func (w *Watcher) SetStart(ts time.Time) { w.startTS = ts }

func (w *Watcher) Start() {
	w.groupsMu.Lock()
	defer w.groupsMu.Unlock()
	w.setGroupsLocked(w.makeGroups(w.Config(), Position{w.startTS, math.MinInt64}, pacing.Now()))
	for _, g := range w.groups {
		go g.run()
	}
}

func (w *Watcher) makeGroups(cfg protocol.WatcherConfig, from Position, caughtUp float64) []*group {
	var groups []*group
	for i, shards := range ShardGroups(cfg.Watchers) {
		if cfg.ShardFilter != protocol.ShardFixed {
			shards = ShardValues()
		}
		groups = append(groups, &group{
			w: w, name: fmt.Sprintf("watcher-%d", i), shards: shards, last: from, lag: newLagMeter(caughtUp),
			stop: make(chan struct{}), wake: make(chan struct{}, 1), done: make(chan struct{}),
		})
	}
	return groups
}

// Apply takes a patched config; a new poll interval applies now, not after the old one. Other
// changes (the hint, the limit) wait for the next poll: waking the groups would shift when they poll.
func (w *Watcher) Apply(cfg protocol.WatcherConfig) {
	w.mu.Lock()
	old := w.config
	w.config = cfg
	w.mu.Unlock()
	if cfg.Watchers != old.Watchers || cfg.ShardFilter != old.ShardFilter {
		w.regroup(cfg)
	}
	if cfg.PollIntervalMs == old.PollIntervalMs {
		return
	}
	w.groupsMu.Lock()
	for _, g := range w.groups {
		select {
		case g.wake <- struct{}{}:
		default:
		}
	}
	w.groupsMu.Unlock()
}

func (w *Watcher) stopGroupsLocked(timeout time.Duration) {
	for _, g := range w.groups {
		close(g.stop)
	}
	deadline := time.After(timeout)
	for _, g := range w.groups {
		select {
		case <-g.done:
		case <-deadline:
			return
		}
	}
}

func (w *Watcher) regroup(cfg protocol.WatcherConfig) {
	w.groupsMu.Lock()
	defer w.groupsMu.Unlock()
	old := w.groups
	w.stopGroupsLocked(time.Hour)
	oldest := old[0].last
	caughtUp := old[0].lag.CaughtUp()
	reached := map[int64]Position{}
	for _, g := range old {
		if g.last.NotAfter(oldest) {
			oldest = g.last
		}
		caughtUp = min(caughtUp, g.lag.CaughtUp())
		for _, s := range g.shards {
			reached[s] = g.last
		}
	}
	w.setGroupsLocked(w.makeGroups(cfg, oldest, caughtUp))
	for _, g := range w.groups {
		g.skip = map[int64]Position{}
		for _, s := range g.shards {
			if p, ok := reached[s]; ok {
				g.skip[s] = p
			}
		}
		go g.run()
	}
}

// StopAndDrain stops polling on the interval, then polls every group until it has seen everything.
func (w *Watcher) StopAndDrain() error {
	w.groupsMu.Lock()
	defer w.groupsMu.Unlock()
	w.stopGroupsLocked(time.Hour)
	for _, g := range w.groups {
		if err := g.drain(); err != nil {
			return err
		}
	}
	return nil
}

func (w *Watcher) Stop() {
	w.groupsMu.Lock()
	defer w.groupsMu.Unlock()
	w.stopGroupsLocked(5 * time.Second)
}

// Gauges adds watcher.lag_ms, the lag of the interval that ends now: its slowest group's (lag.go).
func (w *Watcher) Gauges(out map[string]float64) {
	w.mu.Lock()
	groups := w.view
	w.mu.Unlock()
	now := pacing.Now()
	worst, any := 0.0, false
	for _, g := range groups {
		if lag, ok := g.lag.Take(now); ok {
			worst, any = max(worst, lag), true
		}
	}
	if any {
		out[protocol.GaugeWatcherLagMs] = worst * 1000
	}
}
