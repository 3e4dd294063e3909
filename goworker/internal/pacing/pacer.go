package pacing

import (
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// MaxBacklog is how many due operations are kept; beyond it they are counted as dropped.
const MaxBacklog = 1_000_000

// Operation runs one arrival: intended and actual start on the Now clock.
type Operation func(intended, actual float64)

// Pacer runs an Operation on Poisson arrivals with up to parallelism running at once. Each
// goroutine claims the next arrival, sleeps until its intended start and runs it; when every
// goroutine is busy, arrivals fall due unclaimed and wait in the backlog (behind), then run late,
// each timed from its intended start.
type Pacer struct {
	name      string
	op        Operation
	clock     func() float64
	mu        sync.Mutex
	changed   chan struct{} // closed (and replaced) to wake every waiting goroutine
	schedule  *Schedule
	due       []float64 // fell due, not yet claimed (a queue: head at dueHead)
	dueHead   int
	think     time.Duration
	paused    bool
	stopping  bool
	started   bool
	closed    bool // closed loop: no schedule, each goroutine runs back to back (then thinks)
	gen       int  // bumped by every change that voids claimed future arrivals
	running   int
	wanted    int
	live      int
	wg        sync.WaitGroup
	dropped   int64
	scheduled int64
}

// New is a pacer that has not started. clock nil means Now.
func New(name string, op Operation, rate float64, parallelism int, think time.Duration, clock func() float64) *Pacer {
	if clock == nil {
		clock = Now
	}
	return &Pacer{
		name:     name,
		op:       op,
		clock:    clock,
		changed:  make(chan struct{}),
		schedule: NewSchedule(rate, clock(), rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))),
		think:    think,
		wanted:   parallelism,
	}
}

// NewClosed is a closed-loop pacer that has not started: concurrency goroutines each run the
// operation back to back, pausing think after each; an operation's intended start is its actual
// start (no schedule, nothing scheduled or behind).
func NewClosed(name string, op Operation, concurrency int, think time.Duration, clock func() float64) *Pacer {
	p := New(name, op, 0, concurrency, think, clock)
	p.closed = true
	return p
}

func (p *Pacer) wakeLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Pacer) changedLocked() {
	p.gen++
	p.wakeLocked()
}

func (p *Pacer) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = true
	p.schedule.Restart(p.clock())
	p.growLocked()
}

func (p *Pacer) SetRate(rate float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rate != p.schedule.Rate() {
		p.schedule.SetRate(rate, p.clock())
		p.changedLocked()
	}
}

// SetParallelism grows at once; a surplus goroutine runs the arrival it holds, then exits.
func (p *Pacer) SetParallelism(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wanted = n
	if p.started {
		p.growLocked()
	}
	p.wakeLocked()
}

func (p *Pacer) SetThinkTime(d time.Duration) {
	p.mu.Lock()
	p.think = d
	p.mu.Unlock()
}

func (p *Pacer) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = true
	p.clearDueLocked()
	p.changedLocked()
}

func (p *Pacer) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		p.paused = false
		p.schedule.Restart(p.clock())
		p.changedLocked()
	}
}

// Stop stops scheduling, drops what is due and waits (up to timeout) for running operations.
func (p *Pacer) Stop(timeout time.Duration) {
	p.mu.Lock()
	p.stopping = true
	p.clearDueLocked()
	p.changedLocked()
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		slog.Warn("operations still running after stop", "pacer", p.name, "timeout", timeout)
	}
}

// Rate is the target rate, 0 while paused.
func (p *Pacer) Rate() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		return 0
	}
	return p.schedule.Rate()
}

// Behind is how many operations are due but not started because every goroutine is busy.
func (p *Pacer) Behind() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused && p.started && !p.stopping {
		p.collectDueLocked(p.clock())
	}
	return len(p.due) - p.dueHead
}

func (p *Pacer) InFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}

// TakeCounts returns (scheduled, dropped) since the previous call.
func (p *Pacer) TakeCounts() (scheduled, dropped int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	scheduled, dropped = p.scheduled, p.dropped
	p.scheduled, p.dropped = 0, 0
	return scheduled, dropped
}

func (p *Pacer) clearDueLocked() {
	p.due = p.due[:0]
	p.dueHead = 0
}

func (p *Pacer) collectDueLocked(now float64) {
	before := len(p.due)
	p.due = p.schedule.PopDue(now, p.due)
	n := len(p.due) - before
	p.scheduled += int64(n)
	if over := len(p.due) - p.dueHead - MaxBacklog; over > 0 {
		p.dropped += int64(over)
		p.due = p.due[:len(p.due)-over]
	}
}

func (p *Pacer) popDueLocked() float64 {
	v := p.due[p.dueHead]
	p.dueHead++
	if p.dueHead == len(p.due) {
		p.clearDueLocked()
	} else if p.dueHead > 4096 && p.dueHead*2 > len(p.due) {
		p.due = append(p.due[:0], p.due[p.dueHead:]...)
		p.dueHead = 0
	}
	return v
}

func (p *Pacer) growLocked() {
	for p.live < p.wanted {
		p.live++
		p.wg.Add(1)
		go p.work()
	}
}

// waitLocked releases the lock until the next change or until d has passed (d < 0: no limit).
func (p *Pacer) waitLocked(d time.Duration) {
	ch := p.changed
	p.mu.Unlock()
	if d < 0 {
		<-ch
	} else {
		t := time.NewTimer(d)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
	p.mu.Lock()
}

// claimLocked is the intended start of this goroutine's next operation once it is due; false: exit.
func (p *Pacer) claimLocked() (float64, bool) {
	for {
		if p.stopping {
			return 0, false
		}
		if p.live > p.wanted {
			return 0, false
		}
		if p.paused || !p.closed && p.schedule.Rate() <= 0 {
			p.waitLocked(-1)
			continue
		}
		if p.closed {
			return p.clock(), true
		}
		p.collectDueLocked(p.clock())
		if len(p.due) > p.dueHead {
			return p.popDueLocked(), true
		}
		intended := p.schedule.NextAt
		p.schedule.SkipDue(intended) // claim it: the schedule moves on to the next arrival
		gen := p.gen
		for !p.stopping && p.gen == gen {
			wait := intended - p.clock()
			if wait <= 0 {
				p.scheduled++ // counted when due, so a voided claim never counts
				return intended, true
			}
			p.waitLocked(time.Duration(wait * float64(time.Second)))
		}
		// rate, pause or stop changed while waiting: the claim is void
	}
}

func (p *Pacer) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		intended, ok := p.claimLocked()
		if !ok {
			p.live--
			p.mu.Unlock()
			return
		}
		p.running++
		think := p.think
		p.mu.Unlock()
		p.run(intended)
		p.mu.Lock()
		p.running--
		p.mu.Unlock()
		if think > 0 {
			time.Sleep(think)
		}
	}
}

func (p *Pacer) run(intended float64) {
	defer func() {
		if r := recover(); r != nil { // an operation records its own errors; this guards the goroutine
			slog.Error("operation panicked", "pacer", p.name, "panic", r)
		}
	}()
	p.op(intended, p.clock())
}

// Load is a Pacer that a run pause, or the workload's own enabled: false, holds still.
type Load struct {
	Pacer     *Pacer
	mu        sync.Mutex
	enabled   bool
	runPaused bool
}

func NewLoad(p *Pacer, enabled bool) *Load { return &Load{Pacer: p, enabled: enabled} }

func (l *Load) Start() {
	l.mu.Lock()
	l.syncLocked() // first, so that a disabled workload never runs an operation
	l.mu.Unlock()
	l.Pacer.Start()
}

func (l *Load) SetEnabled(enabled bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.enabled = enabled
	l.syncLocked()
}

func (l *Load) SetPaused(paused bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runPaused = paused
	l.syncLocked()
}

func (l *Load) syncLocked() {
	if l.runPaused || !l.enabled {
		l.Pacer.Pause()
	} else {
		l.Pacer.Resume()
	}
}

// StopTimeout is how long a stop waits for running operations.
const StopTimeout = 30 * time.Second

func (l *Load) Stop() { l.Pacer.Stop(StopTimeout) }
