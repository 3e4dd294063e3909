package interp

import (
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkDrawAndBuildAWriteExecution is the interpreter's own work per execution of the write
// benchmark: draw its values, build its mutations (the client's Apply excluded).
func BenchmarkDrawAndBuildAWriteExecution(b *testing.B) {
	data, err := os.ReadFile("testdata/write_benchmark.json") // bench/worker_runtime.py's definition
	if err != nil {
		b.Fatal(err)
	}
	var def Definition
	if err := json.Unmarshal(data, &def); err != nil {
		b.Fatal(err)
	}
	knobs := Knobs{}
	for _, k := range def.Knobs {
		knobs[k.Name] = k.Item.Default
	}
	p, err := compile(&def, knobs, &sequencers{workers: 1, byPath: map[string]*Sequencer{}})
	if err != nil {
		b.Fatal(err)
	}
	op := p.ops["write"]
	base := StreamBase(1, "op/write/0")
	b.ReportAllocs()
	for i := range b.N {
		x := &run{op: op, rng: StreamAt(base, uint64(i))}
		x.d = op.draw(p, &x.rng)
		if _, err := x.allMutations(); err != nil {
			b.Fatal(err)
		}
	}
}
