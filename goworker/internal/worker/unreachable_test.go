package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// A target that does not answer fails the start with one fatal error naming the address and the
// gRPC status, before ready.
func TestAnUnreachableTargetIsAFatalErrorNamingTheAddress(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close() // nothing listens there now
	start := `{"type":"start","v":1,"run_id":"r","worker":0,"workers":1,"setup_schema":true,"emulator_host":"` + addr + `",` +
		`"config":{"target":{"kind":"local","project":"p","instance":"i","database":"d"},"schema":"singers","report_interval_s":1,` +
		`"updater":{"enabled":true,"transactions_per_second":1,"mutations_per_transaction":1,"parallelism":1,"mode":"mutations","batch_rows":1,"key_space":10},` +
		`"watcher":{"enabled":true,"watchers":1,"poll_interval_ms":100,"limit":10,"table_hint":true,"shard_filter":"fixed"},` +
		`"reader":{"enabled":false,"reads_per_second":1,"concurrency":1,"think_time_ms":0,"query":"point","staleness_s":0},` +
		`"client":{"multiplexed_sessions":true,"session_pool_size":1,"timeout_ms":3000}}}` + "\n" // the probe ends at the first refused dial; 300 ms could end first on a loaded machine
	var out bytes.Buffer
	code := Serve(context.Background(), 0, strings.NewReader(start), protocol.NewChannel(&out), "test")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || len(lines) != 2 {
		t.Fatalf("exit %d, lines %q; want 1 and hello + error", code, lines)
	}
	var msg protocol.Error
	if err := json.Unmarshal([]byte(lines[1]), &msg); err != nil {
		t.Fatal(err)
	}
	want := "the local target at " + addr + " did not answer: UNAVAILABLE: "
	if !msg.Fatal || !strings.HasPrefix(msg.Message, want) || !strings.Contains(lines[1], `"type":"error"`) {
		t.Errorf("error %s; want a fatal one starting %q", lines[1], want)
	}
}
