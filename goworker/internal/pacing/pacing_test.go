package pacing

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func TestScheduleIsPoissonAtItsRate(t *testing.T) {
	cases := []struct{ rate, horizon float64 }{{10, 2000}, {1000, 20}, {5000, 4}}
	for _, c := range cases {
		s := NewSchedule(c.rate, 0, rand.New(rand.NewPCG(7, 7)))
		due := s.PopDue(c.horizon, nil)
		n := float64(len(due))
		want := c.rate * c.horizon
		if math.Abs(n-want) > 5*math.Sqrt(want) { // five standard deviations of a Poisson count
			t.Errorf("rate %g over %g s: %g arrivals; want about %g", c.rate, c.horizon, n, want)
		}
		for i := 1; i < len(due); i++ {
			if due[i] < due[i-1] || due[i] > c.horizon {
				t.Fatalf("arrivals out of order or late: %g after %g", due[i], due[i-1])
			}
		}
		if s.NextAt <= c.horizon {
			t.Errorf("next arrival %g is already due", s.NextAt)
		}
	}
}

func TestScheduleRateChangeAndRestartRedrawFromNow(t *testing.T) {
	s := NewSchedule(0.001, 0, rand.New(rand.NewPCG(1, 1)))
	if s.NextAt < 10 {
		t.Fatalf("at 0.001/s the first arrival came at %g", s.NextAt)
	}
	s.SetRate(1e6, 5)
	if s.NextAt < 5 || s.NextAt > 5.001 {
		t.Errorf("after a rate change at t=5 the next arrival is at %g", s.NextAt)
	}
	s.SetRate(0, 6)
	if !math.IsInf(s.NextAt, 1) || len(s.PopDue(1e9, nil)) != 0 {
		t.Errorf("rate 0 still schedules: next %g", s.NextAt)
	}
	s.SetRate(1e6, 7)
	s.Restart(100)
	if s.NextAt < 100 || s.NextAt > 100.001 {
		t.Errorf("restart at 100 gave %g", s.NextAt)
	}
}

// fakeClock is a settable pacer clock.
type fakeClock struct {
	mu  sync.Mutex
	now float64
}

func (c *fakeClock) Now() float64  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Set(v float64) { c.mu.Lock(); c.now = v; c.mu.Unlock() }

// blocking is an operation that records its intended starts and holds until released.
type blocking struct {
	mu       sync.Mutex
	intended []float64
	release  chan struct{}
	started  chan struct{}
}

func newBlocking() *blocking {
	return &blocking{release: make(chan struct{}), started: make(chan struct{}, 1000)}
}

func (b *blocking) op(intended, _ float64) {
	b.mu.Lock()
	b.intended = append(b.intended, intended)
	b.mu.Unlock()
	b.started <- struct{}{}
	<-b.release
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBusyWorkersLeaveArrivalsBehindAndTheyRunLateFromTheirIntendedStart(t *testing.T) {
	clock := &fakeClock{}
	b := newBlocking()
	p := New("test", b.op, 100, 1, 0, clock.Now)
	p.Start()
	clock.Set(1000) // every arrival of the first 1000 s is due; the one goroutine takes the first
	<-b.started
	behind := p.Behind()
	scheduled, dropped := p.TakeCounts()
	if behind < 90_000 || int64(behind)+1 != scheduled || dropped != 0 {
		t.Fatalf("behind %d, scheduled %d, dropped %d; want ~100000 behind and scheduled = behind + 1",
			behind, scheduled, dropped)
	}
	b.release <- struct{}{}
	<-b.started // the next one comes from the backlog, with its own intended start
	if got := p.Behind(); got != behind-1 {
		t.Errorf("behind %d after one more started; want %d", got, behind-1)
	}
	b.mu.Lock()
	first, second := b.intended[0], b.intended[1]
	b.mu.Unlock()
	if !(first < second && second < 1000) {
		t.Errorf("intended starts %g then %g; want increasing and before now (1000)", first, second)
	}
	close(b.release)
	p.Stop(10 * time.Second)
	if p.Behind() != 0 {
		t.Errorf("stop kept %d due arrivals", p.Behind())
	}
}

func TestPauseRunsNothingAndParallelismGrowsLive(t *testing.T) {
	clock := &fakeClock{}
	b := newBlocking()
	p := New("test", b.op, 1000, 1, 0, clock.Now)
	load := NewLoad(p, true)
	load.SetPaused(true)
	load.Start()
	clock.Set(100)
	if p.Behind() != 0 || p.Rate() != 0 || p.InFlight() != 0 {
		t.Fatalf("paused but behind %d, rate %g, in flight %d", p.Behind(), p.Rate(), p.InFlight())
	}
	load.SetPaused(false) // the schedule restarts from now (100): nothing of 0..100 is owed
	if p.Rate() != 1000 {
		t.Errorf("rate %g after resume", p.Rate())
	}
	clock.Set(100.5)
	waitFor(t, "one operation started", func() bool { return p.InFlight() == 1 })
	p.SetParallelism(4)
	waitFor(t, "four operations in flight", func() bool { return p.InFlight() == 4 })
	b.mu.Lock()
	for _, at := range b.intended {
		if at < 100 {
			t.Errorf("an arrival intended at %g ran: it fell due while paused", at)
		}
	}
	b.mu.Unlock()
	load.SetEnabled(false)
	close(b.release)
	waitFor(t, "nothing in flight", func() bool { return p.InFlight() == 0 })
	if p.Rate() != 0 {
		t.Errorf("disabled load reports rate %g", p.Rate())
	}
	load.Stop()
}

func TestBacklogBeyondTheLimitIsDropped(t *testing.T) {
	clock := &fakeClock{}
	b := newBlocking()
	p := New("test", b.op, 100_000, 1, 0, clock.Now)
	p.Start()
	clock.Set(20) // ~2,000,000 arrivals, twice the backlog
	<-b.started
	behind := p.Behind()
	scheduled, dropped := p.TakeCounts()
	// the running one was taken from the full backlog or before it filled: behind is the limit or one less
	if behind < MaxBacklog-1 || behind > MaxBacklog || dropped < 900_000 || scheduled != int64(behind)+dropped+1 {
		t.Errorf("behind %d dropped %d scheduled %d; want behind ~%d and scheduled = behind + dropped + 1",
			behind, dropped, scheduled, MaxBacklog)
	}
	close(b.release)
	p.Stop(10 * time.Second)
}

// TestClosedLoopRunsConcurrencyBackToBackAndHoldsStillWhenPaused: a closed-loop pacer has as many
// operations in flight as its concurrency whatever the clock, none while paused, and schedules
// nothing (its intended start is its actual start).
func TestClosedLoopRunsConcurrencyBackToBackAndHoldsStillWhenPaused(t *testing.T) {
	clock := &fakeClock{now: 7}
	b := newBlocking()
	p := NewClosed("closed", b.op, 3, 0, clock.Now)
	load := NewLoad(p, true)
	load.SetPaused(true)
	load.Start()
	if p.InFlight() != 0 {
		t.Fatalf("paused, yet %d in flight", p.InFlight())
	}
	load.SetPaused(false)
	waitFor(t, "three operations in flight", func() bool { return p.InFlight() == 3 })
	p.SetParallelism(5)
	waitFor(t, "five operations in flight", func() bool { return p.InFlight() == 5 })
	b.mu.Lock()
	for _, at := range b.intended {
		if at != 7 {
			t.Errorf("a closed-loop operation was intended at %g, not its actual start 7", at)
		}
	}
	b.mu.Unlock()
	if scheduled, dropped := p.TakeCounts(); scheduled != 0 || dropped != 0 || p.Behind() != 0 {
		t.Errorf("a closed loop scheduled %d, dropped %d, is behind %d", scheduled, dropped, p.Behind())
	}
	close(b.release)
	load.Stop()
}
