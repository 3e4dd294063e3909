package interp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const usPerS = 1e6

// OpName is a per-operation metric name: template (protocol.OpHistogram*, OpCounter*, OpGauge*)
// with the operation's name in place of its placeholder.
func OpName(template, op string) string {
	return strings.Replace(template, protocol.OpPlaceholder, op, 1)
}

// Runtime runs one worker's share of a definition's operations.
type Runtime struct {
	Def     *Definition
	worker  int
	workers int
	seed    uint64
	conn    func() *spanclient.Conn
	db      Backend
	stats   *metrics.Stats
	seqs    *sequencers
	// the write ledger of versioned_key and fresh_key draws (nil: the definition draws neither)
	ledger   *ledger.WriteLedger
	writerID string
	mu       sync.Mutex // serializes Apply
	prog     atomic.Pointer[program]
	ops      []*opRunner
}

// opRunner is one operation: its pacer, its stream and its metric names.
type opRunner struct {
	rt        *Runtime
	name      string
	spec      *Operation
	base      uint64 // StreamBase of "op/<name>/<worker>"
	n         atomic.Uint64
	load      *pacing.Load
	closed    bool
	hist      string
	done      string
	rows      string
	scheduled string
	targetPS  string
	behind    string
	inFlight  string
}

// Decode reads a config's definition and every knob's value (its defaults, then config.knobs).
func Decode(cfg protocol.RunConfig) (*Definition, Knobs, error) {
	if len(cfg.Definition) == 0 {
		return nil, nil, fmt.Errorf("workload %q carries no definition (config.definition)", cfg.Workload)
	}
	def := &Definition{}
	if err := json.Unmarshal(cfg.Definition, def); err != nil {
		return nil, nil, fmt.Errorf("config.definition: %w", err)
	}
	knobs, err := knobValues(def, cfg)
	return def, knobs, err
}

func knobValues(def *Definition, cfg protocol.RunConfig) (Knobs, error) {
	knobs := Knobs{}
	for _, k := range def.Knobs {
		knobs[k.Name] = k.Item.Default
	}
	for name, raw := range cfg.Knobs {
		if _, ok := knobs[name]; !ok {
			return nil, fmt.Errorf("knobs.%s: no such knob in workload %q", name, def.Name)
		}
		v, err := literal(raw)
		if err != nil {
			return nil, fmt.Errorf("knobs.%s: %w", name, err)
		}
		if n, isInt := v.(int64); isInt {
			if _, isFloat := knobs[name].(float64); isFloat {
				v = float64(n) // a float knob set to a whole number
			}
		}
		knobs[name] = v
	}
	return knobs, nil
}

// Seed is the config's seed (nil: 0).
func Seed(cfg protocol.RunConfig) uint64 {
	if cfg.Seed == nil {
		return 0
	}
	return *cfg.Seed
}

// New compiles cfg's definition for worker of workers of run runID, its executions to run on the
// backend db makes of the definition (NewBackend); nothing runs before Start.
func New(cfg protocol.RunConfig, runID string, worker, workers int, conn func() *spanclient.Conn,
	db func(def *Definition) (Backend, error), stats *metrics.Stats) (*Runtime, error) {
	def, knobs, err := Decode(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkDialect(def); err != nil {
		return nil, err
	}
	rt := &Runtime{Def: def, worker: worker, workers: workers, seed: Seed(cfg), conn: conn, stats: stats,
		seqs:     &sequencers{worker: int64(worker), workers: int64(workers), byPath: map[string]*Sequencer{}},
		writerID: ledger.WriterID(runID, worker)}
	prog, err := compile(def, knobs, rt.seqs)
	if err != nil {
		return nil, err
	}
	rt.prog.Store(prog)
	if prog.usesKeys() {
		rt.ledger = newLedger(runID, worker, workers)
	}
	if rt.db, err = db(def); err != nil {
		return nil, err
	}
	for _, o := range def.Operations {
		figures, err := resolvePacing(o.Item, knobs, cfg.Operations[o.Name])
		if err != nil {
			return nil, fmt.Errorf("operations.%s: %w", o.Name, err)
		}
		r := &opRunner{rt: rt, name: o.Name, spec: o.Item, base: StreamBase(rt.seed, OperationLabel(o.Name, worker)),
			closed:    o.Item.Rate == nil,
			hist:      OpName(protocol.OpHistogramLatency, o.Name),
			done:      OpName(protocol.OpCounterDone, o.Name),
			rows:      OpName(protocol.OpCounterRows, o.Name),
			scheduled: OpName(protocol.OpCounterScheduled, o.Name),
			targetPS:  OpName(protocol.OpGaugeTargetPS, o.Name),
			behind:    OpName(protocol.OpGaugeBehind, o.Name),
			inFlight:  OpName(protocol.OpGaugeInFlight, o.Name),
		}
		var p *pacing.Pacer
		if r.closed {
			p = pacing.NewClosed(o.Name, r.execute, pacing.ShareThreads(figures.concurrency, worker, workers),
				msDuration(figures.thinkMs), nil)
		} else {
			p = pacing.New(o.Name, r.execute, pacing.Share(figures.rate, workers),
				pacing.ShareThreads(figures.maxInFlight, worker, workers), 0, nil)
		}
		r.load = pacing.NewLoad(p, figures.enabled)
		rt.ops = append(rt.ops, r)
	}
	return rt, nil
}

// pacingFigures are an operation's pacing for the whole run (model/pacing.py ResolvedPacing).
type pacingFigures struct {
	enabled     bool
	rate        float64
	maxInFlight int
	concurrency int
	thinkMs     float64
}

// resolvePacing: an override wins, then the definition's literal or knob (model/pacing.py resolve).
func resolvePacing(op *Operation, knobs Knobs, o protocol.OperationPacing) (pacingFigures, error) {
	f := pacingFigures{enabled: op.Enabled == nil || *op.Enabled, maxInFlight: DefaultMaxInFlight}
	if o.Enabled != nil {
		f.enabled = *o.Enabled
	}
	var err error
	number := func(n *Number, override *float64, out *float64) {
		if err != nil {
			return
		}
		switch {
		case override != nil:
			*out = *override
		case n != nil:
			*out, err = knobs.number(*n)
		}
	}
	asFloat := func(p *int) *float64 {
		if p == nil {
			return nil
		}
		v := float64(*p)
		return &v
	}
	maxInFlight, concurrency := float64(DefaultMaxInFlight), 0.0
	number(op.Rate, o.Rate, &f.rate)
	number(op.MaxInFlight, asFloat(o.MaxInFlight), &maxInFlight)
	number(op.Concurrency, asFloat(o.Concurrency), &concurrency)
	f.maxInFlight, f.concurrency = int(maxInFlight), int(concurrency)
	switch {
	case err != nil:
	case o.ThinkTimeMs != nil:
		f.thinkMs = *o.ThinkTimeMs
	case op.ThinkTime != nil:
		f.thinkMs, err = knobs.duration(*op.ThinkTime)
	}
	return f, err
}

// execute is one execution of the operation, due at intended and started at actual.
func (r *opRunner) execute(intended, actual float64) {
	prog := r.rt.prog.Load()
	op := prog.ops[r.name]
	rng := StreamAt(r.base, r.n.Add(1)-1)
	stats := r.rt.stats
	keys := &keyState{ledger: r.rt.ledger, writerID: r.rt.writerID}
	d, err := op.drawKeyed(prog, &rng, keys)
	if err != nil { // no free key: an error of the operation's, before any RPC
		keys.release(false)
		stats.Failed(r.hist, err, (pacing.Now()-actual)*usPerS, codes.OK)
		return
	}
	x := &run{op: op, d: d}
	if len(op.steps) > 1 {
		x.binds = map[string]any{}
	}
	conn := r.rt.conn()
	ctx, timing, done, err := conn.Begin(spanclient.Tagged(context.Background(), r.name))
	if err != nil { // no session in time: not an execution that reached the server
		keys.release(false)
		stats.Failed(r.hist, err, (pacing.Now()-actual)*usPerS, codes.OK)
		return
	}
	attempts, err := r.rt.db.Execute(ctx, x)
	done()
	if attempts > 1 {
		stats.Count(protocol.CounterRetries, int64(attempts-1))
	}
	if err != nil {
		keys.release(metrics.OutcomeUnknown(err))
		stats.Failed(r.hist, err, (pacing.Now()-actual)*usPerS, timing.LastFailure())
		return
	}
	if len(keys.writes) > 0 {
		keys.ledger.Committed(keys.writes)
	}
	stats.Succeeded(r.hist, intended, actual, pacing.Now(), timing.Parts())
	stats.Count(r.done, 1)
	if x.rows > 0 {
		stats.Count(r.rows, x.rows)
	}
	if op.writes {
		stats.Count(protocol.CounterTransactions, 1)
		if x.written > 0 {
			stats.Count(protocol.CounterMutations, x.written)
		}
	}
}

// Start starts every operation's pacer.
func (rt *Runtime) Start() {
	for _, r := range rt.ops {
		r.load.Start()
	}
}

// Apply takes a patched config: new knob values recompile the generators (sequences carry on),
// and every operation's pacing is resolved anew.
func (rt *Runtime) Apply(cfg protocol.RunConfig) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	knobs, err := knobValues(rt.Def, cfg)
	if err != nil {
		return err
	}
	prog, err := compile(rt.Def, knobs, rt.seqs)
	if err != nil {
		return err
	}
	rt.prog.Store(prog)
	for _, r := range rt.ops {
		f, err := resolvePacing(r.spec, knobs, cfg.Operations[r.name])
		if err != nil {
			return fmt.Errorf("operations.%s: %w", r.name, err)
		}
		p := r.load.Pacer
		if r.closed {
			p.SetParallelism(pacing.ShareThreads(f.concurrency, rt.worker, rt.workers))
			p.SetThinkTime(msDuration(f.thinkMs))
		} else {
			p.SetRate(pacing.Share(f.rate, rt.workers))
			p.SetParallelism(pacing.ShareThreads(f.maxInFlight, rt.worker, rt.workers))
		}
		r.load.SetEnabled(f.enabled)
	}
	return nil
}

func (rt *Runtime) SetPaused(paused bool) {
	for _, r := range rt.ops {
		r.load.SetPaused(paused)
	}
}

// Stop stops every operation, waiting for those running (pacing.StopTimeout at most each).
func (rt *Runtime) Stop() {
	var wg sync.WaitGroup
	for _, r := range rt.ops {
		wg.Go(r.load.Stop)
	}
	wg.Wait()
}

// Abandon stops at once.
func (rt *Runtime) Abandon() {
	for _, r := range rt.ops {
		r.load.Pacer.Stop(time.Second)
	}
}

// Ledger is the write ledger of the definition's versioned_key and fresh_key draws; nil when it
// draws neither.
func (rt *Runtime) Ledger() *ledger.WriteLedger { return rt.ledger }

// WriterID is this worker's writer id (writer_id draws it).
func (rt *Runtime) WriterID() string { return rt.writerID }

// Backend is where the executions run.
func (rt *Runtime) Backend() Backend { return rt.db }

// Report adds each operation's scheduled and dropped arrivals since the last report, and its
// gauges: target_ps (open loop), behind and in_flight.
func (rt *Runtime) Report(counters map[string]int64, gauges map[string]float64) {
	for _, r := range rt.ops {
		p := r.load.Pacer
		scheduled, dropped := p.TakeCounts()
		if scheduled > 0 {
			counters[r.scheduled] += scheduled
		}
		if dropped > 0 {
			counters[protocol.CounterDropped] += dropped
		}
		if !r.closed {
			gauges[r.targetPS] = p.Rate()
			gauges[r.behind] = float64(p.Behind())
		}
		gauges[r.inFlight] = float64(p.InFlight())
	}
}
