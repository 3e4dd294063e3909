package watcher

import (
	"math"
	"sort"
	"testing"

	"github.com/spanload/spanload/goworker/internal/protocol"
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

func TestOnlyANewPollIntervalWakesTheWatchers(t *testing.T) {
	cfg := protocol.WatcherConfig{Enabled: true, Watchers: 2, PollIntervalMs: 1000, Limit: 100, TableHint: true, ShardFilter: protocol.ShardFixed}
	w := &Watcher{config: cfg}
	w.groups = w.makeGroups(cfg, Position{}, 0)
	woken := func() (n int) {
		for _, g := range w.groups {
			select {
			case <-g.wake:
				n++
			default:
			}
		}
		return n
	}
	hintOff := cfg
	hintOff.TableHint, hintOff.Limit = false, 500
	w.Apply(hintOff)
	if n := woken(); n != 0 {
		t.Errorf("turning the hint off woke %d groups: their polls would shift", n)
	}
	faster := hintOff
	faster.PollIntervalMs = 250
	w.Apply(faster)
	if n := woken(); n != 2 {
		t.Errorf("a new poll interval woke %d of 2 groups", n)
	}
}
