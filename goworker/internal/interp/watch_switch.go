package interp

// A definition's watch whose mode follows a knob: one watcher at a time, polling (Watcher) or
// reading the change stream (StreamWatcher), switched live with a hand-over at a timestamp H, so
// that each change is received once, by the old watcher (committed up to H) or by the new one
// (after H). The Go twin of backend/spanload/workers/interp/watch_switch.py, whose docstring says
// how H is chosen each way.

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/protocol"
)

// MakeWatcher makes the watcher of a mode (stream: the change stream) reading from start; created
// is the stream's creation when making it created the stream (zero otherwise).
type MakeWatcher func(stream bool, knobs Knobs, start time.Time) (w DefinitionWatcher, created time.Time, err error)

// handOver is what both watchers do at a switch: stop, receive every change up to H, return H.
type handOver interface {
	HandOver(at time.Time, giveUp time.Duration) (time.Time, error)
}

// SwitchingWatch is the run's watcher in the mode its knob says, switched when the knob changes.
type SwitchingWatch struct {
	def      *Watch
	build    MakeWatcher
	now      func() time.Time // the server's time
	switched func(*protocol.WatchSwitched)
	worker   int
	giveUp   time.Duration

	mu        sync.Mutex
	cur       DefinitionWatcher
	stream    bool
	knobs     Knobs
	failed    *bool // the mode a switch to failed: not tried again until the knob moves
	switching chan struct{}
	started   bool
	stopped   bool
	paused    bool
}

// NewSwitchingWatch makes the watcher of the mode knobs say, from start.
func NewSwitchingWatch(def *Watch, build MakeWatcher, knobs Knobs, start time.Time, now func() time.Time,
	switched func(*protocol.WatchSwitched), worker int, giveUp time.Duration) (*SwitchingWatch, error) {
	stream := def.StreamMode(knobs)
	cur, _, err := build(stream, knobs, start)
	if err != nil {
		return nil, err
	}
	return &SwitchingWatch{def: def, build: build, now: now, switched: switched, worker: worker, giveUp: giveUp,
		cur: cur, stream: stream, knobs: knobs}, nil
}

func (s *SwitchingWatch) current() DefinitionWatcher {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *SwitchingWatch) SQL() string                    { return s.current().SQL() }
func (s *SwitchingWatch) SetStart(ts time.Time)          { s.current().SetStart(ts) }
func (s *SwitchingWatch) Gauges(out map[string]float64)  { s.current().Gauges(out) }
func (s *SwitchingWatch) SetLedger(l *ledger.SeenLedger) { s.current().SetLedger(l) }
func (s *SwitchingWatch) Ledger() *ledger.SeenLedger     { return s.current().Ledger() }

func (s *SwitchingWatch) SetPaused(paused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = paused
	s.cur.SetPaused(paused)
}

func (s *SwitchingWatch) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	s.cur.Start()
}

// Apply takes new knob values: the current watcher's, or a switch when the mode's knob changed (on a
// goroutine of its own; the one under way takes the latest knobs when it ends).
func (s *SwitchingWatch) Apply(knobs Knobs) {
	wanted := s.def.StreamMode(knobs)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.knobs = knobs
	if s.failed != nil && *s.failed != wanted {
		s.failed = nil
	}
	if s.switching != nil || s.stopped {
		return
	}
	if wanted == s.stream || (s.failed != nil && *s.failed == wanted) {
		s.cur.Apply(knobs)
		return
	}
	if !s.started { // before the run begins: nothing to hand over
		if w, _, err := s.build(wanted, knobs, time.Now()); err == nil {
			s.replaceLocked(w, wanted)
		} else {
			s.failed = &wanted
		}
		return
	}
	done := make(chan struct{})
	s.switching = done
	go s.switchLoop(done)
}

func (s *SwitchingWatch) replaceLocked(w DefinitionWatcher, stream bool) {
	w.SetLedger(s.cur.Ledger())
	w.SetPaused(s.paused)
	s.cur, s.stream = w, stream
}

func (s *SwitchingWatch) switchLoop(done chan struct{}) {
	defer close(done)
	for {
		s.mu.Lock()
		knobs := s.knobs
		wanted := s.def.StreamMode(knobs)
		if wanted == s.stream || (s.failed != nil && *s.failed == wanted) || s.stopped {
			s.cur.Apply(knobs)
			s.switching = nil
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.switchTo(wanted, knobs)
	}
}

func (s *SwitchingWatch) switchTo(wanted bool, knobs Knobs) {
	previous, old := ModeName(s.stream), s.current()
	msg := &protocol.WatchSwitched{Worker: s.worker, Mode: ModeName(wanted), Previous: previous}
	w, created, err := s.build(wanted, knobs, time.Now()) // e.g. creates the stream: the old one still watches
	if err != nil {
		s.mu.Lock()
		s.failed = &wanted
		s.mu.Unlock()
		msg.Mode, msg.Error = previous, fmt.Sprintf("the %s watcher could not start: %v", ModeName(wanted), err)
		slog.Warn("the watch keeps its mode", "mode", previous, "err", msg.Error)
		s.switched(msg)
		return
	}
	at := created // poll -> stream: the newest commit polled, or the stream's creation if later
	if !wanted {
		at = s.now() // stream -> poll: the server's time, or a partition's position if later
	}
	h, err := old.(handOver).HandOver(at, s.giveUp)
	if err != nil { // the drain gave up: the new watcher starts from now, and may miss some
		h = time.Now()
		msg.Error = fmt.Sprintf("the hand-over failed (%v): changes may be missing", err)
		slog.Error("watch switch", "err", msg.Error)
	}
	if wanted && err == nil {
		w.SetStart(h.Add(time.Microsecond))
	} else {
		w.SetStart(h)
	}
	s.mu.Lock()
	s.replaceLocked(w, wanted)
	w.Start()
	s.mu.Unlock()
	msg.Handover = h.UTC().Format(time.RFC3339Nano)
	s.switched(msg)
}

// endSwitching stops any further switch and waits for the one under way.
func (s *SwitchingWatch) endSwitching() {
	s.mu.Lock()
	s.stopped = true
	done := s.switching
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (s *SwitchingWatch) Stop() {
	s.endSwitching()
	s.current().Stop()
}

func (s *SwitchingWatch) StopAndDrain(giveUp time.Duration) error {
	s.endSwitching()
	return s.current().StopAndDrain(giveUp)
}
