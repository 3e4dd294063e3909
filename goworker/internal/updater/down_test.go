package updater

import (
	"context"
	"net"
	"testing"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/schema"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// Against a target that is down, each transaction fails within its deadline, counts as the
// UNAVAILABLE that kept the client retrying, is timed in updater.txn.failed, and leaves its keys
// out of the reconciliation (the commit may have happened).
func TestATargetThatIsDownFailsEachTransactionAsUnavailable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	timeoutMs := 3000.0 // long enough for a refused dial to be seen on a loaded machine (300 ms, then 1 s at a load average of 12, saw DEADLINE_EXCEEDED)
	target := protocol.Target{Kind: protocol.TargetEmulator, EmulatorHost: &addr, Project: "p", Instance: "i", Database: "d"}
	conn, err := spanclient.Connect(context.Background(), target,
		protocol.ClientConfig{MultiplexedSessions: true, SessionPoolSize: 1, TimeoutMs: &timeoutMs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	spec, _ := schema.Get("singers")
	stats := metrics.NewStats()
	u := New(func() *spanclient.Conn { return conn }, spec, protocol.UpdaterConfig{Enabled: true, TransactionsPerSecond: 1,
		MutationsPerTransaction: 1, Parallelism: 1, Mode: protocol.ModeMutations, KeySpace: 100}, stats, 0, 1, "down")
	for range 2 {
		now := pacing.Now()
		u.transaction(now, now)
	}
	counters, errs, hdr, err := stats.Take()
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || errs["UNAVAILABLE"] != 2 || counters[protocol.CounterErrors] != 2 || counters[protocol.CounterTransactions] != 0 {
		t.Errorf("errors %v, counters %v; want 2 UNAVAILABLE and no transaction", errs, counters)
	}
	h, err := metrics.Decode(hdr[protocol.OpUpdaterTxn+protocol.FailedSuffix])
	if err != nil || h.TotalCount() != 2 || len(hdr) != 1 {
		t.Fatalf("histograms %v (%v); want only updater.txn.failed with 2", hdr, err)
	}
	if h.Max() > 10_000_000 { // microseconds: ended by its 1 s deadline, not by the client's retries
		t.Errorf("a failed transaction took %d us", h.Max())
	}
	if _, uncertain := u.Ledger.Rows(); len(uncertain) == 0 {
		t.Error("a commit of unknown outcome kept its keys in the reconciliation")
	}
}
