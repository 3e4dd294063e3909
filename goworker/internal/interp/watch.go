package interp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const (
	watchErrorBackoff = 200 * time.Millisecond
	watchPausedNap    = 50 * time.Millisecond
	// DefaultPollIntervalMs and DefaultWatchLimit are model/workload.py Watch's defaults.
	DefaultPollIntervalMs = 1000
	DefaultWatchLimit     = 10_000
)

// WatchSQL is the poll of a definition's watch: the rows whose commit timestamp is at or past the
// newest seen (at: rows seen at that very timestamp are skipped by key, so that a full page that
// ends inside one commit loses nothing), oldest first; rows meeting w.Filter only, and forced
// through w.Index (Spanner's table hint FORCE_INDEX; a statement hint comment on a PostgreSQL
// database) when hinted. Its parameters are since and limit, on a PostgreSQL database (pg) $1 and $2.
// With w.Versions it also reads each row's version and writer, and with w.Shards its shard, of
// the values shards only (a poller's group).
func WatchSQL(w *Watch, key []string, hinted, pg bool, shards ...int64) string {
	cols := append(append([]string{}, key...), w.Timestamp)
	if v := w.Versions; v != nil {
		cols = append(cols, v.Version, v.Writer)
	}
	table := w.Table
	since, limit := "@since", "@limit"
	if pg {
		since, limit = "$1", "$2"
	}
	if hinted && w.Index != "" {
		if pg {
			table += " /*@ FORCE_INDEX=" + w.Index + " */"
		} else {
			table += "@{FORCE_INDEX=" + w.Index + "}"
		}
	}
	where := ""
	if w.Filter != "" {
		where = w.Filter + " AND "
	}
	if w.Shards != nil {
		cols = append(cols, w.Shards.Column)
		values := make([]string, len(shards))
		for i, v := range shards {
			values[i] = strconv.FormatInt(v, 10)
		}
		where += w.Shards.Column + " IN (" + strings.Join(values, ", ") + ") AND "
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s%s >= %s ORDER BY %s LIMIT %s",
		strings.Join(cols, ", "), table, where, w.Timestamp, since, w.Timestamp, limit)
}

// ShardGroups splits values round-robin between n groups (group i: values[i::n], as
// workers/watcher.py shard_groups), at most one group a value.
func ShardGroups(values []int64, n int) [][]int64 {
	n = max(1, min(n, len(values)))
	groups := make([][]int64, n)
	for i, v := range values {
		groups[i%n] = append(groups[i%n], v)
	}
	return groups
}

// hinted says whether the poll is forced through the index with these knob values.
func (w *Watch) hinted(knobs Knobs) bool {
	if w.Index == "" {
		return false
	}
	if w.ForceIndex == nil {
		return true
	}
	on, err := knobs.flag(*w.ForceIndex)
	return err != nil || on // a knob the control plane checked: an error keeps the default
}

// watchParams are the poll's parameters by the names WatchSQL gives them.
func watchParams(pg bool, since time.Time, limit int64) map[string]any {
	if pg {
		return map[string]any{"p1": since, "p2": limit}
	}
	return map[string]any{"since": since, "limit": limit}
}

// PrimaryKey reads table's key columns from INFORMATION_SCHEMA (pg: of a PostgreSQL database,
// whose tables are in schema public and whose parameters are $1...).
func PrimaryKey(ctx context.Context, client *spanner.Client, table string, pg bool) ([]string, error) {
	schema, param, name := "", "@table", "table"
	if pg {
		schema, param, name = "public", "$1", "p1"
	}
	it := client.Single().Query(ctx, spanner.Statement{
		SQL: "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA = '" + schema + "' AND " +
			"TABLE_NAME = " + param + " AND INDEX_NAME = 'PRIMARY_KEY' ORDER BY ORDINAL_POSITION",
		Params: map[string]any{name: table}})
	var key []string
	err := it.Do(func(r *spanner.Row) error {
		var c string
		if err := r.Columns(&c); err != nil {
			return err
		}
		key = append(key, c)
		return nil
	})
	if err == nil && len(key) == 0 {
		err = fmt.Errorf("table %s has no primary key columns in INFORMATION_SCHEMA", table)
	}
	return key, err
}

// Watcher polls a definition's watched table: `watchers` pollers, each on its own, every
// poll_interval (at once again after a full page), `limit` rows a poll; it records watcher.poll
// (the poll's time) and watcher.notify (per row: received minus its commit timestamp). With
// shards, poller i polls the shard values values[i::watchers]; without, each sees every change.
// With versions, each change goes to the SeenLedger: from every poller with shards, else from
// poller 0 only (any other would see every change again).
type Watcher struct {
	def   *Watch
	key   []string
	pg    bool
	conn  func() *spanclient.Conn
	db    Backend
	stats *metrics.Stats
	mu    sync.Mutex
	knobs Knobs
	hint  bool
	runPause
	seenLedger
	life  sync.Mutex // serializes Start, Apply's regroup and the stops
	start time.Time
	polls []*poller
}

type poller struct {
	w      *Watcher
	shards []int64             // with watch.shards: this poller's values
	skip   map[int64]*position // shard -> where the poller that had it before a regroup reached
	feeds  bool                // the SeenLedger hears of this poller's changes
	mu     sync.Mutex
	position
	lag   *lagMeter
	until time.Time // a hand-over's bound (zero: none): rows committed after it are not received
	stop  chan struct{}
	wake  chan struct{} // a new poll interval: the wait in progress ends (lag.go)
	once  sync.Once
	done  chan struct{}
}

// position is how far a poller has read: every change before since, and those at since whose
// keys atLast holds.
type position struct {
	since  time.Time
	atLast map[string]bool
}

// covers says whether a poller at p has received c already.
func (p *position) covers(c *change) bool {
	return c.ts.Before(p.since) || c.ts.Equal(p.since) && p.atLast[c.key]
}

func (p *poller) halt() { p.once.Do(func() { close(p.stop) }) }

// NewWatcher watches def from start (the server's time at the run's start), with key the table's
// key columns (def.Key, else PrimaryKey), polling through db (pg: a PostgreSQL database).
func NewWatcher(def *Watch, key []string, pg bool, knobs Knobs, conn func() *spanclient.Conn, db Backend,
	stats *metrics.Stats, start time.Time) *Watcher {
	return &Watcher{def: def, key: key, hint: def.hinted(knobs), pg: pg, conn: conn, db: db, stats: stats,
		knobs: knobs, start: start}
}

// SQL is the poll statement (of the first poller's shards; for SPANNER_SYS query statistics).
func (w *Watcher) SQL() string {
	var shards []int64
	if w.def.Shards != nil {
		shards = ShardGroups(w.def.Shards.Values, 1)[0]
	}
	return w.sqlOf(shards)
}

func (w *Watcher) sqlOf(shards []int64) string {
	w.mu.Lock()
	hint := w.hint
	w.mu.Unlock()
	return WatchSQL(w.def, w.key, hint, w.pg, shards...)
}

// SetStart moves the start (before Start): after a load phase, whose rows are not changes.
func (w *Watcher) SetStart(ts time.Time) { w.start = ts }

func (w *Watcher) figures() (intervalMs float64, limit int64, watchers int) {
	w.mu.Lock()
	knobs := w.knobs
	w.mu.Unlock()
	intervalMs, limit, watchers = DefaultPollIntervalMs, DefaultWatchLimit, 1
	if d := w.def.PollInterval; d != nil {
		if v, err := knobs.duration(*d); err == nil {
			intervalMs = v
		}
	}
	if n := w.def.Limit; n != nil {
		if v, err := knobs.integer(*n, "limit"); err == nil && v > 0 {
			limit = v
		}
	}
	if n := w.def.Watchers; n != nil {
		if v, err := knobs.integer(*n, "watchers"); err == nil && v > 0 {
			watchers = int(v)
		}
	}
	return intervalMs, limit, watchers
}

// Apply takes new knob values (poll_interval, limit, the hint from the next poll on; a new count
// of watchers applies at once: with shards, the pollers regroup).
func (w *Watcher) Apply(knobs Knobs) {
	interval, _, _ := w.figures()
	w.mu.Lock()
	w.knobs = knobs
	w.hint = w.def.hinted(knobs)
	w.mu.Unlock()
	newInterval, _, watchers := w.figures()
	w.life.Lock()
	defer w.life.Unlock()
	w.mu.Lock()
	started, now := len(w.polls) > 0, len(w.polls)
	if newInterval != interval { // only then: waking on another change would shift the polls
		for _, p := range w.polls {
			select {
			case p.wake <- struct{}{}:
			default:
			}
		}
	}
	w.mu.Unlock()
	if !started {
		return
	}
	if w.def.Shards != nil {
		if len(ShardGroups(w.def.Shards.Values, watchers)) != now {
			w.regroup(watchers)
		}
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.polls) < watchers {
		first := w.polls[0]
		first.mu.Lock()
		from := first.position.copy()
		first.mu.Unlock()
		w.startPollerLocked(nil, nil, from, pacing.Now())
	}
	for len(w.polls) > watchers {
		last := w.polls[len(w.polls)-1]
		w.polls = w.polls[:len(w.polls)-1]
		last.halt()
	}
}

func (p *position) copy() position {
	p2 := position{since: p.since, atLast: make(map[string]bool, len(p.atLast))}
	for k := range p.atLast {
		p2.atLast[k] = true
	}
	return p2
}

func (w *Watcher) Start() {
	_, _, watchers := w.figures()
	w.life.Lock()
	defer w.life.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.startGroupsLocked(watchers, position{since: w.start}, nil, pacing.Now())
}

// startGroupsLocked starts the pollers of n groups from `from`, caught up at caughtUp (lag.go);
// skip is where each shard's previous poller reached (nil: none).
func (w *Watcher) startGroupsLocked(n int, from position, skip map[int64]*position, caughtUp float64) {
	if w.def.Shards == nil {
		for range n {
			w.startPollerLocked(nil, nil, from.copy(), caughtUp)
		}
		return
	}
	for _, shards := range ShardGroups(w.def.Shards.Values, n) {
		mine := map[int64]*position{}
		for _, s := range shards {
			if at, ok := skip[s]; ok {
				mine[s] = at
			}
		}
		w.startPollerLocked(shards, mine, from.copy(), caughtUp)
	}
}

func (w *Watcher) startPollerLocked(shards []int64, skip map[int64]*position, from position, caughtUp float64) {
	q := &poller{w: w, shards: shards, skip: skip, position: from, lag: newLagMeter(caughtUp),
		feeds: w.def.Shards != nil || len(w.polls) == 0, stop: make(chan struct{}), wake: make(chan struct{}, 1),
		done: make(chan struct{})}
	w.polls = append(w.polls, q)
	go q.run()
}

// regroup stops the pollers and starts n groups from the oldest position any of them had: nothing
// is missed. The changes between it and where the old poller of their shard had reached are read
// again but skipped, so nothing is counted twice either (workers/watcher.py _regroup).
func (w *Watcher) regroup(n int) {
	old := w.haltPolls()
	reached := map[int64]*position{}
	oldest := old[0].since
	caughtUp := old[0].lag.CaughtUp() // the new pollers' lag goes on from the slowest old one's
	for _, p := range old {
		caughtUp = min(caughtUp, p.lag.CaughtUp())
		if p.since.Before(oldest) {
			oldest = p.since
		}
		for _, s := range p.shards {
			at := p.position.copy()
			if prev, ok := p.skip[s]; ok { // it may not have caught up with its own predecessor yet
				at = farther(at, prev)
			}
			reached[s] = &at
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.startGroupsLocked(n, position{since: oldest}, reached, caughtUp)
}

// farther is the position past which neither a nor b has received anything.
func farther(a position, b *position) position {
	switch {
	case b.since.After(a.since):
		return b.copy()
	case b.since.Equal(a.since):
		for k := range b.atLast {
			a.atLast[k] = true
		}
	}
	return a
}

func (p *poller) run() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		if p.w.isPaused() {
			p.lag.Pause(pacing.Now())
			p.sleep(watchPausedNap)
			continue
		}
		p.lag.Resume(pacing.Now())
		began := time.Now()
		full, err := p.poll()
		switch {
		case err != nil:
			p.sleep(watchErrorBackoff)
		case !full:
			intervalMs, _, _ := p.w.figures()
			p.sleep(msDuration(intervalMs) - time.Since(began))
		}
	}
}

func (p *poller) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.wake:
	case <-p.stop:
	}
}

// poll runs one poll; full says the page was full (poll again at once).
func (p *poller) poll() (bool, error) {
	w := p.w
	_, limit, _ := w.figures()
	p.mu.Lock()
	since, skip, until := p.since, len(p.atLast), p.until
	p.mu.Unlock()
	stmt := spanner.Statement{SQL: w.sqlOf(p.shards), Params: watchParams(w.pg, since, limit+int64(skip))}
	conn := w.conn()
	start := pacing.Now()
	ctx, timing, done, err := conn.Begin(spanclient.Tagged(context.Background(), protocol.TagOpWatcher))
	lastRPC := codes.OK
	var rows []change
	if err == nil {
		// a hand-over's drain reads at its bound H: every commit up to H is in such a read (a strong
		// read's timestamp may precede a commit still in flight whose timestamp is at most H)
		rows, err = w.db.Poll(ctx, stmt, len(w.key), pollColumns{versions: w.def.Versions != nil, shard: w.def.Shards != nil}, until)
		done()
		lastRPC = timing.LastFailure()
	}
	if err != nil {
		w.stats.Failed(protocol.OpWatcherPoll, err, (pacing.Now()-start)*usPerS, lastRPC)
		return false, err
	}
	end := pacing.Now()
	w.stats.Succeeded(protocol.OpWatcherPoll, -1, start, end, timing.Parts())
	p.lag.Polled(start, end, int64(len(rows)) >= limit+int64(skip))
	seenAt := time.Now()
	w.stats.Count(protocol.CounterPolls, 1)
	w.stats.Count(protocol.CounterRowsPolled, int64(len(rows)))
	latencies := make([]float64, 0, len(rows))
	seen := w.Ledger()
	p.mu.Lock()
	defer p.mu.Unlock()
	full := int64(len(rows)) >= limit+int64(skip)
	for i := range rows {
		c := &rows[i]
		if !p.until.IsZero() && c.ts.After(p.until) { // (ts, key) order: the rest are after it too
			full = false
			break
		}
		if p.covers(c) {
			continue
		}
		if c.ts.After(p.since) {
			p.since = c.ts
			clear(p.atLast)
		}
		if p.atLast == nil {
			p.atLast = map[string]bool{}
		}
		p.atLast[c.key] = true
		if c.shard != nil {
			if before, ok := p.skip[*c.shard]; ok && before.covers(c) {
				continue // received by the poller that had this shard before a regroup
			}
		}
		if seen != nil && p.feeds {
			seen.Saw(c.id, c.version, c.writer)
		}
		latencies = append(latencies, float64(seenAt.Sub(c.ts).Microseconds()))
	}
	if len(latencies) > 0 {
		w.stats.Recorder.RecordMany(protocol.OpWatcherNotify, latencies)
		w.stats.Count(protocol.CounterReceivedChanges, int64(len(latencies)))
	}
	return full, nil
}

// haltPolls takes the pollers out of w.polls and stops them, waiting for each poll to end.
func (w *Watcher) haltPolls() []*poller {
	w.mu.Lock()
	polls := w.polls
	w.polls = nil
	w.mu.Unlock()
	for _, p := range polls {
		p.halt()
	}
	for _, p := range polls {
		<-p.done
	}
	return polls
}

// StopAndDrain stops polling on the interval, then polls each poller until a page is not full.
func (w *Watcher) StopAndDrain(giveUp time.Duration) error {
	w.life.Lock()
	defer w.life.Unlock()
	w.stopLocked()
	return w.drainLocked(giveUp)
}

func (w *Watcher) drainLocked(giveUp time.Duration) error {
	w.mu.Lock()
	polls := w.polls
	w.mu.Unlock()
	for i, p := range polls {
		if err := drainWith(p.poll, giveUp, watchErrorBackoff, fmt.Sprintf("watch-%d", i)); err != nil {
			return err
		}
	}
	return nil
}

// HandOver stops polling for a switch to a change stream and returns the hand-over time H: every
// change committed up to H has been received, none after it. The pollers drain; H is the newest
// commit any received (or floor, the stream's creation, if later): every commit up to it is then
// visible, and each poller drains again up to H, so the pollers of other shards catch up to it. The
// Go twin of watch.py hand_over.
func (w *Watcher) HandOver(floor time.Time, giveUp time.Duration) (time.Time, error) {
	w.life.Lock()
	defer w.life.Unlock()
	w.stopLocked()
	if err := w.drainLocked(giveUp); err != nil {
		return floor, err
	}
	w.mu.Lock()
	until := floor
	for _, p := range w.polls {
		p.mu.Lock()
		if p.since.After(until) {
			until = p.since
		}
		p.mu.Unlock()
	}
	for _, p := range w.polls {
		p.mu.Lock()
		p.until = until
		p.mu.Unlock()
	}
	w.mu.Unlock()
	return until, w.drainLocked(giveUp)
}

// Stop stops every poller, waiting for its poll to end.
func (w *Watcher) Stop() {
	w.life.Lock()
	defer w.life.Unlock()
	w.stopLocked()
}

func (w *Watcher) stopLocked() {
	polls := w.haltPolls()
	w.mu.Lock()
	w.polls = polls // kept for the drain and the gauges
	w.mu.Unlock()
}

// Gauges adds watcher.lag_ms, the lag of the interval that ends now (lag.go): its slowest
// poller's; none while paused.
func (w *Watcher) Gauges(out map[string]float64) {
	w.mu.Lock()
	polls := w.polls
	w.mu.Unlock()
	now := pacing.Now()
	worst, any := 0.0, false
	for _, p := range polls {
		if lag, ok := p.lag.Take(now); ok {
			worst, any = max(worst, lag), true
		}
	}
	if any {
		out[protocol.GaugeWatcherLagMs] = worst * 1000
	}
}
