package interp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"
)

// goldenFile is the cross-runtime golden file both test suites read (spanload.workers.interp.golden).
const goldenFile = "../../../workloads/testdata/generators.json"

type golden struct {
	Seed    string            `json:"seed"`
	U64     []string          `json:"u64"`
	Below   []uint64          `json:"below_1000"`
	Unit    []float64         `json:"unit"`
	Mix     map[string]string `json:"mix"`
	FNV1a   map[string]string `json:"fnv1a"`
	Streams []struct {
		Label string   `json:"label"`
		Index uint64   `json:"index"`
		U64   []string `json:"u64"`
	} `json:"streams"`
	Generators []struct {
		Generator  json.RawMessage `json:"generator"`
		Knobs      json.RawMessage `json:"knobs"`
		Label      string          `json:"label"`
		Worker     int64           `json:"worker"`
		Workers    int64           `json:"workers"`
		Executions [][]any         `json:"executions"`
		LoadRows   struct {
			Rows   []int64 `json:"rows"`
			Values []any   `json:"values"`
		} `json:"load_rows"`
	} `json:"generators"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func u64(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGoldenPRNG(t *testing.T) {
	g := readGolden(t)
	seed := u64(t, g.Seed)
	r, below, unit := SplitMix64{seed}, SplitMix64{seed}, SplitMix64{seed}
	for i, want := range g.U64 {
		if got := r.U64(); got != u64(t, want) {
			t.Errorf("u64 draw %d: %d, want %s", i, got, want)
		}
	}
	for i, want := range g.Below {
		if got := below.Below(1000); got != want {
			t.Errorf("below(1000) draw %d: %d, want %d", i, got, want)
		}
	}
	for i, want := range g.Unit {
		if got := unit.Unit(); got != want {
			t.Errorf("unit draw %d: %v, want %v", i, got, want)
		}
	}
	for in, want := range g.Mix {
		if got := Mix(u64(t, in)); got != u64(t, want) {
			t.Errorf("mix(%s) = %d, want %s", in, got, want)
		}
	}
	for in, want := range g.FNV1a {
		if got := FNV1a(in); got != u64(t, want) {
			t.Errorf("fnv1a(%q) = %d, want %s", in, got, want)
		}
	}
	for _, s := range g.Streams {
		st := Stream(seed, s.Label, s.Index)
		at := StreamAt(StreamBase(seed, s.Label), s.Index)
		for i, want := range s.U64 {
			if got, got2 := st.U64(), at.U64(); got != u64(t, want) || got2 != got {
				t.Errorf("stream(%s, %d) draw %d: %d (StreamAt %d), want %s", s.Label, s.Index, i, got, got2, want)
			}
		}
	}
	if len(g.U64) == 0 || len(g.Below) == 0 || len(g.Unit) == 0 || len(g.Streams) == 0 {
		t.Fatal("the golden file lost its figures")
	}
}

// TestGoldenGenerators draws every generator of the golden file as it says: four executions of
// three draws, each from stream(seed, label, n), one sequencer (worker 1 of 3) across them; then
// load rows from stream(seed, label, row).
func TestGoldenGenerators(t *testing.T) {
	g := readGolden(t)
	seed := u64(t, g.Seed)
	if len(g.Generators) < 20 {
		t.Fatalf("%d generators in the golden file", len(g.Generators))
	}
	for i, c := range g.Generators {
		var name bytes.Buffer
		_ = json.Compact(&name, c.Generator)
		t.Run(fmt.Sprintf("%d %s", i, name.String()), func(t *testing.T) {
			var spec GenSpec
			if err := json.Unmarshal(c.Generator, &spec); err != nil {
				t.Fatal(err)
			}
			knobs := Knobs{}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(c.Knobs, &raw); err != nil {
				t.Fatal(err)
			}
			for k, v := range raw {
				lit, err := literal(v)
				if err != nil {
					t.Fatal(err)
				}
				knobs[k] = lit
			}
			seq := &Sequencer{worker: c.Worker, workers: c.Workers}
			gen, err := CompileGen(&spec, genEnv{knobs: knobs, seq: func() *Sequencer { return seq }})
			if err != nil {
				t.Fatal(err)
			}
			for n, want := range c.Executions {
				r := Stream(seed, c.Label, uint64(n))
				got := make([]any, len(want))
				for j := range got {
					got[j] = Wire(gen.Draw(&r, -1))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("execution %d: %v, want %v", n, got, want)
				}
			}
			for j, row := range c.LoadRows.Rows {
				r := Stream(seed, c.Label, uint64(row))
				if got := Wire(gen.Draw(&r, row)); !reflect.DeepEqual(got, c.LoadRows.Values[j]) {
					t.Errorf("load row %d: %v, want %v", row, got, c.LoadRows.Values[j])
				}
			}
		})
	}
}

// TestDecimalBoundsRoundHalfToEven: Python's round() of min * 10^scale, which the golden file's
// bounds never put on a half.
func TestDecimalBoundsRoundHalfToEven(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		scale    int
		lo, hi   int64
	}{
		{0.125, 0.375, 2, 12, 38},
		{-2.5, 3.5, 0, -2, 4},
		{1, 500, 2, 100, 50000},
	} {
		lo, hi, err := decimalBounds(Knobs{}, Number{Lit: c.min}, Number{Lit: c.max}, c.scale)
		if err != nil || lo != c.lo || hi != c.hi {
			t.Errorf("decimal [%g, %g] scale %d: [%d, %d] %v, want [%d, %d]", c.min, c.max, c.scale, lo, hi, err, c.lo, c.hi)
		}
	}
}
