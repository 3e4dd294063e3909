package serverstats

import (
	"math"
	"testing"
	"time"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

func counters(atS float64, commits, participants int64, commitS, modelCPUS, processCPUS float64) Counters {
	at := time.Unix(1_000, 0).Add(time.Duration(atS * float64(time.Second)))
	return Counters{At: at, Commits: commits, Participants: participants, CommitS: commitS,
		ModelCPUS: modelCPUS, ProcessCPUS: processCPUS, Splits: 4}
}

// The same figures as tests/engine/test_server_counters.py, so both workers agree.
func TestCounterGauges(t *testing.T) {
	prev := counters(10, 100, 150, 0.5, 0.15, 2.0)
	for _, tc := range []struct {
		name string
		prev *Counters
		cur  Counters
		want map[string]float64
	}{
		{"the interval's differences", &prev, counters(12, 140, 230, 0.74, 0.23, 2.1), map[string]float64{
			protocol.GaugeServerSplits:             4,
			protocol.GaugeServerCommitParticipants: 2,     // 80 participants over 40 commits
			protocol.GaugeServerCommitLatencyS:     0.006, // 0.24 s over 40 commits
			protocol.GaugeServerCPUFraction:        0.09,  // (0.1 process + 0.08 model) CPU s over 2 s
			protocol.GaugeServerCPUPerCommitMs:     4.5,   // 0.18 CPU s over 40 commits
		}},
		{"no commits: CPU only, the per-commit gauges missing", &prev, counters(11, 100, 150, 0.5, 0.15, 2.05),
			map[string]float64{protocol.GaugeServerSplits: 4, protocol.GaugeServerCPUFraction: 0.05}},
		{"the server restarted: splits only", &prev, counters(11, 3, 3, 0.01, 0, 0.2),
			map[string]float64{protocol.GaugeServerSplits: 4}},
		{"the first read: splits only", nil, prev, map[string]float64{protocol.GaugeServerSplits: 4}},
		{"no time passed: splits only", &prev, counters(10, 140, 230, 0.74, 0.23, 2.1),
			map[string]float64{protocol.GaugeServerSplits: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]float64{}
			CounterGauges(tc.prev, tc.cur, got)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9 {
					t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
				}
			}
		})
	}
}
