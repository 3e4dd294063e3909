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
	msg, line := startFails(t, start)
	want := "the local target at " + addr + " did not answer: UNAVAILABLE: "
	if !msg.Fatal || !strings.HasPrefix(msg.Message, want) || !strings.Contains(line, `"type":"error"`) {
		t.Errorf("error %s; want a fatal one starting %q", line, want)
	}
}

// startFails serves one start line that must fail: exit 1 after hello and one error, returned.
func startFails(t *testing.T, start string) (protocol.Error, string) {
	t.Helper()
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
	return msg, lines[1]
}

// A definition this runtime cannot run fails the start with one fatal error saying why, before any
// connection (the target here is nowhere).
func TestADefinitionThatCannotRunIsAFatalErrorSayingWhy(t *testing.T) {
	for _, c := range []struct{ definition, want string }{
		{`{"name":"x","operations":{"op":{"rate":1,"steps":[{"insert":{"table":"T","columns":{"A":{"uniform":{"min":5,"max":1}}}}}]}}}`,
			"workload definition: operations.op: steps.0.insert.A: uniform min 5 is above max 1"},
		{`{"name":"x","dialect":"mysql","operations":{"op":{"rate":1,"steps":[{"sql":"SELECT 1"}]}}}`,
			`workload definition: dialect "mysql": the Go interpreter runs googlesql and postgresql definitions`},
		{`{"name":"x","dialect":"postgresql","operations":{"op":{"rate":1,"steps":[{"sql":"SELECT $1"}]}}}`,
			"workload definition: operations.op: steps.0.sql: $1 has no value; say where it comes from in params"},
		{`{"name":"x","operations":{"op":{"rate":1,"steps":[{"sql":"SELECT @nobody"}]}}}`,
			"workload definition: operations.op: steps.0.sql @nobody: nobody names no knob, value or column"},
	} {
		start := `{"type":"start","v":1,"run_id":"r","worker":0,"workers":1,"setup_schema":true,"emulator_host":"127.0.0.1:1",` +
			`"config":{"target":{"kind":"local","project":"p","instance":"i","database":"d"},"workload":"definition",` +
			`"report_interval_s":1,"client":{"multiplexed_sessions":true,"session_pool_size":1},"definition":` + c.definition + `}}` + "\n"
		msg, _ := startFails(t, start)
		if !msg.Fatal || !strings.HasPrefix(msg.Message, c.want) {
			t.Errorf("error %q; want a fatal one starting %q", msg.Message, c.want)
		}
	}
}
