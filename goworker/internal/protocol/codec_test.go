package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const configJSON = `{"name":null,"preset":"light","target":{"kind":"local","emulator_host":"127.0.0.1:1","project":"p","instance":"i","database":"d"},
"duration_s":10.0,"workload":"definition","processes":2,"runtime":"go","report_interval_s":0.5,
"updater":{"enabled":true,"transactions_per_second":12.5,"mutations_per_transaction":5,"parallelism":8,"mode":"dml","batch_rows":6,"key_space":300},
"definition":{"name":"w","operations":{"op":{"rate":"$rate","steps":[{"sql":"SELECT 1"}]}}},"knobs":{"rate":12.5},
"operations":{"op":{"max_in_flight":8}},"seed":42,
"client":{"multiplexed_sessions":false,"session_pool_size":7,"timeout_ms":2500.0,"a_field_from_the_future":1}}`

func TestDecodeEveryControlMessage(t *testing.T) {
	cases := []struct {
		line string
		want any
	}{
		{`{"type":"begin","v":1,"started_at":1700000000.25}`, &Begin{StartedAt: 1700000000.25}},
		{`{"type":"preload","v":1,"rows":200000,"start":100000,"count":100000,"resume":true}`,
			&Preload{Rows: 200000, Start: 100000, Count: 100000, Resume: true}},
		{`{"type":"pause","v":1}`, &Pause{}},
		{`{"type":"resume","v":1}`, &Resume{}},
		{`{"type":"stop_writers","v":1}`, &StopWriters{}},
		{`{"type":"stop","v":1}`, &Stop{}},
	}
	for _, c := range cases {
		got, err := Decode([]byte(c.line))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Decode(%s) = %#v, %v; want %#v", c.line, got, err, c.want)
		}
	}
}

func TestDecodeStartCarriesTheWholeConfig(t *testing.T) {
	line := `{"type":"start","v":1,"run_id":"r1","worker":1,"workers":2,"emulator_host":"h:9","setup_schema":true,"config":` + configJSON + `}`
	msg, err := Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	s := msg.(*Start)
	if s.RunID != "r1" || s.Worker != 1 || s.Workers != 2 || *s.EmulatorHost != "h:9" || !s.SetupSchema {
		t.Fatalf("start fields: %+v", s)
	}
	c := s.Config
	// a legacy section (updater) is not read: the control plane turned it into the definition's run
	if c.Workload != WorkloadDefinition || c.Runtime != "go" || c.ReportIntervalS != 0.5 || *c.Seed != 42 ||
		string(c.Knobs["rate"]) != "12.5" || *c.Operations["op"].MaxInFlight != 8 || c.Operations["op"].Rate != nil ||
		!strings.HasPrefix(string(c.Definition), `{"name":"w",`) ||
		c.Client.MultiplexedSessions || c.Client.SessionPoolSize != 7 || *c.Client.TimeoutMs != 2500 ||
		*c.Target.EmulatorHost != "127.0.0.1:1" || *c.DurationS != 10 {
		t.Fatalf("config: %+v", c)
	}
}

func TestDecodeRefusesWhatIsNotThisProtocol(t *testing.T) {
	cases := []struct {
		line, want string
	}{
		{`not json`, "not a JSON object"},
		{`[1]`, "not a JSON object"},
		{`{"type":"stop"}`, "protocol version missing is not 1"},
		{`{"type":"stop","v":2}`, "protocol version 2 is not 1"},
		{`{"type":"begin","v":1,"started_at":"soon"}`, `bad "begin" message`},
		{`{"type":"dance","v":1}`, `unknown message type "dance"`},
	}
	for _, c := range cases {
		_, err := Decode([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%s) error = %v; want one containing %q", c.line, err, c.want)
		}
	}
	if _, err := Decode([]byte(`{"type":"dance","v":1}`)); !errors.Is(err, ErrUnknownType) {
		t.Errorf("an unknown type is not ErrUnknownType: %v", err)
	}
}

func TestEncodeWritesTypedVersionedLines(t *testing.T) {
	cpu := 0.25
	cases := []struct {
		msg  any
		want map[string]any
	}{
		{&Hello{Worker: 2, Pid: 42, Language: "go", Client: "c v1", Host: "h"},
			map[string]any{"type": "hello", "v": 1.0, "worker": 2.0, "pid": 42.0, "language": "go", "client": "c v1", "host": "h"}},
		{&Ready{Worker: 1}, map[string]any{"type": "ready", "v": 1.0, "worker": 1.0}},
		{&Report{Worker: 0, Seq: 3, T: 1.5, IntervalS: 1, Counters: map[string]int64{CounterTransactions: 7}},
			map[string]any{"type": "report", "v": 1.0, "worker": 0.0, "seq": 3.0, "t": 1.5, "interval_s": 1.0,
				"counters": map[string]any{"transactions": 7.0}, "gauges": map[string]any{},
				"errors_by_code": map[string]any{}, "hdr": map[string]any{}, "final": false, "cpu_s": nil}},
		{&Report{CPUS: &cpu, Final: true, SysError: "PERMISSION_DENIED: no"},
			map[string]any{"type": "report", "v": 1.0, "worker": 0.0, "seq": 0.0, "t": 0.0, "interval_s": 0.0,
				"counters": map[string]any{}, "gauges": map[string]any{}, "errors_by_code": map[string]any{},
				"hdr": map[string]any{}, "final": true, "cpu_s": 0.25, "sys_error": "PERMISSION_DENIED: no"}},
		{&WritersStopped{Worker: 1, WriterID: "r/1", Ledger: [][3]int64{{3, 2, 2}}},
			map[string]any{"type": "writers_stopped", "v": 1.0, "worker": 1.0, "writer_id": "r/1",
				"ledger": []any{[]any{3.0, 2.0, 2.0}}, "uncertain_keys": []any{}}},
		{&WatcherLedger{Worker: 0, Duplicates: 1, Foreign: 2},
			map[string]any{"type": "watcher_ledger", "v": 1.0, "worker": 0.0, "received": []any{},
				"duplicates": 1.0, "foreign": 2.0}},
		{&WatchSwitched{Worker: 0, Mode: "poll", Previous: "change_stream", Handover: "2026-01-01T00:00:00Z"},
			map[string]any{"type": "watch_switched", "v": 1.0, "worker": 0.0, "mode": "poll",
				"previous": "change_stream", "handover": "2026-01-01T00:00:00Z"}},
		{&Stopped{Worker: 0}, map[string]any{"type": "stopped", "v": 1.0, "worker": 0.0}},
		{&Error{Worker: 0, Message: "no", Fatal: true},
			map[string]any{"type": "error", "v": 1.0, "worker": 0.0, "message": "no", "fatal": true}},
	}
	for _, c := range cases {
		line, err := Encode(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		if line[len(line)-1] != '\n' || strings.Count(string(line), "\n") != 1 {
			t.Errorf("%T: not one line: %q", c.msg, line)
		}
		var got map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%T: %v in %s", c.msg, err, line)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%T encoded as %v; want %v", c.msg, got, c.want)
		}
	}
	if _, err := Encode(&Start{}); err == nil {
		t.Error("a supervisor message encoded as a worker message")
	}
}

// The Go worker runs definitions only: any other workload is refused with a sentence naming it.
func TestOnlyADefinitionRunsAndAnythingElseIsNamed(t *testing.T) {
	cases := []struct {
		config RunConfig
		err    string
	}{
		{RunConfig{Workload: WorkloadDefinition}, ""},
		{RunConfig{Workload: "change_watcher"}, `the Go worker runs workload definitions; workload "change_watcher" reached it unconverted`},
		{RunConfig{Workload: "participants"}, `the Go worker runs workload definitions; workload "participants" reached it unconverted`},
		{RunConfig{Schema: "tweets"}, `the Go worker runs workload definitions; a config of schema "tweets" (no workload) reached it unconverted`},
		{RunConfig{Workload: "tpcc"}, "workload tpcc is not implemented by the Go worker (runtime go); run it with runtime python"},
	}
	for _, c := range cases {
		err := c.config.CheckDefinition()
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%+v: got %v; want %q", c.config, err, c.err)
		}
	}
}

func TestEncodePreloadProgressAndReadyWithTheTableRows(t *testing.T) {
	cpu := 1.5
	line, err := Encode(&PreloadProgress{Worker: 1, RowsDone: 3000, RowsSkipped: 1000, Done: true, CPUS: &cpu})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"preload_progress","v":1,"worker":1,"rows_done":3000,"rows_skipped":1000,"done":true,"cpu_s":1.5}` + "\n"
	if string(line) != want {
		t.Errorf("Encode(PreloadProgress) = %s, want %s", line, want)
	}
	rows := int64(42)
	for _, c := range []struct {
		ready Ready
		want  string
	}{
		{Ready{Worker: 0, TableRows: &rows}, `{"type":"ready","v":1,"worker":0,"table_rows":42}` + "\n"},
		{Ready{Worker: 1}, `{"type":"ready","v":1,"worker":1}` + "\n"},
	} {
		line, err := Encode(&c.ready)
		if err != nil || string(line) != c.want {
			t.Errorf("Encode(%+v) = %s, %v; want %s", c.ready, line, err, c.want)
		}
	}
}
