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
		`"config":{"target":{"kind":"local","project":"p","instance":"i","database":"d"},"workload":"definition","report_interval_s":1,` +
		`"definition":{"name":"x","operations":{"op":{"rate":1,"steps":[{"sql":"SELECT 1"}]}}},` +
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

// A start whose workload is not a definition (the control plane converts the report workloads
// before any worker starts) fails with one fatal error naming the workload, before any connection.
func TestAWorkloadThatIsNotADefinitionIsAFatalErrorNamingIt(t *testing.T) {
	for _, c := range []struct{ workload, want string }{
		{`"workload":"write_benchmark","updater":{"enabled":true,"transactions_per_second":1}`,
			`the Go worker runs workload definitions; workload "write_benchmark" reached it unconverted`},
		{`"schema":"singers"`, `the Go worker runs workload definitions; a config of schema "singers" (no workload) reached it unconverted`},
		{`"workload":"tpcc"`, "workload tpcc is not implemented by the Go worker (runtime go); run it with runtime python"},
	} {
		start := `{"type":"start","v":1,"run_id":"r","worker":0,"workers":1,"setup_schema":true,"emulator_host":"127.0.0.1:1",` +
			`"config":{"target":{"kind":"local","project":"p","instance":"i","database":"d"},` + c.workload +
			`,"report_interval_s":1,"client":{"multiplexed_sessions":true,"session_pool_size":1}}}` + "\n"
		msg, _ := startFails(t, start)
		if !msg.Fatal || msg.Message != c.want {
			t.Errorf("error %q; want a fatal %q", msg.Message, c.want)
		}
	}
}
