package interp

// A definition's watch in change_stream mode (workloads/README.md, "Watch"): the Go twin of
// backend/spanload/workers/interp/watch_stream.py. The initial query of the stream's read
// function names the partitions; a reader per partition reads a window at a time (the query
// returns at the window's end) and hands off to the children a child partitions record names.
// Every mod of a data change record is one received change, timed from its commit timestamp.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const (
	streamWindow          = 2 * time.Second
	defaultHeartbeatMs    = 1000
	minHeartbeatMs        = 100 // Spanner's bounds of heartbeat_milliseconds
	maxHeartbeatMs        = 300_000
	watchModeChangeStream = "change_stream"
)

// DefinitionWatcher is what a worker does with a definition's watch, in either mode.
type DefinitionWatcher interface {
	SQL() string
	SetStart(time.Time)
	Start()
	Apply(Knobs)
	SetPaused(bool)
	Stop()
	StopAndDrain(time.Duration) error
	Gauges(map[string]float64)
	// SetLedger and Ledger: what a watch with versions received (SeenLedger)
	SetLedger(*ledger.SeenLedger)
	Ledger() *ledger.SeenLedger
}

// StreamMode reports whether the watch reads a change stream with these knob values (its mode, or
// the value of the knob its mode names: model/workload.py Watch.mode_in).
func (w *Watch) StreamMode(knobs Knobs) bool {
	if ref := w.ModeKnob(); ref != "" {
		v, _ := knobs[ref].(string)
		return v == watchModeChangeStream
	}
	return w.Mode == watchModeChangeStream
}

// ModeKnob is the knob the watch's mode follows (the run switches live), or "": the definition pins it.
func (w *Watch) ModeKnob() string {
	if name, ok := strings.CutPrefix(w.Mode, "$"); ok {
		return name
	}
	return ""
}

// ModeName is "change_stream" or "poll", the mode's value in the protocol.
func ModeName(stream bool) string {
	if stream {
		return watchModeChangeStream
	}
	return "poll"
}

// StreamName is the change stream a change_stream watch reads.
func (w *Watch) StreamName() string {
	if w.Stream != "" {
		return w.Stream
	}
	return "SpanloadWatch_" + w.Table
}

// StreamExists reports whether the database has the change stream name.
func StreamExists(ctx context.Context, client *spanner.Client, name string) (bool, error) {
	var n int64
	err := client.Single().Query(ctx, spanner.Statement{
		SQL:    "SELECT COUNT(*) FROM INFORMATION_SCHEMA.CHANGE_STREAMS WHERE CHANGE_STREAM_NAME = @name",
		Params: map[string]any{"name": name},
	}).Do(func(r *spanner.Row) error { return r.Columns(&n) })
	return n > 0, err
}

// StreamWatcher follows a change stream: `watchers` followers, each seeing every change.
type StreamWatcher struct {
	def   *Watch
	sql   string
	conn  func() *spanclient.Conn
	stats *metrics.Stats
	mu    sync.Mutex
	knobs Knobs
	runPause
	seenLedger
	start     time.Time
	followers []*follower
}

// NewStreamWatcher reads def's stream from start.
func NewStreamWatcher(def *Watch, knobs Knobs, conn func() *spanclient.Conn, stats *metrics.Stats, start time.Time) *StreamWatcher {
	sql := "SELECT ChangeRecord FROM READ_" + def.StreamName() + " (start_timestamp => @start, end_timestamp => @end, " +
		"partition_token => @token, heartbeat_milliseconds => @hb)"
	return &StreamWatcher{def: def, sql: sql, conn: conn, stats: stats, knobs: knobs, start: start}
}

// SQL is the read function's query (for SPANNER_SYS query statistics).
func (w *StreamWatcher) SQL() string { return w.sql }

// SetStart moves the start (before Start).
func (w *StreamWatcher) SetStart(ts time.Time) { w.start = ts }

func (w *StreamWatcher) figures() (heartbeatMs int64, watchers int) {
	w.mu.Lock()
	knobs := w.knobs
	w.mu.Unlock()
	heartbeatMs, watchers = defaultHeartbeatMs, 1
	if d := w.def.Heartbeat; d != nil {
		if v, err := knobs.duration(*d); err == nil {
			heartbeatMs = int64(v)
		}
	}
	if n := w.def.Watchers; n != nil {
		if v, err := knobs.integer(*n, "watchers"); err == nil && v > 0 {
			watchers = int(v)
		}
	}
	return min(maxHeartbeatMs, max(minHeartbeatMs, heartbeatMs)), watchers
}

// Apply takes new knob values: the heartbeat from the next read, the followers at once (a new
// one starts now; the last ones stop).
func (w *StreamWatcher) Apply(knobs Knobs) {
	w.mu.Lock()
	w.knobs = knobs
	started := w.followers != nil
	w.mu.Unlock()
	if started {
		w.resize()
	}
}

func (w *StreamWatcher) resize() {
	_, n := w.figures()
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.followers) > n {
		f := w.followers[len(w.followers)-1]
		w.followers = w.followers[:len(w.followers)-1]
		f.cancel()
	}
	// those of the start read from the run's start (the other workers may have written before this
	// one began); one added later starts now
	initial := len(w.followers) == 0
	for len(w.followers) < n {
		start := w.start
		if !initial {
			start = time.Now()
		}
		f := newFollower(w, start)
		f.feeds = len(w.followers) == 0 // only the first tells the SeenLedger (each sees every change)
		w.followers = append(w.followers, f)
		f.begin()
	}
}

// Start starts the followers.
func (w *StreamWatcher) Start() {
	w.mu.Lock()
	w.followers = []*follower{}
	w.mu.Unlock()
	w.resize()
}

// Stop stops every reader.
func (w *StreamWatcher) Stop() {
	w.mu.Lock()
	fs := w.followers
	w.mu.Unlock()
	for _, f := range fs {
		f.cancel()
	}
	for _, f := range fs {
		f.wg.Wait()
	}
}

// StopAndDrain stops the readers, then reads every open partition up to now: after every writer
// stopped, each follower has then seen every change.
func (w *StreamWatcher) StopAndDrain(giveUp time.Duration) error {
	until := time.Now()
	w.Stop()
	w.mu.Lock()
	fs := w.followers
	w.mu.Unlock()
	for _, f := range fs {
		if err := f.drain(until, giveUp); err != nil {
			return err
		}
	}
	return nil
}

// HandOver stops reading for a switch to polling and returns the hand-over time H (now, or where a
// partition has read to if later): every change committed up to H has been received, none after it.
// The read function answers a window only once every commit in it is in (a strong read's timestamp
// may precede a commit in flight). The Go twin of watch_stream.py hand_over.
func (w *StreamWatcher) HandOver(now time.Time, giveUp time.Duration) (time.Time, error) {
	w.Stop()
	w.mu.Lock()
	fs := w.followers
	w.mu.Unlock()
	until := now
	for _, f := range fs {
		f.mu.Lock()
		for _, at := range f.open {
			if at.After(until) {
				until = at
			}
		}
		f.mu.Unlock()
	}
	for _, f := range fs {
		if err := f.drain(until, giveUp); err != nil {
			return until, err
		}
	}
	return until, nil
}

// Gauges adds watcher.lag_ms: how far behind now the slowest partition has read.
func (w *StreamWatcher) Gauges(out map[string]float64) {
	w.mu.Lock()
	fs := w.followers
	w.mu.Unlock()
	oldest := math.Inf(1)
	for _, f := range fs {
		f.mu.Lock()
		for _, at := range f.open {
			oldest = math.Min(oldest, float64(at.UnixNano())/1e9)
		}
		f.mu.Unlock()
	}
	if !math.IsInf(oldest, 1) {
		out[protocol.GaugeWatcherLagMs] = math.Max(0, float64(time.Now().UnixNano())/1e9-oldest) * 1000
	}
}

// follower is one client of the stream: its partitions' readers and where each has read to.
type follower struct {
	w      *StreamWatcher
	start  time.Time
	feeds  bool // the SeenLedger hears of this follower's changes
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	open   map[string]time.Time // partition token -> read up to (exclusive)
}

func newFollower(w *StreamWatcher, start time.Time) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	return &follower{w: w, start: start, ctx: ctx, cancel: cancel, open: map[string]time.Time{}}
}

func (f *follower) begin() {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for f.ctx.Err() == nil {
			_, err := f.read(f.ctx, f.start, f.start, "")
			if err == nil {
				return
			}
			f.failed(err)
		}
	}()
}

func (f *follower) failed(err error) {
	if f.ctx.Err() != nil {
		return
	}
	f.w.stats.Failed(protocol.OpWatcherPollFailed, err, 0, spanner.ErrCode(err))
	select {
	case <-f.ctx.Done():
	case <-time.After(watchErrorBackoff):
	}
}

// adopt starts a reader for each child partition (only records it once stopped: the drain reads it).
func (f *follower) adopt(start time.Time, tokens []string) {
	for _, tok := range tokens {
		f.mu.Lock()
		_, seen := f.open[tok]
		if !seen {
			f.open[tok] = start
		}
		f.mu.Unlock()
		if seen || f.ctx.Err() != nil {
			continue
		}
		f.wg.Add(1)
		go f.follow(tok)
	}
}

func (f *follower) follow(tok string) {
	defer f.wg.Done()
	for f.ctx.Err() == nil {
		for f.w.isPaused() && f.ctx.Err() == nil {
			time.Sleep(watchPausedNap)
		}
		f.mu.Lock()
		from := f.open[tok]
		f.mu.Unlock()
		end := time.Now()
		if from.After(end) {
			end = from
		}
		ended, err := f.read(f.ctx, from, end.Add(streamWindow), tok)
		if err != nil {
			f.failed(err)
			continue
		}
		if ended {
			return
		}
	}
}

// read runs one read function call from `from` to `end` on partition tok ("" for the initial
// query): it delivers the data change records, moves the partition's position, adopts children,
// and reports whether the partition ended.
func (f *follower) read(ctx context.Context, from, end time.Time, tok string) (bool, error) {
	hb, _ := f.w.figures()
	params := map[string]any{"start": from, "end": end, "hb": hb, "token": spanner.NullString{StringVal: tok, Valid: tok != ""}}
	ended := false
	err := f.w.conn().Client.Single().Query(ctx, spanner.Statement{SQL: f.w.sql, Params: params}).Do(func(r *spanner.Row) error {
		var col spanner.GenericColumnValue
		if err := r.Column(0, &col); err != nil {
			return err
		}
		for _, rec := range col.Value.GetListValue().GetValues() {
			parts := rec.GetListValue().GetValues()
			if len(parts) != 3 {
				return errors.New("a ChangeRecord that is not (data, heartbeat, child partitions)")
			}
			for _, d := range parts[0].GetListValue().GetValues() {
				fields := d.GetListValue().GetValues()
				ts, err := recordTime(fields, 0)
				if err != nil {
					return err
				}
				if err := f.received(ts, fields); err != nil {
					return err
				}
				f.advance(tok, ts.Add(time.Microsecond))
			}
			for _, h := range parts[1].GetListValue().GetValues() {
				ts, err := recordTime(h.GetListValue().GetValues(), 0)
				if err != nil {
					return err
				}
				f.advance(tok, ts.Add(time.Microsecond))
			}
			for _, c := range parts[2].GetListValue().GetValues() {
				fields := c.GetListValue().GetValues()
				start, err := recordTime(fields, 0)
				if err != nil {
					return err
				}
				var tokens []string
				for _, child := range fields[2].GetListValue().GetValues() {
					tokens = append(tokens, child.GetListValue().GetValues()[0].GetStringValue())
				}
				ended = tok != ""
				f.adopt(start, tokens)
			}
		}
		return nil
	})
	if err != nil || tok == "" {
		return ended, err
	}
	f.mu.Lock()
	if ended {
		delete(f.open, tok)
	} else if at := end.Add(time.Microsecond); at.After(f.open[tok]) {
		f.open[tok] = at
	}
	f.mu.Unlock()
	return ended, nil
}

func recordTime(fields []*structpb.Value, i int) (time.Time, error) {
	if len(fields) <= i {
		return time.Time{}, errors.New("a change stream record without its timestamp")
	}
	return time.Parse(time.RFC3339Nano, fields[i].GetStringValue())
}

func (f *follower) advance(tok string, at time.Time) {
	if tok == "" {
		return
	}
	f.mu.Lock()
	if at.After(f.open[tok]) {
		f.open[tok] = at
	}
	f.mu.Unlock()
}

// received records a data change record's mods (its fields), each a change received.
func (f *follower) received(commit time.Time, fields []*structpb.Value) error {
	if len(fields) < 7 {
		return errors.New("a data change record without its mods")
	}
	mods := fields[6].GetListValue().GetValues()
	if seen := f.w.Ledger(); seen != nil && f.feeds && fields[4].GetStringValue() == f.w.def.Table {
		for _, m := range mods {
			if err := f.w.sawMod(seen, m.GetListValue().GetValues()); err != nil {
				return err
			}
		}
	}
	latency := float64(time.Since(commit).Nanoseconds()) / 1e3
	us := make([]float64, len(mods))
	for i := range us {
		us[i] = latency
	}
	f.w.stats.Recorder.RecordMany(protocol.OpWatcherNotify, us)
	f.w.stats.Count(protocol.CounterReceivedChanges, int64(len(mods)))
	return nil
}

// drain reads every open partition, and the children they end in, up to until.
func (f *follower) drain(until time.Time, giveUp time.Duration) error {
	deadline := time.Now().Add(giveUp)
	ctx := context.Background()
	for {
		f.mu.Lock()
		var pending []string
		for tok, at := range f.open {
			if !at.After(until) {
				pending = append(pending, tok)
			}
		}
		f.mu.Unlock()
		if len(pending) == 0 {
			return nil
		}
		for _, tok := range pending {
			f.mu.Lock()
			from := f.open[tok]
			f.mu.Unlock()
			if _, err := f.read(ctx, from, until, tok); err != nil {
				if !time.Now().Before(deadline) {
					return fmt.Errorf("the watcher's final drain of the change stream failed for %s; last error: %w", giveUp, err)
				}
				time.Sleep(watchErrorBackoff)
			}
		}
	}
}
