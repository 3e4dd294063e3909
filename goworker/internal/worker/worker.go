// Package worker is one worker process (workers/process.py): it says hello, waits for start,
// connects (worker 0 creates the schema and fixes the watcher's starting timestamp), says ready,
// reports every interval from begin until stop, and stops at once if its stdin closes.
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
	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/loadphase"
	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/preload"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/reader"
	"github.com/spanload/spanload/goworker/internal/schema"
	"github.com/spanload/spanload/goworker/internal/serverstats"
	"github.com/spanload/spanload/goworker/internal/spanclient"
	"github.com/spanload/spanload/goworker/internal/updater"
	"github.com/spanload/spanload/goworker/internal/watcher"
)

// pollPrefixLen is how much of the poll query's text identifies it in QUERY_STATS.
const pollPrefixLen = 60

// WriterID names one worker's writes in the WriterId column.
func WriterID(runID string, worker int) string { return ledger.WriterID(runID, worker) }

// Worker holds one run's workloads in this process.
type Worker struct {
	start       *protocol.Start
	index       int
	channel     *protocol.Channel
	stats       *metrics.Stats
	spec        *schema.Spec
	mu          sync.Mutex
	config      protocol.RunConfig
	conn        *spanclient.Conn
	updater     *updater.Updater
	reader      *reader.Reader
	watcher     *watcher.Watcher
	seen        *ledger.SeenLedger
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
	// TableRows is what worker 0 counted in the run's table at setup, when the config asks for a
	// preload (nil otherwise).
	TableRows *int64
	preloaded bool
	// a definition's workload (config.workload "definition"), instead of updater, reader, watcher
	interp   *interp.Runtime
	defWatch interp.DefinitionWatcher
}

func New(start *protocol.Start, channel *protocol.Channel) (*Worker, error) {
	kind, err := start.Config.SchemaKind()
	if err != nil {
		return nil, err
	}
	spanclient.ConfigureTags(start.RunTag, start.Tags)
	w := &Worker{start: start, index: start.Worker, channel: channel, stats: metrics.NewStats(),
		config: start.Config, server: map[string]float64{}, done: make(chan struct{})}
	if start.Config.Workload == protocol.WorkloadDefinition {
		// compiled before any connection: a definition that cannot run fails at once, saying why
		backend := func(def *interp.Definition) (interp.Backend, error) {
			return interp.NewBackend(start.Config, def.PG(), w.Conn)
		}
		if w.interp, err = interp.New(start.Config, start.RunID, w.index, start.Workers, w.Conn, backend, w.stats); err != nil {
			return nil, &definitionError{err}
		}
		return w, nil
	}
	if w.spec, err = schema.Get(kind); err != nil {
		return nil, err
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

func pollPrefix(spec *schema.Spec, cfg protocol.WatcherConfig) string {
	sql := watcher.PollSQL(spec, cfg)
	return sql[:min(len(sql), pollPrefixLen)]
}

// Setup connects and, for worker 0, creates the schema and the watcher.
func (w *Worker) Setup(ctx context.Context) error {
	cfg := w.config
	if err := spanclient.Probe(ctx, cfg.Target, w.start.EmulatorHost, spanclient.OperationTimeout(cfg.Client)); err != nil {
		return &unreachableError{err}
	}
	if w.start.SetupSchema {
		opts, err := spanclient.Options(cfg.Target, w.start.EmulatorHost)
		if err != nil {
			return err
		}
		// a definition's DDL is the control plane's to run, before any worker starts
		if w.spec != nil {
			if err := schema.Ensure(ctx, spanclient.PathsOf(cfg.Target), w.spec, opts...); err != nil {
				return err
			}
		}
		if cfg.Target.Kind == protocol.TargetLocal { // no other target has the option
			if err := admin.SetLatencyModel(ctx, spanclient.PathsOf(cfg.Target), cfg.Target.LatencyModel, opts...); err != nil {
				return err
			}
		}
	}
	conn, err := spanclient.Connect(ctx, cfg.Target, cfg.Client, w.start.EmulatorHost)
	if err != nil {
		return err
	}
	w.conn = conn
	if w.spec == nil {
		return w.setupDefinition(ctx)
	}
	if w.start.SetupSchema {
		if err := schema.Seed(ctx, conn.Client, w.spec); err != nil {
			return err
		}
	}
	if w.start.SetupSchema && cfg.Preload.Rows > 0 {
		n, err := preload.Count(ctx, conn.Client, w.spec, 0, -1)
		if err != nil {
			return err
		}
		w.TableRows = &n
	}
	if w.index == 0 {
		w.seen = ledger.NewSeenLedger(ledger.WriterIDs(w.start.RunID, w.start.Workers))
		w.watcher = watcher.New(w.Conn, w.spec, cfg.Watcher, w.stats, w.seen, startTimestamp(ctx, conn.Client))
		w.serverStats = serverstats.NewReader(pollPrefix(w.spec, cfg.Watcher), w.start.RunTag)
	}
	w.updater = updater.New(w.Conn, w.spec, cfg.Updater, w.stats, w.index, w.start.Workers,
		WriterID(w.start.RunID, w.index))
	w.reader = reader.New(w.Conn, w.spec, cfg.Reader, func() int64 { return w.Config().Updater.KeySpace },
		w.stats, w.index, w.start.Workers)
	return nil
}

// unreachableError is a target that did not answer the probe: its message is the whole story.
type unreachableError struct{ error }

func (e *unreachableError) Unwrap() error { return e.error }

// definitionError is a definition this runtime cannot run: its message is the whole story too.
type definitionError struct{ error }

func (e *definitionError) Error() string { return "workload definition: " + e.error.Error() }
func (e *definitionError) Unwrap() error { return e.error }

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
	if w.watcher != nil && w.preloaded {
		// the loaded rows are not changes: watch from now
		w.watcher.SetStart(startTimestamp(context.Background(), w.Conn().Client))
	}
	if w.watcher != nil {
		w.watcher.Start()
	}
	if w.serverStats != nil {
		go w.statsLoop()
	}
	if w.interp != nil {
		w.runDefinition()
	} else {
		w.updater.Start()
		w.reader.Start()
	}
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
		var err error
		ctx := spanclient.Tagged(ctx, protocol.TagOpPreload)
		// a stalled load asks whether the target still answers (a dead one fails the run at once)
		ctx = loadphase.WithProbe(ctx, func(ctx context.Context) error {
			cfg := w.Config()
			return spanclient.Probe(ctx, cfg.Target, w.start.EmulatorHost, spanclient.OperationTimeout(cfg.Client))
		})
		if w.interp != nil {
			err = w.loadDefinition(ctx, m, progress)
		} else {
			err = preload.Run(ctx, w.Conn().Client, w.spec, m.Start, m.Count, m.Resume,
				spanclient.OperationTimeout(w.Config().Client), progress)
		}
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
	if w.interp != nil {
		w.interp.Report(counters, gauges)
		if w.defWatch != nil {
			w.defWatch.Gauges(gauges)
		}
	} else {
		for _, part := range []struct {
			load      interface{ Gauges(map[string]float64) }
			counts    func() (int64, int64)
			scheduled string
		}{
			{w.updater, w.updater.Pacer.TakeCounts, protocol.CounterScheduled},
			{w.reader, w.reader.Pacer.TakeCounts, protocol.CounterReadsScheduled},
		} {
			part.load.Gauges(gauges)
			scheduled, dropped := part.counts()
			if scheduled > 0 {
				counters[part.scheduled] = scheduled
			}
			if dropped > 0 {
				counters[protocol.CounterDropped] += dropped
			}
		}
	}
	if w.watcher != nil {
		w.watcher.Gauges(gauges)
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

// Apply takes a patched config: every workload applies what changed.
func (w *Worker) Apply(cfg protocol.RunConfig) {
	w.mu.Lock()
	w.config = cfg
	conn := w.conn
	w.mu.Unlock()
	if conn != nil {
		conn.Apply(cfg.Client)
	}
	if w.updater != nil {
		w.updater.Apply(cfg.Updater)
	}
	if w.reader != nil {
		w.reader.Apply(cfg.Reader)
	}
	if w.watcher != nil {
		w.watcher.Apply(cfg.Watcher)
		w.serverStats.SetPrefix(pollPrefix(w.spec, cfg.Watcher))
	}
	if w.interp != nil {
		w.applyDefinition(cfg)
	}
}

func (w *Worker) SetPaused(paused bool) {
	if w.updater != nil {
		w.updater.SetPaused(paused)
	}
	if w.reader != nil {
		w.reader.SetPaused(paused)
	}
	if w.watcher != nil {
		w.watcher.SetPaused(paused)
	}
	if w.interp != nil {
		w.interp.SetPaused(paused)
	}
	if w.defWatch != nil {
		w.defWatch.SetPaused(paused)
	}
}

// StopWriters stops the updater and the reader and sends the updater's ledger.
func (w *Worker) StopWriters() error {
	if w.interp != nil {
		w.interp.Stop()
		if l := w.interp.Ledger(); l != nil { // the definition draws versioned or new keys
			return w.channel.Send(l.Message(w.index, w.interp.WriterID()))
		}
		return w.channel.Send(&protocol.WritersStopped{Worker: w.index, WriterID: w.interp.WriterID(),
			Ledger: [][3]int64{}, UncertainKeys: []int64{}})
	}
	w.updater.Stop()
	w.reader.Stop()
	return w.channel.Send(w.updater.Ledger.Message(w.index, w.updater.WriterID))
}

// Stop ends the run: the watcher drains and sends its ledger, then the final report and stopped.
func (w *Worker) Stop() error {
	if err := w.stopDefinition(); err != nil {
		return err
	}
	if w.updater != nil {
		w.updater.Stop()
	}
	if w.reader != nil {
		w.reader.Stop()
	}
	if w.watcher != nil {
		if w.Config().Watcher.Enabled {
			if err := w.watcher.StopAndDrain(); err != nil {
				return err
			}
			if err := w.channel.Send(w.seen.Message(w.index)); err != nil {
				return err
			}
		} else {
			w.watcher.Stop()
		}
	}
	w.doneOnce.Do(func() { close(w.done) })
	w.SendReport(true)
	return w.channel.Send(&protocol.Stopped{Worker: w.index})
}

// Abandon stops generating load at once and reports nothing: the supervisor is gone.
func (w *Worker) Abandon() {
	w.doneOnce.Do(func() { close(w.done) })
	if w.updater != nil {
		w.updater.Pacer.Stop(time.Second)
	}
	if w.reader != nil {
		w.reader.Pacer.Stop(time.Second)
	}
	if w.watcher != nil {
		w.watcher.Stop()
	}
	if w.interp != nil {
		w.interp.Abandon()
	}
	if w.defWatch != nil {
		w.defWatch.Stop()
	}
}

func (w *Worker) Close() {
	if w.interp != nil {
		w.interp.Backend().Close()
	}
	if conn := w.Conn(); conn != nil {
		conn.Close()
	}
}
