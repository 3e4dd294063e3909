package interp

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// fakeWatcher records what the switching watch asks of it; its hand-over returns at + 1 s.
type fakeWatcher struct {
	runPause
	seenLedger
	stream  bool
	mu      sync.Mutex
	start   time.Time
	started bool
	handAt  time.Time
	applied int
}

func (f *fakeWatcher) SQL() string { return ModeName(f.stream) }
func (f *fakeWatcher) SetStart(ts time.Time) {
	f.mu.Lock()
	f.start = ts
	f.mu.Unlock()
}
func (f *fakeWatcher) Start() { f.mu.Lock(); f.started = true; f.mu.Unlock() }
func (f *fakeWatcher) Apply(Knobs) {
	f.mu.Lock()
	f.applied++
	f.mu.Unlock()
}
func (f *fakeWatcher) Stop()                            {}
func (f *fakeWatcher) StopAndDrain(time.Duration) error { return nil }
func (f *fakeWatcher) Gauges(map[string]float64)        {}
func (f *fakeWatcher) HandOver(at time.Time, _ time.Duration) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handAt = at
	return at.Add(time.Second), nil
}

func TestSwitchingWatchHandsOverEachWayAtTheOldWatchersTime(t *testing.T) {
	def := &Watch{Table: "T", Mode: "$m"}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := created.Add(time.Hour)
	var made []*fakeWatcher
	build := func(stream bool, _ Knobs, start time.Time) (DefinitionWatcher, time.Time, error) {
		f := &fakeWatcher{stream: stream, start: start}
		made = append(made, f)
		if stream {
			return f, created, nil
		}
		return f, time.Time{}, nil
	}
	got := make(chan *protocol.WatchSwitched, 4)
	s, err := NewSwitchingWatch(def, build, Knobs{"m": "poll"}, created, func() time.Time { return now },
		func(m *protocol.WatchSwitched) { got <- m }, 0, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	s.Apply(Knobs{"m": "change_stream"})
	first := <-got
	s.Apply(Knobs{"m": "poll"})
	second := <-got
	s.Stop()
	if len(made) != 3 || made[0].stream || !made[1].stream || made[2].stream {
		t.Fatalf("watchers made: %d", len(made))
	}
	// poll -> stream: the poller hands over at the stream's creation (or later); the stream reads
	// from just after what it returned. Stream -> poll: the stream at the server's time; the
	// pollers read the rows after what it returned.
	if !made[0].handAt.Equal(created) || !made[1].start.Equal(created.Add(time.Second+time.Microsecond)) {
		t.Errorf("poll -> stream: handed over at %v, stream from %v", made[0].handAt, made[1].start)
	}
	if !made[1].handAt.Equal(now) || !made[2].start.Equal(now.Add(time.Second)) {
		t.Errorf("stream -> poll: handed over at %v, polls from %v", made[1].handAt, made[2].start)
	}
	if !made[1].started || !made[2].started {
		t.Errorf("the new watchers did not start")
	}
	if first.Mode != "change_stream" || first.Previous != "poll" || second.Mode != "poll" ||
		second.Previous != "change_stream" || first.Error != "" || second.Error != "" {
		t.Errorf("switches told: %+v %+v", first, second)
	}
	if s.SQL() != "poll" {
		t.Errorf("the current watcher is the %s one", s.SQL())
	}
}

// The stream's live knobs (issue 29): each read function call asks for the heartbeat its knob says
// then (figures, read per call), and a new count of readers applies at once; the mode's knob
// decides StreamMode. Parsed from the definition JSON, as a worker gets it.
func TestAStreamsHeartbeatAndReadersFollowTheirKnobs(t *testing.T) {
	var def Definition
	data := `{"name": "k", "knobs": {"hb": {"default": 1000}, "readers": {"default": 1},
		"m": {"default": "poll", "choices": ["poll", "change_stream"]}},
		"operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
		"watch": {"table": "T", "timestamp": "Ts", "mode": "$m", "heartbeat": "$hb", "watchers": "$readers"}}`
	if err := json.Unmarshal([]byte(data), &def); err != nil {
		t.Fatal(err)
	}
	w := NewStreamWatcher(def.Watch, Knobs{"hb": int64(1000), "readers": int64(1)}, nil, nil, time.Now())
	if hb, n := w.figures(); hb != 1000 || n != 1 {
		t.Fatalf("before: heartbeat %d, readers %d", hb, n)
	}
	w.Apply(Knobs{"hb": int64(250), "readers": int64(2)}) // not started: no reader to add yet
	if hb, n := w.figures(); hb != 250 || n != 2 {
		t.Errorf("after the patch: heartbeat %d, readers %d; want 250, 2", hb, n)
	}
	w.Apply(Knobs{"hb": int64(20), "readers": int64(1)})
	if hb, _ := w.figures(); hb != minHeartbeatMs {
		t.Errorf("heartbeat %d below Spanner's bound; want %d", hb, minHeartbeatMs)
	}
	if def.Watch.ModeKnob() != "m" || def.Watch.StreamMode(Knobs{"m": "poll"}) || !def.Watch.StreamMode(Knobs{"m": "change_stream"}) {
		t.Errorf("the mode does not follow its knob")
	}
}
