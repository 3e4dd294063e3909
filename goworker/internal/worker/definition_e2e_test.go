package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/admin"
	"github.com/spanload/spanload/goworker/internal/interp"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// A definition run end to end: the test creates the definition's schema with the admin client
// (the control plane's job), plays the supervisor for every worker through the protocol (start,
// ready, preload, begin, stop_writers, stop) and checks the database against the reports.

const testdata = "../interp/testdata/"

type defRun struct {
	t        *testing.T
	addr, db string
	def      []byte
	knobs    string
	workers  int
	seconds  int // of load, in 0.5 s reports
	seed     uint64
	// timeoutMs: client.timeout_ms when set (the worker's default, 5 s, otherwise); a test whose
	// operations queue on a hot key sets it high, so that a loaded machine's slowness is no error
	timeoutMs int
	script    func(r *defRun) // what the supervisor does after the first seconds of load
	// streamDDL: the start message's watch_stream_ddl, which the Python supervisor fills from the
	// model (Watch.stream_ddl) for a change_stream watch
	streamDDL string
	peers     []*peer
	codes     []chan int
	reports   [][]map[string]any // per worker
	ready     []map[string]any
	progress  []map[string]any // the last preload_progress of each worker
	writers   []map[string]any // each worker's writers_stopped
	others    []map[string]any // what came between stop and the final report (watcher_ledger)
}

func startWorker(t *testing.T, index int) (*peer, chan int) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{t: t, in: inW, lines: make(chan map[string]any, 10000)}
	go func() {
		defer close(p.lines)
		s := bufio.NewScanner(outR)
		s.Buffer(nil, 1<<26)
		for s.Scan() {
			var m map[string]any
			if err := json.Unmarshal(s.Bytes(), &m); err != nil {
				// handed to the test's own goroutine (next fails on it): a t.Errorf from here could
				// come after the (sub)test returned, which the testing package forbids
				p.lines <- map[string]any{"type": "error", "message": fmt.Sprintf("not JSON: %s", s.Bytes())}
				return
			}
			p.lines <- m
		}
	}()
	code := make(chan int, 1)
	go func() {
		code <- Serve(context.Background(), index, inR, protocol.NewChannel(outW), "test")
		_ = outW.Close()
	}()
	return p, code
}

func (r *defRun) config() string { return r.configWith(r.knobs, "") }

// configWith is the run's config with other knob values and more fields (`,"operations":{...}`).
func (r *defRun) configWith(knobs, extra string) string {
	timeout := ""
	if r.timeoutMs > 0 {
		timeout = fmt.Sprintf(`,"timeout_ms":%d`, r.timeoutMs)
	}
	return fmt.Sprintf(`{"target":{"kind":"local","emulator_host":%q,"project":"p","instance":"i","database":%q},`+
		`"workload":"definition","processes":%d,"report_interval_s":0.5,"seed":%d,`+
		`"client":{"multiplexed_sessions":true,"session_pool_size":10%s},"knobs":%s,"definition":%s%s}`,
		r.addr, r.db, r.workers, r.seed, timeout, knobs, compact(r.t, r.def), extra)
}

// errorCodes is the run's errors by gRPC code, summed over every report.
func (r *defRun) errorCodes() map[string]int64 {
	out := map[string]int64{}
	for _, rep := range r.all() {
		codes, _ := rep["errors_by_code"].(map[string]any)
		for code, n := range codes {
			out[code] += int64(n.(float64))
		}
	}
	return out
}

// compact is data on one line, keys in their order (the order of a definition's maps matters).
func compact(t *testing.T, data []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// createSchema runs the definition's DDL with the admin client, as the control plane does.
func createSchema(t *testing.T, addr, db string, defJSON []byte) *interp.Definition {
	var def interp.Definition
	if err := json.Unmarshal(defJSON, &def); err != nil {
		t.Fatal(err)
	}
	target := protocol.Target{Kind: protocol.TargetLocal, EmulatorHost: &addr, Project: "p", Instance: "i", Database: db}
	opts, err := spanclient.Options(target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Ensure(context.Background(), spanclient.PathsOf(target), def.Name, def.DDL, opts...); err != nil {
		t.Fatal(err)
	}
	return &def
}

func client(t *testing.T, addr, db string) *spanner.Client {
	target := protocol.Target{Kind: protocol.TargetLocal, EmulatorHost: &addr, Project: "p", Instance: "i", Database: db}
	conn, err := spanclient.Connect(context.Background(), target, protocol.ClientConfig{MultiplexedSessions: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn.Client
}

// run plays the supervisor: start every worker, preload what worker 0 says is missing, begin, let
// the load run, then stop in two phases.
func (r *defRun) run() {
	t := r.t
	for i := range r.workers {
		p, code := startWorker(t, i)
		r.peers, r.codes = append(r.peers, p), append(r.codes, code)
		hello := p.next("hello", nil)
		if host, _ := os.Hostname(); hello["language"] != "go" || hello["worker"] != float64(i) || hello["v"] != 1.0 || hello["host"] != host {
			t.Fatalf("hello %v", hello)
		}
		p.send(fmt.Sprintf(`{"type":"start","v":1,"run_id":"def-e2e","worker":%d,"workers":%d,"setup_schema":%v,"watch_stream_ddl":%q,"config":%s}`,
			i, r.workers, i == 0, r.streamDDL, r.config()))
	}
	for _, p := range r.peers {
		r.ready = append(r.ready, p.next("ready", nil))
	}
	wanted := interp.Wanted(loadPlan(t, r.def, r.knobs, r.seed))
	present := int64(0)
	if n, ok := r.ready[0]["table_rows"].(float64); ok {
		present = int64(n)
	}
	if wanted > 0 && present < wanted {
		share := (wanted + int64(r.workers) - 1) / int64(r.workers)
		for i, p := range r.peers {
			start := min(int64(i)*share, wanted)
			p.send(fmt.Sprintf(`{"type":"preload","v":1,"rows":%d,"start":%d,"count":%d,"resume":%v}`,
				wanted, start, min(share, wanted-start), present > 0))
		}
		for _, p := range r.peers {
			m := p.next("preload_progress", nil)
			for m["done"] != true {
				m = p.next("preload_progress", nil)
			}
			r.progress = append(r.progress, m)
		}
	}
	begin := float64(time.Now().UnixNano()) / 1e9
	for _, p := range r.peers {
		p.send(fmt.Sprintf(`{"type":"begin","v":1,"started_at":%f}`, begin))
	}
	r.reports = make([][]map[string]any, r.workers)
	var wg sync.WaitGroup
	failed := make([]error, len(r.peers)) // t.Fatal belongs to the test's goroutine: errors come back here
	for i, p := range r.peers {
		wg.Go(func() {
			for len(r.reports[i]) < 2*r.seconds {
				m, err := p.nextErr("report", nil)
				if err != nil {
					failed[i] = fmt.Errorf("worker %d: %w", i, err)
					return
				}
				r.reports[i] = append(r.reports[i], m)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(failed...); err != nil {
		r.t.Fatal(err)
	}
	if r.script != nil {
		r.script(r)
	}
	for i, p := range r.peers {
		p.send(`{"type":"stop_writers","v":1}`)
		r.writers = append(r.writers, p.next("writers_stopped", &r.reports[i]))
	}
	for i, p := range r.peers {
		p.send(`{"type":"stop","v":1}`)
		final := p.next("report", &r.others)
		for final["final"] != true {
			r.reports[i] = append(r.reports[i], final)
			final = p.next("report", &r.others)
		}
		r.reports[i] = append(r.reports[i], final)
		p.next("stopped", nil)
		if c := <-r.codes[i]; c != 0 {
			t.Fatalf("worker %d exited %d", i, c)
		}
		checkSequence(t, i, r.reports[i])
	}
}

// checkSequence: a worker's reports are numbered from 0 in order, the last one final, and their
// cpu_s is cumulative (it never falls) and above 0 at the end.
func checkSequence(t *testing.T, worker int, reports []map[string]any) {
	t.Helper()
	lastCPU := 0.0
	for i, m := range reports {
		if m["seq"] != float64(i) || (m["final"] == true) != (i == len(reports)-1) {
			t.Errorf("worker %d: report %d has seq %v, final %v", worker, i, m["seq"], m["final"])
		}
		cpu, _ := m["cpu_s"].(float64)
		if cpu < lastCPU {
			t.Errorf("worker %d: report %d: cpu_s %v fell below %v (it is cumulative)", worker, i, m["cpu_s"], lastCPU)
		}
		lastCPU = cpu
	}
	if lastCPU <= 0 {
		t.Errorf("worker %d: the final report's cpu_s is %v; the worker did use CPU", worker, lastCPU)
	}
}

// loadPlan is the definition's load with knobs (a JSON object) and seed.
func loadPlan(t *testing.T, def []byte, knobs string, seed uint64) []*interp.LoadTable {
	cfg := protocol.RunConfig{Definition: def}
	if err := json.Unmarshal([]byte(knobs), &cfg.Knobs); err != nil {
		t.Fatal(err)
	}
	d, k, err := interp.Decode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := interp.LoadPlan(d, k, seed)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func (r *defRun) sendAll(line string) {
	for _, p := range r.peers {
		p.send(line)
	}
}

// round takes the next report of every worker.
func (r *defRun) round() []map[string]any {
	out := make([]map[string]any, r.workers)
	for i, p := range r.peers {
		out[i] = p.next("report", nil)
		r.reports[i] = append(r.reports[i], out[i])
	}
	return out
}

// until takes rounds of reports until every worker's satisfies cond (no time limit but the
// peer's, 60 s a report).
func (r *defRun) until(what string, cond func(m map[string]any) bool) {
	for range 100 {
		ok := true
		for _, m := range r.round() {
			ok = ok && cond(m)
		}
		if ok {
			return
		}
	}
	r.t.Fatalf("never, in 100 reports: %s (last: %v)", what, r.reports[0][len(r.reports[0])-1]["gauges"])
}

func errorsByCode(reports []map[string]any, code string) int64 {
	var n int64
	for _, r := range reports {
		if v, ok := r["errors_by_code"].(map[string]any)[code].(float64); ok {
			n += int64(v)
		}
	}
	return n
}

func gauge(m map[string]any, name string) float64 {
	v, ok := m["gauges"].(map[string]any)[name].(float64)
	if !ok {
		return -1
	}
	return v
}

func counterOf(m map[string]any, name string) int64 {
	v, _ := m["counters"].(map[string]any)[name].(float64)
	return int64(v)
}

// inventoryScript patches knobs and pacing, then pauses and resumes, checking each through the
// reports: the new targets, and nothing run while an operation is off or the run paused.
func inventoryScript(r *defRun) {
	t := r.t
	ops := []string{"move", "audit", "peek", "note", "touch", "by_warehouse", "first_note"}
	patch := r.configWith(`{"slots":30,"move_rate":20.0}`, `,"operations":{"peek":{"rate":5},"audit":{"enabled":false}}`)
	r.sendAll(`{"type":"patch","v":1,"config":` + patch + `}`)
	r.until("the patched pacing (move 20/s and peek 5/s over 2 workers, audit off)", func(m map[string]any) bool {
		return gauge(m, "op.move.target_ps") == 10 && gauge(m, "op.peek.target_ps") == 2.5 && gauge(m, "op.audit.in_flight") == 0
	})
	r.round() // a report's counters are taken before its gauges: one that ended in between counts here
	for _, m := range r.round() {
		if n := counterOf(m, "op.audit.done"); n != 0 {
			t.Errorf("worker %v ran audit %d times after it was disabled", m["worker"], n)
		}
	}
	r.sendAll(`{"type":"pause","v":1}`)
	r.until("paused with nothing in flight", func(m map[string]any) bool {
		idle := gauge(m, "op.move.target_ps") == 0
		for _, op := range ops {
			idle = idle && gauge(m, "op."+op+".in_flight") == 0
		}
		return idle
	})
	r.round() // as above
	for _, m := range r.round() {
		for _, op := range ops {
			if n := counterOf(m, "op."+op+".done"); n != 0 {
				t.Errorf("worker %v: %s ran %d times while paused", m["worker"], op, n)
			}
		}
	}
	r.sendAll(`{"type":"resume","v":1}`)
	r.until("moves again at the patched rate", func(m map[string]any) bool {
		return gauge(m, "op.move.target_ps") == 10 && counterOf(m, "op.move.done") > 0
	})
}

func (r *defRun) all() []map[string]any {
	var out []map[string]any
	for _, rs := range r.reports {
		out = append(out, rs...)
	}
	return out
}

func (r *defRun) counter(name string) int64 { return sumCounter(r.all(), name) }

func (r *defRun) histogram(name string) int64 { return histogramCount(r.t, r.all(), name) }

// queryOne is the one value sql returns.
func queryOne[T any](t *testing.T, c *spanner.Client, sql string) T {
	var v T
	row, err := c.Single().Query(context.Background(), spanner.NewStatement(sql)).Next()
	if err == nil {
		err = row.Columns(&v)
	}
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func queryInt(t *testing.T, c *spanner.Client, sql string) int64 {
	return queryOne[spanner.NullInt64](t, c, sql).Int64
}

func queryNumeric(t *testing.T, c *spanner.Client, sql string) *big.Rat {
	n := queryOne[spanner.NullNumeric](t, c, sql)
	return &n.Numeric
}

type check struct {
	name      string
	got, want int64
}

func expect(t *testing.T, checks []check) {
	t.Helper()
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %d; want %d", c.name, c.got, c.want)
		}
	}
}

func readFile(t *testing.T, name string) []byte {
	data, err := os.ReadFile(testdata + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDefinitionInventoryKeepsItsStockAndCountsMatchTheDatabase runs the inventory definition on
// two workers: every kind of transaction, binds from a query and a read, a load split between the
// workers, a closed-loop operation, the watcher on Movements, a live patch of knobs and pacing, a
// pause and a resume.
func TestDefinitionInventoryKeepsItsStockAndCountsMatchTheDatabase(t *testing.T) {
	addr := startLocalSpanner(t)
	data := readFile(t, "inventory.json")
	createSchema(t, addr, "inventory", data)
	r := &defRun{t: t, addr: addr, db: "inventory", def: data, knobs: `{"slots":30,"move_rate":60.0}`, workers: 2, seconds: 2, seed: 99,
		timeoutMs: 60000, script: inventoryScript} // moves queue on 30 slots' locks: see the shop test
	r.run()
	c := client(t, addr, "inventory")
	if r.ready[0]["table_rows"] != 0.0 {
		t.Errorf("worker 0 said table_rows %v before the load; want 0", r.ready[0]["table_rows"])
	}
	moves := r.counter("op.move.done")
	// the load is the seed's: every warehouse holds at least 3 slots, so a read of 3 by the
	// warehouse index always finds 3
	perWarehouse := map[int64]int{}
	for i := range int64(30) {
		perWarehouse[loadPlan(t, r.def, r.knobs, r.seed)[0].Row(i)[1].(int64)]++
	}
	for w := int64(1); w <= 4; w++ {
		if perWarehouse[w] < 3 {
			t.Fatalf("seed %d puts %d slots in warehouse %d; the checks below want 3", r.seed, perWarehouse[w], w)
		}
	}
	failed := r.histogram("op.first_note.failed")
	expect(t, []check{
		{"loaded Stock rows", queryInt(t, c, "SELECT COUNT(*) FROM Stock"), 30},
		{"preloaded rows reported", int64(r.progress[0]["rows_done"].(float64) + r.progress[1]["rows_done"].(float64)), 30},
		{"total stock after the moves", queryInt(t, c, "SELECT SUM(Quantity) FROM Stock"), 30 * 100},
		{"Movements rows = op.move.done", queryInt(t, c, "SELECT COUNT(*) FROM Movements"), moves},
		{"op.move latencies = op.move.done", r.histogram("op.move"), moves},
		{"op.move server-timed = op.move.done", r.histogram("op.move_server"), moves},
		{"op.move rows = 5 a move (2 read, 2 updated, 1 inserted)", r.counter("op.move.rows"), 5 * moves},
		{"Notes rows = op.note.rows + the one first note", queryInt(t, c, "SELECT COUNT(*) FROM Notes"),
			r.counter("op.note.rows") + 1},
		{"first_note succeeded once over both workers", r.counter("op.first_note.done"), 1},
		{"every other first_note failed ALREADY_EXISTS", errorsByCode(r.all(), "ALREADY_EXISTS"), failed},
		{"op.audit rows = op.audit.done (one sum each)", r.counter("op.audit.rows"), r.counter("op.audit.done")},
		{"op.peek rows = op.peek.done (every slot exists)", r.counter("op.peek.rows"), r.counter("op.peek.done")},
		{"op.touch rows = op.touch.done (one slot each)", r.counter("op.touch.rows"), r.counter("op.touch.done")},
		{"op.by_warehouse rows = 3 a read (its limit)", r.counter("op.by_warehouse.rows"), 3 * r.counter("op.by_warehouse.done")},
		{"changes received = Movements rows", r.counter(protocol.CounterReceivedChanges), moves},
		{"notify latencies = changes received", r.histogram(protocol.OpWatcherNotify), moves},
		{"errors = the failed first notes", r.counter(protocol.CounterErrors), failed},
	})
	if queryInt(t, c, "SELECT COUNT(*) FROM Notes WHERE Body IS NULL") == 0 || failed == 0 {
		t.Errorf("no note has a NULL body (null_fraction 0.3), or no first_note failed (%d)", failed)
	}
	for _, op := range []string{"move", "audit", "peek", "note", "touch", "by_warehouse"} {
		if r.counter("op."+op+".done") == 0 {
			t.Errorf("operation %s never ran", op)
		}
	}
	if r.counter("op.move.scheduled") < moves {
		t.Errorf("op.move.scheduled %d < done %d", r.counter("op.move.scheduled"), moves)
	}
	if r.histogram("op.audit_intended") != r.counter("op.audit.done") {
		t.Errorf("closed loop: %d intended-start latencies for %d executions", r.histogram("op.audit_intended"), r.counter("op.audit.done"))
	}
}

// TestDefinitionShopConservesBalanceAndWatchesEveryOrder runs workloads/shop.yaml (its JSON twin):
// every order's amount leaves its customer's balance, in the same transaction that inserts it.
func TestDefinitionShopConservesBalanceAndWatchesEveryOrder(t *testing.T) {
	addr := startLocalSpanner(t)
	data := readFile(t, "shop.json")
	createSchema(t, addr, "shop", data)
	// zipf over 200 customers puts a fifth of the orders on customer 1, whose read-write
	// transactions queue on its lock: a loaded machine (CI runs this beside pytest) took one past
	// the default 5 s deadline (errors: 1), and an order whose outcome is unknown breaks the counts
	r := &defRun{t: t, addr: addr, db: "shop", def: data, knobs: `{"customers":200,"order_rate":40}`, workers: 1, seconds: 3, seed: 12345, timeoutMs: 60000}
	r.run()
	c := client(t, addr, "shop")
	orders := r.counter("op.place_order.done")
	expect(t, []check{
		{"Customers loaded", queryInt(t, c, "SELECT COUNT(*) FROM Customers"), 200},
		{"Orders rows = op.place_order.done", queryInt(t, c, "SELECT COUNT(*) FROM Orders"), orders},
		{"op.place_order rows = 3 an order (1 read, 1 inserted, 1 updated)", r.counter("op.place_order.rows"), 3 * orders},
		{"changes received = Orders rows", r.counter(protocol.CounterReceivedChanges), orders},
		{"notify latencies = changes received", r.histogram(protocol.OpWatcherNotify), orders},
		// the local Spanner sends server-timing on every call
		{"server-timed place_order = op.place_order.done", r.histogram(serverTimed("place_order")), orders},
		{"server-timed recent_orders = op.recent_orders.done", r.histogram(serverTimed("recent_orders")), r.counter("op.recent_orders.done")},
		{"server-timed polls = polls", r.histogram(protocol.OpWatcherPollServer), r.counter(protocol.CounterPolls)},
	})
	if n := r.counter(protocol.CounterErrors); n != 0 {
		t.Errorf("errors: %d (by code %v); want 0", n, r.errorCodes())
	}
	if orders == 0 || r.counter("op.recent_orders.done") == 0 {
		t.Errorf("%d orders, %d recent_orders reads", orders, r.counter("op.recent_orders.done"))
	}
	// the load's balances, drawn again from the same seed, less every order's amount
	loaded := new(big.Rat)
	plan := loadPlan(t, data, r.knobs, r.seed)
	for i := range plan[0].Rows {
		d := plan[0].Row(i)[2].(interp.Decimal)
		loaded.Add(loaded, &d.Rat)
	}
	spent := queryNumeric(t, c, "SELECT SUM(Amount) FROM Orders")
	balance := queryNumeric(t, c, "SELECT SUM(Balance) FROM Customers")
	if want := new(big.Rat).Sub(loaded, spent); balance.Cmp(want) != 0 {
		t.Errorf("balances sum to %s; the load's %s less the orders' %s is %s", balance.FloatString(2),
			loaded.FloatString(2), spent.FloatString(2), want.FloatString(2))
	}
}

// serverTimed is an operation's server-timed latency histogram.
func serverTimed(op string) string {
	return interp.OpName(protocol.OpHistogramLatency, op) + protocol.ServerSuffix
}

// twoTables loads A (10 rows) then B (25): the load's row numbers run over both, and a worker's
// share can span the two.
const twoTables = `{"name":"two","ddl":["CREATE TABLE A (Id INT64 NOT NULL, V STRING(20)) PRIMARY KEY (Id)",
"CREATE TABLE B (Id INT64 NOT NULL, W INT64) PRIMARY KEY (Id)"],
"load":{"A":{"rows":10,"columns":{"Id":{"sequence":{"start":0}},"V":{"string":{"length":[3,9]}}}},
"B":{"rows":"$b","columns":{"Id":{"sequence":{"start":100,"step":2}},"W":{"uniform":{"min":1,"max":1000}}}}},
"knobs":{"b":{"default":25}},
"operations":{"idle":{"rate":1,"transaction":"single_use","steps":[{"sql":"SELECT 1"}]}}}`

// TestDefinitionLoadFillsTablesInOrderAndResumes: two workers load the concatenated rows of two
// tables with the values their streams draw; a second run, after rows went missing from B, is told
// what is there (ready.table_rows), skips A and fills B again.
func TestDefinitionLoadFillsTablesInOrderAndResumes(t *testing.T) {
	addr := startLocalSpanner(t)
	def := []byte(twoTables)
	createSchema(t, addr, "two", def)
	c := client(t, addr, "two")
	plan := loadPlan(t, def, `{}`, 7)
	check := func(when string) {
		for _, table := range plan {
			it := c.Single().Read(context.Background(), table.Table, spanner.AllKeys(), []string{"Id", map[string]string{"A": "V", "B": "W"}[table.Table]})
			n := int64(0)
			err := it.Do(func(row *spanner.Row) error {
				var v spanner.GenericColumnValue
				if err := row.Column(1, &v); err != nil {
					return err
				}
				want := table.Row(n)
				var id int64
				if err := row.Column(0, &id); err != nil {
					return err
				}
				if id != want[0].(int64) || fmt.Sprint(interp.Wire(want[1])) != v.Value.GetStringValue() {
					t.Errorf("%s: %s row %d is (%d, %v); its stream draws (%v, %v)", when, table.Table, n, id, v.Value, want[0], want[1])
				}
				n++
				return nil
			})
			if err != nil || n != table.Rows {
				t.Errorf("%s: %s has %d rows (%v); want %d", when, table.Table, n, err, table.Rows)
			}
		}
	}
	first := &defRun{t: t, addr: addr, db: "two", def: def, knobs: `{}`, workers: 2, seconds: 1, seed: 7}
	first.run()
	check("after the load")
	if first.ready[0]["table_rows"] != 0.0 || first.progress[0]["rows_done"] != 18.0 || first.progress[1]["rows_done"] != 17.0 {
		t.Errorf("first load: table_rows %v, rows done %v and %v; want 0, 18 and 17", first.ready[0]["table_rows"],
			first.progress[0]["rows_done"], first.progress[1]["rows_done"])
	}
	if _, err := c.Apply(context.Background(), []*spanner.Mutation{spanner.Delete("B", spanner.KeySetFromKeys(spanner.Key{int64(100)}, spanner.Key{int64(148)}))}); err != nil {
		t.Fatal(err)
	}
	second := &defRun{t: t, addr: addr, db: "two", def: def, knobs: `{}`, workers: 2, seconds: 1, seed: 7}
	second.run()
	check("after the resumed load")
	skipped := second.progress[0]["rows_skipped"].(float64) + second.progress[1]["rows_skipped"].(float64)
	if second.ready[0]["table_rows"] != 33.0 || skipped != 10 {
		t.Errorf("resumed load: table_rows %v, %v rows skipped; want 33 (10 + 23) and 10 (table A)", second.ready[0]["table_rows"], skipped)
	}
}
