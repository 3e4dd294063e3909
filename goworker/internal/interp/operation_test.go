package interp

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/protocol"
)

func inventoryConfig(t *testing.T, knobs string, operations map[string]protocol.OperationPacing) protocol.RunConfig {
	t.Helper()
	data, err := os.ReadFile("testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := protocol.RunConfig{Workload: protocol.WorkloadDefinition, Definition: data, Operations: operations}
	if err := json.Unmarshal([]byte(knobs), &cfg.Knobs); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestPatchesReresolvePacingLive: worker 1 of 2 takes half of each rate; a patch of a knob or of
// an operation's override changes its target at once; disabling an operation stops its pacer.
func TestPatchesReresolvePacingLive(t *testing.T) {
	cfg := inventoryConfig(t, `{"move_rate":60.0}`, nil)
	backend := func(def *Definition) (Backend, error) { return NewBackend(cfg, def.PG(), nil) }
	rt, err := New(cfg, "run", 1, 2, nil, backend, metrics.NewStats())
	if err != nil {
		t.Fatal(err)
	}
	gauges := func() map[string]float64 {
		g := map[string]float64{}
		rt.Report(map[string]int64{}, g)
		return g
	}
	for _, step := range []struct {
		name       string
		knobs      string
		operations map[string]protocol.OperationPacing
		want       map[string]float64
	}{
		{"start", `{"move_rate":60.0}`, nil, map[string]float64{"op.move.target_ps": 30, "op.peek.target_ps": 10}},
		{"a knob", `{"move_rate":20}`, nil, map[string]float64{"op.move.target_ps": 10, "op.peek.target_ps": 10}},
		{"an override", `{"move_rate":20}`, map[string]protocol.OperationPacing{"peek": {Rate: ptr(5.0)}},
			map[string]float64{"op.move.target_ps": 10, "op.peek.target_ps": 2.5}},
		{"disabled", `{}`, map[string]protocol.OperationPacing{"move": {Enabled: ptr(false)}},
			map[string]float64{"op.move.target_ps": 0, "op.peek.target_ps": 10}},
	} {
		if step.name != "start" {
			if err := rt.Apply(inventoryConfig(t, step.knobs, step.operations)); err != nil {
				t.Fatal(err)
			}
		}
		got := gauges()
		for name, want := range step.want {
			if got[name] != want {
				t.Errorf("%s: %s = %g, want %g", step.name, name, got[name], want)
			}
		}
	}
	rt.Stop()
}

func ptr[T any](v T) *T { return &v }
