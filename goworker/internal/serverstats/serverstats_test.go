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

// A read keeps the newest minute either table has, and says which: the tables may end at different
// minutes (no commits in the newest one), and an older minute's figures must not pass as the newest's.
// The same case as tests/engine/test_server_minute_rule.py.
func TestMinuteOfKeepsTheNewestMinuteAndItsEnd(t *testing.T) {
	older, newer := time.Unix(1_800_000_000, 0), time.Unix(1_800_000_060, 0)
	queries := []QueryStat{
		{"SELECT poll", 10, 0.020, 0.006, older}, // the previous minute: not this read's
		{"SELECT poll", 30, 0.004, 0.002, newer},
		{"SELECT other", 5, 0.100, 0.050, newer},
	}
	txns := []TxnStat{{Commits: 40, AvgCommitS: 0.028, AvgParticipants: 2, End: older}}
	m := MinuteOf(queries, txns, "SELECT poll")
	if m.End == nil || *m.End != 1_800_000_060 {
		t.Fatalf("End = %v, want 1800000060", m.End)
	}
	want := map[string]float64{
		protocol.GaugeServerPollAvgLatencyS: 0.004,
		protocol.GaugeServerPollCPUFraction: 30 * 0.002 / 60,
	}
	if len(m.Gauges) != len(want) {
		t.Fatalf("gauges %v, want %v (no commit figures: the newest minute had none)", m.Gauges, want)
	}
	for k, v := range want {
		if math.Abs(m.Gauges[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, m.Gauges[k], v)
		}
	}
	if m.Latencies == nil || m.Latencies.CommitS != nil || m.Latencies.QueryS["SELECT other"] != 0.100 {
		t.Errorf("latencies %+v", m.Latencies)
	}
	if empty := MinuteOf(nil, nil, "SELECT poll"); empty.End != nil || len(empty.Gauges) != 0 {
		t.Errorf("no rows: %+v", empty)
	}
}

// TestRunsTag: the cases of tests/model/test_tags.py's test_a_row_is_the_runs_only_with_its_tag.
func TestRunsTag(t *testing.T) {
	const run = "spanload-0123456789ab"
	for _, tc := range []struct {
		tag  string
		want bool
	}{
		{run + "-poll", true},
		{run, true},
		{"spanload-0123456789abc-poll", false}, // another run id that starts alike
		{"", false},
		{"app-poll", false},
	} {
		if got := RunsTag(tc.tag, run); got != tc.want {
			t.Errorf("RunsTag(%q) = %v, want %v", tc.tag, got, tc.want)
		}
	}
}

// TestQueryLatenciesLeaveOutATextTwoRowsShare: test_server_minute_rule.py's
// test_a_statement_two_tagged_rows_share_gives_no_latency.
func TestQueryLatenciesLeaveOutATextTwoRowsShare(t *testing.T) {
	got := QueryLatencies([]QueryStat{
		{Text: "SELECT poll", Executions: 10, AvgLatencyS: 0.020},
		{Text: "SELECT poll", Executions: 5, AvgLatencyS: 0.090},
		{Text: "SELECT other", Executions: 3, AvgLatencyS: 0.1},
		{Text: "SELECT idle"},
	})
	if len(got) != 1 || got["SELECT other"] != 0.1 {
		t.Errorf("QueryLatencies = %v, want only SELECT other 0.1", got)
	}
}
