package interp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/spanload/spanload/goworker/internal/ledger"
)

// versionedDef upserts 1..3 versioned keys a commit (inline, per row) and batch-inserts fresh keys,
// and its sql step takes a key drawn once in the values.
const versionedDef = `{"name":"v","knobs":{"keys":{"default":40}},
"values":{"k":{"versioned_key":{"max":"$keys"}},"v":"version"},
"operations":{
 "upsert":{"rate":1,"transaction":"single_use","steps":[{"insert_or_update":{"table":"T","rows":{"uniform":{"min":1,"max":3}},
   "columns":{"Id":{"versioned_key":{"max":"$keys"}},"Version":"version","WriterId":"writer_id","LastUpdated":"commit_timestamp"}}}]},
 "fresh":{"rate":1,"transaction":"single_use","steps":[{"insert":{"table":"T","rows":4,
   "columns":{"Version":"version","Id":"fresh_key","WriterId":"writer_id"}}}]},
 "dml":{"rate":1,"transaction":"read_write","steps":[{"sql":"UPDATE T SET Version = @v WHERE Id = @k"}]}}}`

func compileVersioned(t *testing.T, knobs Knobs) *program {
	t.Helper()
	var def Definition
	if err := json.Unmarshal([]byte(versionedDef), &def); err != nil {
		t.Fatal(err)
	}
	p, err := compile(&def, knobs, &sequencers{workers: 1, byPath: map[string]*Sequencer{}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.usesKeys() {
		t.Fatal("usesKeys is false for a definition that draws versioned_key")
	}
	return p
}

// TestVersionedKeysAreOwnedDistinctAndVersionedInOrder: worker 2 of 3 draws only keys k % 3 == 2
// below max, never a key another execution holds in flight nor one twice in an execution; each
// row's Version is its key's, and a key's versions go 1, 2, 3... as its executions commit.
func TestVersionedKeysAreOwnedDistinctAndVersionedInOrder(t *testing.T) {
	p := compileVersioned(t, Knobs{"keys": int64(40)})
	l := newLedger("run", 2, 3)
	op := p.ops["upsert"]
	last := map[int64]int64{}
	inFlight := map[int64]bool{}
	var held []*keyState
	for n := range 200 {
		r := Stream(7, "op/upsert/2", uint64(n))
		k := &keyState{ledger: l, writerID: "run/2"}
		d, err := op.drawKeyed(p, &r, k)
		if err != nil {
			t.Fatalf("execution %d: %v", n, err)
		}
		rows := d.steps[0]
		if len(rows) != len(k.writes) || len(rows) < 1 || len(rows) > 3 {
			t.Fatalf("execution %d: %d rows, %d keys reserved", n, len(rows), len(k.writes))
		}
		mine := map[int64]bool{}
		for _, row := range rows {
			key, version := row[0].(int64), row[1].(int64)
			if key%3 != 2 || key < 0 || key >= 40 {
				t.Errorf("key %d: worker 2 of 3 owns the keys k %% 3 == 2 below 40", key)
			}
			if mine[key] || inFlight[key] {
				t.Errorf("execution %d: key %d drawn twice in flight", n, key)
			}
			if version != last[key]+1 {
				t.Errorf("key %d: version %d after %d", key, version, last[key])
			}
			if row[2] != "run/2" {
				t.Errorf("writer id %v", row[2])
			}
			mine[key], last[key] = true, version
		}
		for key := range mine {
			inFlight[key] = true
		}
		held = append(held, k)
		if len(held) == 3 { // three executions in flight at a time; the oldest commits
			for _, w := range held[0].writes {
				delete(inFlight, w.Key)
			}
			l.Committed(held[0].writes)
			held = held[1:]
		}
	}
	rows, _ := l.Rows()
	for _, row := range rows {
		if committed := last[row[0]]; row[1] > committed || row[2] != row[1] {
			t.Errorf("ledger row %v: versions committed 1..%d in order", row, row[1])
		}
	}
}

// TestAFullKeySpaceIsKeyBusy: with every owned key in flight a draw fails with the legacy
// sentence, and the keys the execution reserved before it are its to release.
func TestAFullKeySpaceIsKeyBusy(t *testing.T) {
	p := compileVersioned(t, Knobs{"keys": int64(2)})
	l := newLedger("run", 0, 1)
	r := Stream(1, "op/dml/0", 0)
	first := &keyState{ledger: l}
	second := &keyState{ledger: l}
	if _, err := p.ops["dml"].drawKeyed(p, &r, first); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ops["dml"].drawKeyed(p, &r, second); err != nil {
		t.Fatal(err)
	}
	_, err := p.ops["dml"].drawKeyed(p, &r, &keyState{ledger: l})
	var busy *ledger.KeyBusyError
	if !errors.As(err, &busy) || err.Error() != "no free key among 2 owned keys: raise updater.key_space or lower parallelism" {
		t.Fatalf("a third execution over 2 keys gave %v", err)
	}
	first.release(false)
	d, err := p.ops["dml"].drawKeyed(p, &r, &keyState{ledger: l})
	if err != nil {
		t.Fatalf("a released key is free again: %v", err)
	}
	if k, v := d.values[0].(int64), d.values[1].(int64); k != first.writes[0].Key || v != 2 {
		t.Errorf("drew key %d version %d; want the released key %d at version 2 (a failed version is not reused)",
			k, v, first.writes[0].Key)
	}
}

// TestFreshKeysDecodeToTheirWorkerAndNumber: worker 1 of 2's fresh keys are FreshKeys(run, 2)'s
// n = 0, 1, 2... in draw order, version 1 each, whatever the column order.
func TestFreshKeysDecodeToTheirWorkerAndNumber(t *testing.T) {
	p := compileVersioned(t, Knobs{"keys": int64(40)})
	l := newLedger("run-f", 1, 2)
	fresh := ledger.NewFreshKeys("run-f", 2)
	next := int64(0)
	for n := range 3 {
		r := Stream(7, "op/fresh/1", uint64(n))
		d, err := p.ops["fresh"].drawKeyed(p, &r, &keyState{ledger: l, writerID: "run-f/1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range d.steps[0] {
			worker, number, ok := fresh.Decode(row[1].(int64))
			if !ok || worker != 1 || number != next || row[0] != int64(1) {
				t.Errorf("row %v decodes to (%d, %d, %v); want (1, %d) version 1", row, worker, number, ok, next)
			}
			next++
		}
	}
	if next != 12 {
		t.Errorf("%d fresh keys; want 3 executions x 4 rows", next)
	}
}
