package interp

import (
	"context"
	"net"
	"testing"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// downDef upserts one versioned key a single-use commit: its keys go to the write ledger.
const downDef = `{"name": "down", "operations": {"write": {"rate": 1, "transaction": "single_use", "steps": [
	{"insert_or_update": {"table": "Items", "columns": {"Id": {"versioned_key": {"max": 100}},
		"Version": "version", "WriterId": "writer_id", "LastUpdated": "commit_timestamp"}}}]}}}`

// Against a target that is down, each execution fails within its deadline (client.timeout_ms),
// counts as the UNAVAILABLE that kept the client retrying, is timed in its latency histogram's
// failed twin, and leaves its keys out of the reconciliation (the commit may have happened).
func TestATargetThatIsDownFailsEachExecutionAsUnavailable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	timeoutMs := 3000.0 // long enough for a refused dial to be seen on a loaded machine (300 ms, then 1 s at a load average of 12, saw DEADLINE_EXCEEDED)
	target := protocol.Target{Kind: protocol.TargetEmulator, EmulatorHost: &addr, Project: "p", Instance: "i", Database: "d"}
	client := protocol.ClientConfig{MultiplexedSessions: true, SessionPoolSize: 1, TimeoutMs: &timeoutMs}
	conn, err := spanclient.Connect(context.Background(), target, client, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cfg := protocol.RunConfig{Workload: protocol.WorkloadDefinition, Target: target, Client: client, Definition: []byte(downDef)}
	connOf := func() *spanclient.Conn { return conn }
	backend := func(def *Definition) (Backend, error) { return NewBackend(cfg, def.PG(), connOf) }
	stats := metrics.NewStats()
	rt, err := New(cfg, "run", 0, 1, connOf, backend, stats)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		now := pacing.Now()
		rt.ops[0].execute(now, now)
	}
	counters, errs, hdr, err := stats.Take()
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || errs["UNAVAILABLE"] != 2 || counters[protocol.CounterErrors] != 2 ||
		counters[protocol.CounterTransactions] != 0 || counters["op.write.done"] != 0 {
		t.Errorf("errors %v, counters %v; want 2 UNAVAILABLE and no transaction", errs, counters)
	}
	failed := OpName(protocol.OpHistogramLatency, "write") + protocol.FailedSuffix
	h, err := metrics.Decode(hdr[failed])
	if err != nil || h.TotalCount() != 2 || len(hdr) != 1 {
		t.Fatalf("histograms %v (%v); want only %s with 2", hdr, err, failed)
	}
	if h.Max() > 10_000_000 { // microseconds: ended by its 3 s deadline, not by the client's retries
		t.Errorf("a failed execution took %d us", h.Max())
	}
	if committed, uncertain := rt.Ledger().Rows(); len(uncertain) != 2 || len(committed) != 0 {
		t.Errorf("ledger %v, uncertain keys %v; want the 2 keys of unknown outcome uncertain, none committed",
			committed, uncertain)
	}
}
