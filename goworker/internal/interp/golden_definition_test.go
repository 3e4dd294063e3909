package interp

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// goldenDefinition is the golden file's whole-execution section, written by the Python
// interpreter (spanload.workers.interp.golden.definition_draws): executions of one operation on
// one worker, and rows of one load, so the order of draws (values, then each step's rows and inline
// generators) is pinned across runtimes, not only each generator's draws.
type goldenDefinition struct {
	Definition json.RawMessage `json:"definition"`
	Worker     int             `json:"worker"`
	Workers    int             `json:"workers"`
	Operation  string          `json:"operation"`
	Label      string          `json:"label"`
	Executions []struct {
		Values map[string]any `json:"values"`
		Steps  [][][]any      `json:"steps"`
	} `json:"executions"`
	Load struct {
		Table string           `json:"table"`
		Label string           `json:"label"`
		Rows  map[string][]any `json:"rows"`
	} `json:"load"`
}

func readGoldenDefinition(t *testing.T) (goldenDefinition, uint64) {
	t.Helper()
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Definition goldenDefinition `json:"definition"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Definition, u64(t, readGolden(t).Seed)
}

// decoded is the golden definition decoded as a start message carries it, with its knobs' defaults.
func (g goldenDefinition) decoded(t *testing.T) (*Definition, Knobs) {
	t.Helper()
	var def Definition
	if err := json.Unmarshal(g.Definition, &def); err != nil {
		t.Fatal(err)
	}
	knobs, err := knobValues(&def, protocol.RunConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &def, knobs
}

// wired is a drawn value as the golden file writes it (Spanner's JSON), through a JSON round trip so
// that numbers compare as the file's do.
func wired(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(Wire(v))
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// noDraw are the generators that draw nothing (a constant, the clock, the commit timestamp): the
// golden file lists the draws of a row's generators, which these never make.
var noDraw = map[string]bool{"const": true, "now": true, "commit_timestamp": true}

func TestGoldenExecutionsDrawWhatThePythonInterpreterDraws(t *testing.T) {
	g, seed := readGoldenDefinition(t)
	if g.Label != OperationLabel(g.Operation, g.Worker) {
		t.Fatalf("label %q, want %q", g.Label, OperationLabel(g.Operation, g.Worker))
	}
	def, knobs := g.decoded(t)
	seqs := &sequencers{worker: int64(g.Worker), workers: int64(g.Workers), byPath: map[string]*Sequencer{}}
	p, err := compile(def, knobs, seqs)
	if err != nil {
		t.Fatal(err)
	}
	op := p.ops[g.Operation]
	for n, want := range g.Executions {
		r := Stream(seed, g.Label, uint64(n))
		d := op.draw(p, &r)
		values := map[string]any{}
		for _, i := range op.uses {
			values[def.Values[i].Name] = wired(t, d.values[i])
		}
		if !reflect.DeepEqual(values, want.Values) {
			t.Errorf("execution %d: values %v, want %v", n, values, want.Values)
		}
		steps := make([][][]any, len(op.steps))
		for i, s := range op.steps {
			steps[i] = [][]any{}
			for _, row := range d.steps[i] {
				inline := []any{} // the golden file keeps a row's inline generators' draws only
				for k, src := range s.srcs {
					if src.kind == srcGen && !noDraw[src.gen.Kind] {
						inline = append(inline, wired(t, row[k]))
					}
				}
				steps[i] = append(steps[i], inline)
			}
		}
		if got, wantSteps := fmt.Sprint(steps), fmt.Sprint(want.Steps); got != wantSteps {
			t.Errorf("execution %d: steps %s, want %s", n, got, wantSteps)
		}
	}
}

func TestGoldenLoadRowsAreWhatThePythonInterpreterWrites(t *testing.T) {
	g, seed := readGoldenDefinition(t)
	def, knobs := g.decoded(t)
	plan, err := LoadPlan(def, knobs, seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 || plan[0].Table != g.Load.Table || g.Load.Label != LoadLabel(g.Load.Table) {
		t.Fatalf("load plan %v for %s", plan, g.Load.Table)
	}
	for key, want := range g.Load.Rows {
		i, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		got := []any{}
		for _, v := range plan[0].Row(i) {
			got = append(got, wired(t, v))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("load row %d: %v, want %v", i, got, want)
		}
	}
}
