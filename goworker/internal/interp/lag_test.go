package interp

import (
	"encoding/json"
	"math"
	"sort"
	"testing"
	"time"
)

type poll struct {
	start, end float64
	full       bool
}

// lags feeds the polls in the order they end and takes the lag at each report time.
func lags(m *lagMeter, polls []poll, reports []float64) []float64 {
	sort.Slice(polls, func(i, j int) bool { return polls[i].end < polls[j].end })
	var out []float64
	for _, at := range reports {
		for len(polls) > 0 && polls[0].end <= at {
			m.Polled(polls[0].start, polls[0].end, polls[0].full)
			polls = polls[1:]
		}
		v, ok := m.Take(at)
		if !ok {
			v = math.NaN()
		}
		out = append(out, v)
	}
	return out
}

func every(period, took float64, from, count int) []poll {
	var out []poll
	for i := from; i < from+count; i++ {
		out = append(out, poll{float64(i) * period, float64(i)*period + took, false})
	}
	return out
}

func reportsAt(phase float64, from, to int) []float64 {
	var out []float64
	for k := from; k < to; k++ {
		out = append(out, phase+float64(k))
	}
	return out
}

func TestLagIsThePollIntervalPlusOnePollWhateverThePhase(t *testing.T) {
	cases := []struct {
		name    string
		polls   []poll
		reports []float64
		want    float64
	}{
		{"phase 0", every(1, 0.02, 0, 40), reportsAt(0, 3, 30), 1.02},
		{"phase 0.37", every(1, 0.02, 0, 40), reportsAt(0.37, 3, 30), 1.02},
		{"phase 0.93", every(1, 0.02, 0, 40), reportsAt(0.93, 3, 30), 1.02},
		{"the phase drifts through a whole cycle", every(1.013, 0.02, 0, 100), reportsAt(0, 3, 95), 1.033},
		{"a poll every 5 s, reports every second", every(5, 0.02, 0, 12), reportsAt(0.3, 6, 55), 5.02},
	}
	for _, c := range cases {
		got := lags(newLagMeter(0), c.polls, c.reports)
		for i, v := range got {
			if math.Abs(v-c.want) > 1e-9 {
				t.Errorf("%s: report %d at %g: lag %g, want %g", c.name, i, c.reports[i], v, c.want)
			}
		}
	}
}

func TestFullPagesLeaveTheLagGrowingAndPausesDoNotCount(t *testing.T) {
	var polls []poll
	for i := 1; i < 50; i++ {
		polls = append(polls, poll{0.1 * float64(i), 0.1*float64(i) + 0.05, true})
	}
	polls = append(polls, poll{5, 5.05, false}, poll{6, 6.02, false})
	got := lags(newLagMeter(0), polls, []float64{1, 2, 3, 4, 5.5, 6.5})
	want := []float64{1, 2, 3, 4, 5.05, 1.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("report %d: lag %g, want %g (all: %v)", i, got[i], want[i], got)
		}
	}
	m := newLagMeter(0)
	m.Polled(0, 0.02, false)
	m.Pause(0.5)
	if _, ok := m.Take(10); ok {
		t.Errorf("a paused watcher reported a lag")
	}
	m.Resume(20)
	if v, _ := m.Take(20.5); math.Abs(v-1) > 1e-9 {
		t.Errorf("after 19.5 s paused the lag is %g; want 1 (the pause does not count)", v)
	}
}

// Only a new poll interval ends the pollers' waits: another knob (the hint, the limit) changes
// the next poll, and waking on it would shift the polls.
func TestOnlyANewPollIntervalWakesThePollers(t *testing.T) {
	var def Definition
	data := `{"name": "w", "knobs": {"hint": {"default": true}, "every": {"default": 1000}, "limit": {"default": 100}},
		"operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
		"watch": {"table": "Events", "timestamp": "At", "key": ["Id"], "index": "ByAt", "force_index": "$hint",
			"poll_interval": "$every", "limit": "$limit", "watchers": 2}}`
	if err := json.Unmarshal([]byte(data), &def); err != nil {
		t.Fatal(err)
	}
	knobs := Knobs{"hint": true, "every": 1000.0, "limit": int64(100)}
	w := NewWatcher(def.Watch, []string{"Id"}, false, knobs, nil, nil, nil, time.Time{})
	for range 2 { // two pollers that do not run: the test reads their wake channels
		w.polls = append(w.polls, &poller{w: w, wake: make(chan struct{}, 1)})
	}
	woken := func() (n int) {
		for _, p := range w.polls {
			select {
			case <-p.wake:
				n++
			default:
			}
		}
		return n
	}
	w.Apply(Knobs{"hint": false, "every": 1000.0, "limit": int64(500)})
	if n := woken(); n != 0 {
		t.Errorf("turning the hint off woke %d pollers: their polls would shift", n)
	}
	w.Apply(Knobs{"hint": false, "every": 250.0, "limit": int64(500)})
	if n := woken(); n != 2 {
		t.Errorf("a new poll interval woke %d of 2 pollers", n)
	}
}
