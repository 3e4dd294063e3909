// Package worker is one worker process (workers/process.py): it says hello, waits for start (a
// workload definition's run: the interpreter, internal/interp, runs it), connects (worker 0 counts
// the load and sets up the watch), says ready, reports every interval from begin until stop, and
// stops at once if its stdin closes.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"sync"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/admin"
	"github.com/spanload/spanload/goworker/internal/interp"
	"github.com/spanload/spanload/goworker/internal/loadphase"
	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/serverstats"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// pollPrefixLen is how much of the poll query's text identifies it in QUERY_STATS.
const pollPrefixLen = 60

// Worker holds one run's workload in this process.
type Worker struct {
	start       *protocol.Start
	index       int
	channel     *protocol.Channel
	stats       *metrics.Stats
	mu          sync.Mutex
	config      protocol.RunConfig
	conn        *spanclient.Conn
	serverStats *serverstats.Reader
	server      map[string]float64
	// serverMinute is the minute the minute gauges in server come from (its end and latencies),
	// set with server under mu so a report never pairs one minute's figures with another's end
	serverMinute serverstats.Minute
	// sysError is why the last read of SPANNER_SYS failed ("": it read), set with server under mu
	sysError   string
	startedAt  float64
	cpuAtBegin float64
	seq        int
	reportMu   sync.Mutex
	done       chan struct{}
	doneOnce   sync.Once
	// TableRows is what worker 0 counted of the definition's load at setup, when it loads rows
	// (nil otherwise).
	TableRows *int64
	preloaded bool
	// the definition's operations, and its watch (nil without one)
	interp   *interp.Runtime
	defWatch interp.DefinitionWatcher
}

func New(start *protocol.Start, channel *protocol.Channel) (*Worker, error) {
	if err := start.Config.CheckDefinition(); err != nil {
		return nil, &startError{err}
	}
	spanclient.ConfigureTags(start.RunTag, start.Tags)
	w := &Worker{start: start, index: start.Worker, channel: channel, stats: metrics.NewStats(),
		config: start.Config, server: map[string]float64{}, done: make(chan struct{})}
	// compiled before any connection: a definition that cannot run fails at once, saying why
	backend := func(def *interp.Definition) (interp.Backend, error) {
		return interp.NewBackend(start.Config, def.PG(), w.Conn)
	}
	var err error
	if w.interp, err = interp.New(start.Config, start.RunID, w.index, start.Workers, w.Conn, backend, w.stats); err != nil {
		return nil, &definitionError{err}
	}
	return w, nil
}

func (w *Worker) Conn() *spanclient.Conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.conn
}

func (w *Worker) Config() protocol.RunConfig {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.config
}

// Setup connects and, for worker 0, sets the local Spanner's latency model and the watch up (the
// definition's schema is the control plane's: it ran the DDL before any worker started).
func (w *Worker) Setup(ctx context.Context) error {
	cfg := w.config
	if err := spanclient.Probe(ctx, cfg.Target, w.start.EmulatorHost, spanclient.OperationTimeout(cfg.Client)); err != nil {
		return &unreachableError{err}
	}
	if w.start.SetupSchema && cfg.Target.Kind == protocol.TargetLocal { // no other target has the option
		opts, err := spanclient.Options(cfg.Target, w.start.EmulatorHost)
		if err != nil {
			return err
		}
		if err := admin.SetLatencyModel(ctx, spanclient.PathsOf(cfg.Target), cfg.Target.LatencyModel, opts...); err != nil {
			return err
		}
	}
	conn, err := spanclient.Connect(ctx, cfg.Target, cfg.Client, w.start.EmulatorHost)
	if err != nil {
		return err
	}
	w.conn = conn
	return w.setupDefinition(ctx)
}

// wholeStory marks an error whose message says all the supervisor needs: it is sent as it is,
// not as a failure to start against the target.
type wholeStory interface{ wholeStory() }

// unreachableError is a target that did not answer the probe.
type unreachableError struct{ error }

func (e *unreachableError) Unwrap() error { return e.error }
func (*unreachableError) wholeStory()     {}

// startError is a start message this runtime cannot run (a workload that is not a definition).
type startError struct{ error }

func (e *startError) Unwrap() error { return e.error }
func (*startError) wholeStory()     {}

// definitionError is a definition this runtime cannot run: its message is the whole story too.
type definitionError struct{ error }

func (e *definitionError) Error() string { return "workload definition: " + e.error.Error() }
func (e *definitionError) Unwrap() error { return e.error }
func (*definitionError) wholeStory()     {}

// startTimestamp is the server's current time (a strong read), so the watcher starts exactly at
// the run's start; this machine's clock if the server cannot say.
func startTimestamp(ctx context.Context, client *spanner.Client) time.Time {
	return serverTime(ctx, client, "SELECT CURRENT_TIMESTAMP()")
}

// serverTime is what sql (the dialect's current time) returns; this machine's clock if it fails.
func serverTime(ctx context.Context, client *spanner.Client, sql string) time.Time {
	it := client.Single().Query(ctx, spanner.NewStatement(sql))
	defer it.Stop()
	row, err := it.Next()
	if err == nil {
		var ts time.Time
		if err = row.Columns(&ts); err == nil {
			return ts
		}
	}
	slog.Warn("could not read the server's time; using this machine's clock", "err", err)
	return time.Now()
}

// Run starts the load; report intervals align to startedAt (unix seconds).
func (w *Worker) Run(startedAt float64) {
	w.startedAt = startedAt
	w.cpuAtBegin = CPUSeconds()
	if w.serverStats != nil {
		go w.statsLoop()
	}
	w.runDefinition()
	go w.reportLoop()
}

// Preload loads this worker's share of the load phase in the background, sending its progress
// every PreloadProgressEvery and once with done at the end; a failure is a fatal error. A stop or
// abandon (the done channel) ends it.
func (w *Worker) Preload(m *protocol.Preload) {
	w.preloaded = true
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-w.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() {
		defer cancel()
		cpuAtStart := CPUSeconds()
		progress := &loadphase.Progress{}
		send := func(done bool) {
			cpu := CPUSeconds() - cpuAtStart
			_ = w.channel.Send(&protocol.PreloadProgress{Worker: w.index, RowsDone: progress.Rows.Load(),
				RowsSkipped: progress.Skipped.Load(), Done: done, CPUS: &cpu})
		}
		finished := make(chan struct{})
		go func() {
			tick := time.NewTicker(protocol.PreloadProgressEvery)
			defer tick.Stop()
			for {
				select {
				case <-finished:
					return
				case <-tick.C:
					send(false)
				}
			}
		}()
		ctx := spanclient.Tagged(ctx, protocol.TagOpPreload)
		// a stalled load asks whether the target still answers (a dead one fails the run at once)
		ctx = loadphase.WithProbe(ctx, func(ctx context.Context) error {
			cfg := w.Config()
			return spanclient.Probe(ctx, cfg.Target, w.start.EmulatorHost, spanclient.OperationTimeout(cfg.Client))
		})
		err := w.loadDefinition(ctx, m, progress)
		close(finished)
		select {
		case <-w.done:
			return // stopped: nothing more to say
		default:
		}
		if err != nil {
			slog.Error("preload failed", "worker", w.index, "err", err)
			_ = w.channel.Send(&protocol.Error{Worker: w.index, Message: fmt.Sprintf("worker %d preload: %v", w.index, err), Fatal: true})
			return
		}
		send(true)
	}()
}

func unixNow() float64 { return float64(time.Now().UnixNano()) / 1e9 }

func (w *Worker) reportLoop() {
	for {
		w.reportMu.Lock()
		end := w.startedAt + float64(w.seq+1)*w.Config().ReportIntervalS
		w.reportMu.Unlock()
		if wait := end - unixNow(); wait > 0 {
			t := time.NewTimer(time.Duration(wait * float64(time.Second)))
			select {
			case <-w.done:
				t.Stop()
				return
			case <-t.C:
			}
		}
		select {
		case <-w.done:
			return
		default:
		}
		w.sendReport(false, end)
	}
}

// SendReport sends the deltas since the previous report.
func (w *Worker) SendReport(final bool) { w.sendReport(final, math.NaN()) }

// sendReport sends a report that was due at due (unix seconds; NaN: no lag to tell).
func (w *Worker) sendReport(final bool, due float64) {
	w.reportMu.Lock()
	defer w.reportMu.Unlock()
	if !final {
		select {
		case <-w.done: // the final report went, or is about to: nothing may follow it
			return
		default:
		}
	}
	counters, errs, hdr, err := w.stats.Take()
	if err != nil {
		slog.Error("could not encode a histogram", "err", err)
	}
	gauges := map[string]float64{}
	w.interp.Report(counters, gauges)
	if w.defWatch != nil {
		w.defWatch.Gauges(gauges)
	}
	w.mu.Lock()
	for k, v := range w.server {
		gauges[k] = v
	}
	minute, sysError := w.serverMinute, w.sysError
	w.mu.Unlock()
	if conn := w.Conn(); conn != nil {
		if inUse, idle, waiting, ok := conn.SessionGauges(); ok {
			gauges[protocol.GaugeSessionsInUse] = float64(inUse)
			gauges[protocol.GaugeSessionsIdle] = float64(idle)
			gauges[protocol.GaugeSessionsWaiting] = float64(waiting)
		}
	}
	interval := w.Config().ReportIntervalS
	now := unixNow()
	if !math.IsNaN(due) {
		gauges[protocol.GaugeReportLagMs] = math.Max(0, now-due) * 1000
	}
	length := interval
	if final {
		length = math.Max(now-(w.startedAt+float64(w.seq)*interval), 1e-3)
	}
	cpu := max(0, CPUSeconds()-w.cpuAtBegin)
	if err := w.channel.Send(&protocol.Report{
		Worker: w.index, Seq: w.seq, T: now, IntervalS: length, Counters: counters, Gauges: gauges,
		ErrorsByCode: errs, Hdr: hdr, Final: final, CPUS: &cpu, Timings: w.stats.TakeTimings(),
		SysLatencies: minute.Latencies, SysIntervalEnd: minute.End, SysError: sysError,
	}); err != nil {
		slog.Error("could not send a report", "err", err)
	}
	w.seq++
}

// statsLoop reads, every report interval, the local Spanner's running totals (gauges of that
// interval) and, every serverstats.SampleEvery, the minute tables (workers/process.py).
func (w *Worker) statsLoop() {
	var minute serverstats.Minute
	var minuteDue time.Time
	for {
		t := time.NewTimer(time.Duration(w.Config().ReportIntervalS * float64(time.Second)))
		select {
		case <-w.done:
			t.Stop()
			return
		case <-t.C:
		}
		cfg, client := w.Config(), w.Conn().Client
		ctx, cancel := context.WithTimeout(spanclient.Tagged(context.Background(), protocol.TagOpStats), spanclient.OperationTimeout(cfg.Client))
		sysError := "" // the reports say why SPANNER_SYS could not be read (e.g. PERMISSION_DENIED)
		if now := time.Now(); !now.Before(minuteDue) {
			// a failed read keeps the last minute's gauges and is tried again next interval
			if read, err := w.serverStats.Read(ctx, client); err != nil {
				slog.Warn("reading SPANNER_SYS statistics failed", "err", err)
				sysError = spanclient.StatusText(err)
			} else {
				minute, minuteDue = read, now.Add(serverstats.SampleEvery)
			}
		}
		gauges := map[string]float64{}
		maps.Copy(gauges, minute.Gauges)
		if cfg.Target.Kind == protocol.TargetLocal { // no other target has the table
			counters, err := w.serverStats.ReadCounters(ctx, client)
			if err != nil {
				slog.Warn("reading SPANNER_SYS.SPANLOAD_COUNTERS failed", "err", err)
				sysError = spanclient.StatusText(err)
			}
			maps.Copy(gauges, counters)
		}
		cancel()
		w.mu.Lock()
		w.server = gauges
		w.serverMinute = minute
		w.sysError = sysError
		w.mu.Unlock()
	}
}

// Apply takes a patched config: the client, the operations and the watch apply what changed.
func (w *Worker) Apply(cfg protocol.RunConfig) {
	w.mu.Lock()
	w.config = cfg
	conn := w.conn
	w.mu.Unlock()
	if conn != nil {
		conn.Apply(cfg.Client)
	}
	w.applyDefinition(cfg)
}

func (w *Worker) SetPaused(paused bool) {
	w.interp.SetPaused(paused)
	if w.defWatch != nil {
		w.defWatch.SetPaused(paused)
	}
}

// StopWriters stops the operations and sends their write ledger (empty when the definition draws
// no versioned or new keys).
func (w *Worker) StopWriters() error {
	w.interp.Stop()
	if l := w.interp.Ledger(); l != nil {
		return w.channel.Send(l.Message(w.index, w.interp.WriterID()))
	}
	return w.channel.Send(&protocol.WritersStopped{Worker: w.index, WriterID: w.interp.WriterID(),
		Ledger: [][3]int64{}, UncertainKeys: []int64{}})
}

// Stop ends the run: the watch drains and sends its ledger, then the final report and stopped.
func (w *Worker) Stop() error {
	if err := w.stopDefinition(); err != nil {
		return err
	}
	w.doneOnce.Do(func() { close(w.done) })
	w.SendReport(true)
	return w.channel.Send(&protocol.Stopped{Worker: w.index})
}

// Abandon stops generating load at once and reports nothing: the supervisor is gone.
func (w *Worker) Abandon() {
	w.doneOnce.Do(func() { close(w.done) })
	w.interp.Abandon()
	if w.defWatch != nil {
		w.defWatch.Stop()
	}
}

func (w *Worker) Close() {
	w.interp.Backend().Close()
	if conn := w.Conn(); conn != nil {
		conn.Close()
	}
}
