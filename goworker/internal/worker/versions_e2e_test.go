package worker

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/protocol"
)

// Versioned writes watched for the exact reconciliation (workloads/README.md, "Versioned writes"):
// upserts of 1..3 versioned keys a single-use commit, a read-write transaction writing a key drawn
// in the values, and batch inserts of new keys; every writer stamps Version and WriterId. The test
// reconciles the writers' ledgers with the watcher's itself, and both with the table.

const shardValues = "[-18,-17,-16,-15,-14,-13,-12,-11,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]"

// versionedStreamDDL is what the Python supervisor sends as watch_stream_ddl for versionedDef in
// change_stream mode (tests/model pins Watch.stream_ddl to Spanner's documented syntax).
const versionedStreamDDL = "CREATE CHANGE STREAM SpanloadWatch_Items FOR Items OPTIONS (value_capture_type = 'NEW_ROW')"

// versionedDef is the definition with watch (the watch's mode and shards).
func versionedDef(watch string) []byte {
	return []byte(`{"name":"versioned",
"ddl":["CREATE TABLE Items (Id INT64 NOT NULL, Payload STRING(64), Version INT64, WriterId STRING(64), LastUpdated TIMESTAMP OPTIONS (allow_commit_timestamp = true), ShardId INT64 AS (MOD(FARM_FINGERPRINT(CAST(Id AS STRING)), 19)) STORED) PRIMARY KEY (Id)"],
"knobs":{"keys":{"default":200},"upsert_rate":{"default":40.0},"watchers":{"default":2}},
"values":{"k":{"versioned_key":{"max":"$keys"}}},
"operations":{
 "upsert":{"rate":"$upsert_rate","max_in_flight":8,"transaction":"single_use","steps":[{"insert_or_update":{"table":"Items","rows":{"uniform":{"min":1,"max":3}},
   "columns":{"Id":{"versioned_key":{"max":"$keys"}},"Payload":{"string":{"length":[4,12]}},"Version":"version","WriterId":"writer_id","LastUpdated":"commit_timestamp"}}}]},
 "rw":{"rate":10,"max_in_flight":4,"transaction":"read_write","steps":[{"sql":"SELECT Version FROM Items WHERE Id = @k"},
   {"insert_or_update":{"table":"Items","columns":{"Version":"version","Id":"$k","WriterId":"writer_id","LastUpdated":"commit_timestamp"}}}]},
 "batch":{"rate":6,"transaction":"single_use","steps":[{"insert":{"table":"Items","rows":3,
   "columns":{"Id":"fresh_key","Version":"version","WriterId":"writer_id","LastUpdated":"commit_timestamp"}}}]}},
"watch":{"table":"Items","timestamp":"LastUpdated","poll_interval":"100ms","watchers":"$watchers",
 "versions":{"version":"Version","writer":"WriterId"}` + watch + `}}`)
}

// reconciliation is engine/reconcile.py's comparison, computed here from the two ledgers.
type reconciliation struct {
	keysWritten, finalReceived, finalMissing, duplicates, unexpected, foreign, uncertain int64
}

func reconcile(t *testing.T, writers []map[string]any, watcher map[string]any) reconciliation {
	t.Helper()
	var out reconciliation
	written := map[int64][2]int64{}
	uncertain := map[int64]bool{}
	for _, w := range writers {
		for _, k := range w["uncertain_keys"].([]any) {
			uncertain[int64(k.(float64))] = true
		}
		for key, row := range rows(w, "ledger") {
			written[key] = row
		}
	}
	received := rows(watcher, "received")
	for key, row := range written {
		if uncertain[key] {
			continue
		}
		out.keysWritten++
		switch got := received[key][0]; {
		case got > row[0]:
			out.unexpected++
		case got == row[0]:
			out.finalReceived++
		default:
			out.finalMissing++
		}
	}
	for key := range received {
		if _, ok := written[key]; !ok && !uncertain[key] {
			out.unexpected++
		}
	}
	freshSeen := map[string]any{}
	if f, ok := watcher["fresh_received"].(map[string]any); ok {
		freshSeen = f
	}
	for _, w := range writers {
		worker := fmt.Sprint(w["worker"])
		committed, seen := ranges(w["fresh_committed"]), ranges(freshSeen[worker])
		delete(freshSeen, worker)
		out.uncertain += int64(len(ranges(w["fresh_uncertain"])))
		for n := range committed {
			out.keysWritten++
			if seen[n] {
				out.finalReceived++
			} else {
				out.finalMissing++
			}
		}
		for n := range seen {
			if !committed[n] {
				out.unexpected++
			}
		}
	}
	for _, rest := range freshSeen {
		out.unexpected += int64(len(ranges(rest)))
	}
	out.duplicates = int64(watcher["duplicates"].(float64))
	out.foreign = int64(watcher["foreign"].(float64))
	out.uncertain += int64(len(uncertain))
	return out
}

// ranges is the set of numbers of a message's [[lo, hi), ...] (absent: none).
func ranges(v any) map[int64]bool {
	out := map[int64]bool{}
	list, _ := v.([]any)
	for _, r := range list {
		pair := r.([]any)
		for n := int64(pair[0].(float64)); n < int64(pair[1].(float64)); n++ {
			out[n] = true
		}
	}
	return out
}

func (r *defRun) message(kind string) map[string]any {
	for _, m := range r.others {
		if m["type"] == kind {
			return m
		}
	}
	r.t.Fatalf("no %s message (got %v)", kind, r.others)
	return nil
}

// checkVersioned checks the run: the reconciliation is exact, the table holds what the ledgers
// say (each key's Version its last committed version; a row per new key committed), and the
// transactions and mutations counters are the writing operations' commits and rows.
func checkVersioned(t *testing.T, r *defRun, c *spanner.Client) {
	t.Helper()
	got := reconcile(t, r.writers, r.message("watcher_ledger"))
	committed := map[int64]int64{}
	fresh := int64(0)
	for _, w := range r.writers {
		if w["writer_id"] != ledger.WriterID("def-e2e", int(w["worker"].(float64))) {
			t.Errorf("writers_stopped of worker %v names writer %v", w["worker"], w["writer_id"])
		}
		for key, row := range rows(w, "ledger") {
			committed[key] = row[0]
		}
		fresh += int64(len(ranges(w["fresh_committed"])))
	}
	if got.uncertain != 0 {
		t.Fatalf("%d keys of unknown outcome on the local Spanner: the figures below assume none", got.uncertain)
	}
	inTable := map[int64]int64{}
	freshRows := int64(0)
	err := c.Single().Read(context.Background(), "Items", spanner.AllKeys(), []string{"Id", "Version"}).Do(func(row *spanner.Row) error {
		var id, version int64
		if err := row.Columns(&id, &version); err != nil {
			return err
		}
		if id >= ledger.FreshKeyBase {
			freshRows++
			if version != 1 {
				t.Errorf("new key %d has version %d", id, version)
			}
		} else {
			inTable[id] = version
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inTable, committed) {
		t.Errorf("the table's versions %v differ from the ledgers' last committed ones %v", inTable, committed)
	}
	writes := r.counter("op.upsert.done") + r.counter("op.rw.done") + r.counter("op.batch.done")
	rowsWritten := r.counter("op.upsert.rows") + r.counter("op.rw.done") + 3*r.counter("op.batch.done")
	expect(t, []check{
		{"keys written (ledgers) = keys in the table", got.keysWritten, int64(len(inTable)) + freshRows},
		{"new keys committed = new rows in the table", fresh, freshRows},
		{"final versions received = keys written", got.finalReceived, got.keysWritten},
		{"final versions missing", got.finalMissing, 0},
		{"duplicates", got.duplicates, 0},
		{"unexpected", got.unexpected, 0},
		{"foreign", got.foreign, 0},
		{"transactions = commits of the writing operations", r.counter(protocol.CounterTransactions), writes},
		{"mutations = their rows", r.counter(protocol.CounterMutations), rowsWritten},
	})
	if n := r.counter(protocol.CounterErrors); n != 0 {
		t.Errorf("%d errors: %v", n, r.errorCodes())
	}
	if r.counter("op.rw.done") == 0 || r.counter("op.batch.done") == 0 || r.counter("op.upsert.done") == 0 || fresh == 0 {
		t.Errorf("an operation never ran: upsert %d, rw %d, batch %d", r.counter("op.upsert.done"),
			r.counter("op.rw.done"), r.counter("op.batch.done"))
	}
	rewritten := false
	for _, v := range committed {
		rewritten = rewritten || v > 1
	}
	if !rewritten {
		t.Error("no key was written twice: the versions were never put to the test")
	}
}

// TestVersionedWritesReconcileExactlyInPollModeWithShards: two workers, two pollers splitting the
// 37 shard values between them.
func TestVersionedWritesReconcileExactlyInPollModeWithShards(t *testing.T) {
	runVersioned(t, `,"shards":{"column":"ShardId","values":`+shardValues+`}`, 2, 2, nil)
}

// runVersioned runs versionedDef(watch) on workers workers for seconds of load (then script) on a
// local Spanner of its own, and checks it (checkVersioned).
func runVersioned(t *testing.T, watch string, workers, seconds int, script func(*defRun)) *defRun {
	addr := startLocalSpanner(t)
	def := versionedDef(watch)
	createSchema(t, addr, "versioned", def)
	r := &defRun{t: t, addr: addr, db: "versioned", def: def, knobs: `{}`, workers: workers, seconds: seconds,
		seed: 5, script: script, streamDDL: versionedStreamDDL}
	r.run()
	checkVersioned(t, r, client(t, addr, "versioned"))
	return r
}

// TestVersionedWritesReconcileExactlyWithUnshardedPollers: without shards each of the two pollers
// sees every change, and only the first tells the ledger (else each change were a duplicate).
func TestVersionedWritesReconcileExactlyWithUnshardedPollers(t *testing.T) {
	r := runVersioned(t, "", 1, 1, nil)
	if polled, received := r.counter(protocol.CounterRowsPolled), r.counter(protocol.CounterReceivedChanges); received < 2*int64(len(rows(r.message("watcher_ledger"), "received"))) {
		t.Errorf("%d changes received (%d rows polled): two pollers each see every change", received, polled)
	}
}

// TestVersionedWritesReconcileExactlyWhenThePollersRegroup: the watchers go 2 -> 3 -> 1 while the
// writers write; each regroup restarts from the oldest poller's position and skips what the old
// poller of each shard had received: nothing lost, nothing twice.
func TestVersionedWritesReconcileExactlyWhenThePollersRegroup(t *testing.T) {
	runVersioned(t, `,"shards":{"column":"ShardId","values":`+shardValues+`}`, 2, 1, func(r *defRun) {
		for _, n := range []int{3, 1} {
			r.sendAll(`{"type":"patch","v":1,"config":` + r.configWith(fmt.Sprintf(`{"watchers":%d}`, n), "") + `}`)
			r.round()
			r.round()
		}
	})
}

// TestVersionedWritesReconcileExactlyFromAChangeStream: the same writes read from a change stream
// (shards do not apply), two followers of which the first feeds the ledger.
func TestVersionedWritesReconcileExactlyFromAChangeStream(t *testing.T) {
	runVersioned(t, `,"mode":"change_stream","heartbeat":"200ms"`, 2, 2, nil)
}

// TestVersionsNeedAKeyOfOneInt64Column: a watch with versions on a table keyed by a STRING fails
// at setup, naming watch.versions.
func TestVersionsNeedAKeyOfOneInt64Column(t *testing.T) {
	addr := startLocalSpanner(t)
	def := strings.Replace(string(versionedDef("")), "Id INT64 NOT NULL", "Id STRING(36) NOT NULL", 1)
	def = strings.Replace(def, "CAST(Id AS STRING)", "Id", 1)
	createSchema(t, addr, "stringkey", []byte(def))
	p, code := startWorker(t, 0)
	p.next("hello", nil)
	r := &defRun{t: t, addr: addr, db: "stringkey", def: []byte(def), knobs: `{}`, workers: 1, seed: 1}
	p.send(fmt.Sprintf(`{"type":"start","v":1,"run_id":"bad","worker":0,"workers":1,"setup_schema":true,"config":%s}`, r.config()))
	for m := range p.lines {
		if m["type"] == "ready" {
			t.Fatal("the worker got ready with a STRING key under watch.versions")
		}
		if m["type"] == "error" {
			msg := fmt.Sprint(m["message"])
			if !strings.Contains(msg, "watch.versions") || !strings.Contains(msg, `"STRING(36)"`) {
				t.Errorf("error %q does not name watch.versions and the key's type", msg)
			}
			break
		}
	}
	p.in.Close()
	<-code
}
