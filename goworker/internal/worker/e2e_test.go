package worker

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/protocol"
)

// localSpanner is the repository's local Spanner, built by `make install`.
const localSpanner = "../../../.venv/bin/spanload-local-spanner"

func startLocalSpanner(t *testing.T) string {
	t.Helper()
	exe, _ := filepath.Abs(localSpanner)
	if _, err := os.Stat(exe); err != nil {
		if testing.Short() {
			t.Skip("no local Spanner binary")
		}
		t.Fatalf("no local Spanner at %s (`make install` builds it): %v", exe, err)
	}
	cmd := exec.Command(exe, "--host", "127.0.0.1", "--port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if _, addr, ok := strings.Cut(lines.Text(), " listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSpace(addr)
		}
	}
	t.Fatal("the local Spanner never said where it listens")
	return ""
}

// peer plays the supervisor: it writes control lines and reads the worker's messages.
type peer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
}

func (p *peer) send(line string) {
	if _, err := p.in.Write([]byte(line + "\n")); err != nil {
		p.t.Fatal(err)
	}
}

// next is the next message of a type, skipping others (reports) into skipped.
func (p *peer) next(kind string, skipped *[]map[string]any) map[string]any {
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the worker ended before a %s message", kind)
			}
			if m["type"] == kind {
				return m
			}
			if m["type"] == "error" {
				p.t.Fatalf("the worker reported an error: %v", m)
			}
			if skipped != nil {
				*skipped = append(*skipped, m)
			}
		case <-timeout:
			p.t.Fatalf("no %s message within 60 s", kind)
		}
	}
}

func rows(m map[string]any, field string) map[int64][2]int64 {
	out := map[int64][2]int64{}
	for _, r := range m[field].([]any) {
		row := r.([]any)
		out[int64(row[0].(float64))] = [2]int64{int64(row[1].(float64)), int64(row[2].(float64))}
	}
	return out
}

func sumCounter(reports []map[string]any, name string) int64 {
	var n int64
	for _, r := range reports {
		if v, ok := r["counters"].(map[string]any)[name]; ok {
			n += int64(v.(float64))
		}
	}
	return n
}

func histogramCount(t *testing.T, reports []map[string]any, op string) int64 {
	var n int64
	for _, r := range reports {
		if text, ok := r["hdr"].(map[string]any)[op]; ok {
			h, err := metrics.Decode(text.(string))
			if err != nil {
				t.Fatal(err)
			}
			n += h.TotalCount()
		}
	}
	return n
}

// e2eCase is one workload shape: every updater mode, shard filter, hint and reader query is in one.
type e2eCase struct {
	name, schema, mode, filter, query string
	hint                              bool
	watchers                          int
	staleness                         float64
}

var e2eCases = []e2eCase{
	{"mutations, fixed shards, hint, point reads", "singers", "mutations", "fixed", "point", true, 2, 0},
	{"dml, not_null, no hint, stale recent reads", "singers", "dml", "not_null", "recent_changes", false, 1, 0.5},
	{"batch_insert, no filter, leaderboard reads", "leaderboard", "batch_insert", "none", "leaderboard", true, 1, 0},
}

// TestAgainstTheLocalSpannerEveryWriteIsReceivedOnce runs one worker against the real local
// Spanner through the protocol, for every workload shape, and reconciles its two ledgers as the
// engine does.
func TestAgainstTheLocalSpannerEveryWriteIsReceivedOnce(t *testing.T) {
	addr := startLocalSpanner(t)
	for i, c := range e2eCases {
		t.Run(c.name, func(t *testing.T) { runE2E(t, addr, fmt.Sprintf("gotest%d", i), c) })
	}
}

func runE2E(t *testing.T, addr, database string, c e2eCase) {
	p, code := startWorker(t, 0)

	hello := p.next("hello", nil)
	if host, _ := os.Hostname(); hello["language"] != "go" || hello["worker"] != 0.0 || hello["v"] != 1.0 || hello["host"] != host {
		t.Fatalf("hello %v", hello)
	}
	config := fmt.Sprintf(`{"target":{"kind":"local","emulator_host":%q,"project":"p","instance":"i","database":%q},
"schema":%q,"processes":1,"report_interval_s":0.5,
"updater":{"enabled":true,"transactions_per_second":60,"mutations_per_transaction":3,"parallelism":4,"mode":%q,"batch_rows":6,"key_space":200},
"watcher":{"enabled":true,"watchers":%d,"poll_interval_ms":200,"limit":50,"table_hint":%v,"shard_filter":%q},
"reader":{"enabled":true,"reads_per_second":40,"concurrency":2,"think_time_ms":0,"query":%q,"staleness_s":%g},
"client":{"multiplexed_sessions":true,"session_pool_size":10}}`,
		addr, database, c.schema, c.mode, c.watchers, c.hint, c.filter, c.query, c.staleness)
	p.send(`{"type":"start","v":1,"run_id":"go-e2e","worker":0,"workers":1,"setup_schema":true,"config":` +
		strings.ReplaceAll(config, "\n", "") + `}`)
	p.next("ready", nil)
	p.send(fmt.Sprintf(`{"type":"begin","v":1,"started_at":%f}`, float64(time.Now().UnixNano())/1e9))
	var reports []map[string]any
	for len(reports) < 4 { // two seconds of load
		reports = append(reports, p.next("report", nil))
	}
	p.send(`{"type":"stop_writers","v":1}`)
	written := p.next("writers_stopped", &reports)
	p.send(`{"type":"stop","v":1}`)
	received := p.next("watcher_ledger", &reports)
	final := p.next("report", nil)
	for final["final"] != true { // an interval's report may still go out while the watcher drains
		reports = append(reports, final)
		final = p.next("report", nil)
	}
	reports = append(reports, final)
	p.next("stopped", nil)
	if c := <-code; c != 0 || final["final"] != true {
		t.Fatalf("exit code %d, final report %v", c, final["final"])
	}

	if written["writer_id"] != "go-e2e/0" || len(written["uncertain_keys"].([]any)) != 0 {
		t.Fatalf("writers_stopped %v", written)
	}
	wrote, got := rows(written, "ledger"), rows(received, "received")
	var versionsWritten, versionsReceived int64
	for key, w := range wrote {
		r := got[key]
		if r[0] != w[0] {
			t.Errorf("key %d: final version %d written, %d received", key, w[0], r[0])
		}
		versionsWritten += w[1]
		versionsReceived += r[1]
	}
	if len(got) != len(wrote) || received["duplicates"] != 0.0 || received["foreign"] != 0.0 || len(wrote) == 0 {
		t.Errorf("%d keys written, %d received, %v duplicates, %v foreign", len(wrote), len(got),
			received["duplicates"], received["foreign"])
	}
	transactions := sumCounter(reports, protocol.CounterTransactions)
	checks := []struct {
		name      string
		got, want int64
	}{
		{"mutations = versions written", sumCounter(reports, protocol.CounterMutations), versionsWritten},
		{"received_changes = versions received", sumCounter(reports, protocol.CounterReceivedChanges), versionsReceived},
		{"notify latencies = received changes", histogramCount(t, reports, protocol.OpWatcherNotify), versionsReceived},
		{"txn latencies = transactions", histogramCount(t, reports, protocol.OpUpdaterTxn), transactions},
		{"server-timed txns = transactions", histogramCount(t, reports, protocol.OpUpdaterTxnServer), transactions},
		{"server-timed reads = reads", histogramCount(t, reports, protocol.OpReaderReadServer), sumCounter(reports, protocol.CounterReads)},
		{"server-timed polls = polls", histogramCount(t, reports, protocol.OpWatcherPollServer), sumCounter(reports, protocol.CounterPolls)},
		{"errors", sumCounter(reports, protocol.CounterErrors), 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %d; want %d", c.name, c.got, c.want)
		}
	}
	if transactions == 0 || sumCounter(reports, protocol.CounterReads) == 0 {
		t.Errorf("no load ran: %d transactions, %d reads", transactions, sumCounter(reports, protocol.CounterReads))
	}
	lastCPU := 0.0
	for i, r := range reports {
		if r["seq"] != float64(i) {
			t.Errorf("report %d has seq %v", i, r["seq"])
		}
		cpu, _ := r["cpu_s"].(float64)
		if cpu < lastCPU {
			t.Errorf("report %d: cpu_s %v fell below %v (it is cumulative)", i, r["cpu_s"], lastCPU)
		}
		lastCPU = cpu
	}
	if lastCPU <= 0 {
		t.Errorf("the final report's cpu_s is %v; the worker did use CPU", lastCPU)
	}
}
