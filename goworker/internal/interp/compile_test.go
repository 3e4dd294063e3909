package interp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

func TestSQLParamsSkipLiteralsCommentsAndHints(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"SELECT Balance FROM Customers WHERE CustomerId = @customer", []string{"customer"}},
		{"UPDATE T SET a = @a, b = @b2 WHERE k = @a", []string{"a", "b2", "a"}},
		{"SELECT '@not' , \"@nor\", `@nor_this` FROM T@{FORCE_INDEX=Idx} WHERE x = @x", []string{"x"}},
		{"SELECT 1 -- @comment\n FROM T /* @block */ WHERE y=@y", []string{"y"}},
		{"SELECT @_under1 FROM T WHERE a=@9", []string{"_under1"}},
	} {
		if got := sqlParams(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("sqlParams(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestIsDML(t *testing.T) {
	for sql, want := range map[string]bool{
		"UPDATE T SET a = 1":                   true,
		"  insert into T (a) VALUES (1)":       true,
		"DELETE FROM T WHERE true":             true,
		"SELECT * FROM T":                      false,
		"WITH x AS (SELECT 1) SELECT * FROM x": false,
		"(SELECT 1)":                           false,
	} {
		if got := isDML(sql); got != want {
			t.Errorf("isDML(%q) = %v", sql, got)
		}
	}
}

// TestDecodeTheUsersForm: bare generators, null_fraction beside the kind, $references, literals,
// and the maps in the order written.
func TestDecodeTheUsersForm(t *testing.T) {
	data := `{"name":"x","values":{"z":"uuid","a":{"uniform":{"min":1,"max":"$n"},"null_fraction":0.5},"m":"now"},
	"knobs":{"n":{"default":10},"f":{"default":2.0},"s":{"default":"hi"}},
	"operations":{"b":{"rate":"$f","steps":[{"insert":{"table":"T","rows":3,"columns":{"K":"$a","C":"commit_timestamp","L":7,"M":"text","N":null}}}]},
	"a":{"concurrency":2,"think_time":"250ms","steps":[{"read":{"table":"T","key":{"K":1},"columns":["K"],"limit":5},"bind":{"k":"K"}}]}}}`
	var def Definition
	if err := json.Unmarshal([]byte(data), &def); err != nil {
		t.Fatal(err)
	}
	names := func(n int, name func(int) string) string {
		var out []string
		for i := range n {
			out = append(out, name(i))
		}
		return strings.Join(out, ",")
	}
	if got := names(len(def.Values), func(i int) string { return def.Values[i].Name + ":" + def.Values[i].Item.Kind }); got != "z:uuid,a:uniform,m:now" {
		t.Errorf("values %s", got)
	}
	if got := names(len(def.Operations), func(i int) string { return def.Operations[i].Name }); got != "b,a" {
		t.Errorf("operations %s", got)
	}
	if def.Values[1].Item.NullFraction != 0.5 {
		t.Errorf("null_fraction %v", def.Values[1].Item.NullFraction)
	}
	if k := def.Knobs; k[0].Item.Default != int64(10) || k[1].Item.Default != 2.0 || k[2].Item.Default != "hi" {
		t.Errorf("knob defaults %#v %#v %#v", k[0].Item.Default, k[1].Item.Default, k[2].Item.Default)
	}
	cols := def.Operations[0].Item.Steps[0].Cols
	want := []ValueSpec{{Ref: "a"}, {Gen: &GenSpec{Kind: "commit_timestamp"}}, {Lit: int64(7)}, {Lit: "text"}, {Lit: nil}}
	for i, w := range want {
		if got := cols[i].Item; got.Ref != w.Ref || (got.Gen == nil) != (w.Gen == nil) || got.Lit != w.Lit {
			t.Errorf("column %s: %#v, want %#v", cols[i].Name, got, w)
		}
	}
	read := def.Operations[1].Item.Steps[0]
	if read.Kind != StepRead || read.Limit != 5 || read.Bind[0].Item != "K" || def.Operations[1].Item.ThinkTime.Ms != 250 {
		t.Errorf("read step %#v", read)
	}
	if def.Operations[0].Item.Rate.Ref != "f" {
		t.Errorf("rate %#v", def.Operations[0].Item.Rate)
	}
}

// TestDrawOrderIsValuesThenStepsRowByRow: an execution draws the values its steps refer to in the
// order values lists them (not the order the steps name them), then each step's rows generator,
// then per row its inline generators in the order written.
func TestDrawOrderIsValuesThenStepsRowByRow(t *testing.T) {
	data := `{"name":"x","values":{"first":{"uniform":{"min":0,"max":999}},"unused":{"uniform":{"min":0,"max":999}},
	"second":{"uniform":{"min":0,"max":999}}},"operations":{"op":{"rate":1,"steps":[
	{"sql":"SELECT @second, @first"},
	{"insert":{"table":"T","rows":{"uniform":{"min":2,"max":2}},"columns":{"A":{"uniform":{"min":0,"max":999}},"B":"$first","C":{"uniform":{"min":0,"max":9}}}}}]}}}`
	var def Definition
	if err := json.Unmarshal([]byte(data), &def); err != nil {
		t.Fatal(err)
	}
	p, err := compile(&def, Knobs{}, &sequencers{workers: 1, byPath: map[string]*Sequencer{}})
	if err != nil {
		t.Fatal(err)
	}
	op := p.ops["op"]
	r := Stream(42, "op/op/0", 3)
	d := op.draw(p, &r)
	ref := Stream(42, "op/op/0", 3)
	first, second := ref.Between(0, 999), ref.Between(0, 999)
	ref.Between(2, 2) // rows
	a1, c1 := ref.Between(0, 999), ref.Between(0, 9)
	a2, c2 := ref.Between(0, 999), ref.Between(0, 9)
	if got := d.steps[0][0]; !reflect.DeepEqual(got, []any{second, first}) {
		t.Errorf("sql params %v, want [%d %d]", got, second, first)
	}
	want := [][]any{{a1, first, c1}, {a2, first, c2}}
	if got := d.steps[1]; !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if d.values[1] != nil {
		t.Errorf("a value no step names was drawn: %v", d.values[1])
	}
}

func TestUnknownNamesAndBadGeneratorsFailToCompile(t *testing.T) {
	for _, c := range []struct{ ops, want string }{
		{`{"sql":"SELECT @nobody"}`, "nobody names no knob, value or column"},
		{`{"sql":"SELECT @b"},{"sql":"SELECT 1","bind":{"b":"X"}}`, "b names no knob"}, // bound only later
		{`{"insert":{"table":"T","columns":{"A":{"uniform":{"min":5,"max":1}}}}}`, "min 5 is above max 1"},
	} {
		data := `{"name":"x","operations":{"op":{"rate":1,"steps":[` + c.ops + `]}}}`
		var def Definition
		err := json.Unmarshal([]byte(data), &def)
		if err == nil {
			_, err = compile(&def, Knobs{}, &sequencers{workers: 1, byPath: map[string]*Sequencer{}})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.ops, err, c.want)
		}
	}
}

func TestPacingResolvesOverrideThenKnobThenLiteral(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	no := false
	open := &Operation{Rate: &Number{Ref: "r"}, MaxInFlight: &Number{Lit: 8}}
	closed := &Operation{Concurrency: &Number{Ref: "c"}, ThinkTime: &Duration{Ref: "think"}}
	knobs := Knobs{"r": 50.0, "c": int64(4), "think": int64(20)}
	for _, c := range []struct {
		name string
		op   *Operation
		o    protocol.OperationPacing
		want pacingFigures
	}{
		{"knob rate, literal max_in_flight", open, protocol.OperationPacing{}, pacingFigures{enabled: true, rate: 50, maxInFlight: 8}},
		{"overrides", open, protocol.OperationPacing{Rate: f64(7), MaxInFlight: i(2), Enabled: &no}, pacingFigures{rate: 7, maxInFlight: 2}},
		{"closed loop from knobs", closed, protocol.OperationPacing{}, pacingFigures{enabled: true, maxInFlight: DefaultMaxInFlight, concurrency: 4, thinkMs: 20}},
		{"closed loop overridden", closed, protocol.OperationPacing{Concurrency: i(9), ThinkTimeMs: f64(1.5)}, pacingFigures{enabled: true, maxInFlight: DefaultMaxInFlight, concurrency: 9, thinkMs: 1.5}},
	} {
		got, err := resolvePacing(c.op, knobs, c.o)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
}
