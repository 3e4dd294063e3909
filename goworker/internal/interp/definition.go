package interp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The definition in the start message's config.definition, in exactly the user's form
// (backend/spanload/model/workload.py): generators and steps are one-key maps, numbers literals or
// "$knob", and every map whose order matters (values, load, operations, columns, params) keeps it.

// Definition is a decoded workload definition. The control plane validated it; decoding checks
// only what the interpreter relies on.
type Definition struct {
	Name       string
	Dialect    string
	DDL        []string
	Knobs      []Named[Knob]
	Values     []Named[*GenSpec]
	Load       []Named[*TableLoad]
	Operations []Named[*Operation]
	Watch      *Watch
}

// Named is one entry of an ordered map.
type Named[T any] struct {
	Name string
	Item T
}

// Ordered is a JSON object decoded in its order.
type Ordered[T any] []Named[T]

func (o *Ordered[T]) UnmarshalJSON(data []byte) error {
	*o = nil
	return eachKey(data, func(key string, raw json.RawMessage) error {
		var item T
		if err := decode(raw, &item); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*o = append(*o, Named[T]{key, item})
		return nil
	})
}

// decode is json.Unmarshal keeping numbers as json.Number.
func decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// eachKey calls fn for each key of a JSON object, in order; null is an empty object.
func eachKey(data []byte, fn func(string, json.RawMessage) error) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return fmt.Errorf("expected an object, got %v", tok)
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return err
		}
		if err := fn(tok.(string), raw); err != nil {
			return err
		}
	}
	return nil
}

func (def *Definition) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name       string              `json:"name"`
		Dialect    string              `json:"dialect"`
		DDL        []string            `json:"ddl"`
		Knobs      Ordered[Knob]       `json:"knobs"`
		Values     Ordered[*GenSpec]   `json:"values"`
		Load       Ordered[*TableLoad] `json:"load"`
		Operations Ordered[*Operation] `json:"operations"`
		Watch      *Watch              `json:"watch"`
	}
	if err := decode(data, &raw); err != nil {
		return err
	}
	*def = Definition{Name: raw.Name, Dialect: raw.Dialect, DDL: raw.DDL, Knobs: raw.Knobs, Values: raw.Values,
		Load: raw.Load, Operations: raw.Operations, Watch: raw.Watch}
	if len(def.Operations) == 0 {
		return fmt.Errorf("definition %q has no operations", def.Name)
	}
	return nil
}

// Knob is a typed, bounded variable; its type is its default's.
type Knob struct {
	Default any   `json:"default"` // bool, int64, float64 or string
	Live    *bool `json:"live"`
}

func (k *Knob) UnmarshalJSON(data []byte) error {
	var raw struct {
		Default json.RawMessage `json:"default"`
		Live    *bool           `json:"live"`
	}
	if err := decode(data, &raw); err != nil {
		return err
	}
	v, err := literal(raw.Default)
	if err != nil {
		return fmt.Errorf("default: %w", err)
	}
	if v == nil {
		return fmt.Errorf("a knob's default cannot be null")
	}
	k.Default, k.Live = v, raw.Live
	return nil
}

// literal decodes a JSON scalar: bool, int64 (a number written without fraction or exponent),
// float64, string or nil.
func literal(data []byte) (any, error) {
	var v any
	if err := decode(data, &v); err != nil {
		return nil, err
	}
	return scalar(v)
}

func scalar(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			if n, err := x.Int64(); err == nil {
				return n, nil
			}
		}
		return x.Float64()
	}
	return nil, fmt.Errorf("%v is not a scalar (a bool, number, string or null)", v)
}

// Number is a literal number or a "$knob".
type Number struct {
	Lit float64
	Ref string // the knob's name, without "$"
}

func (n *Number) UnmarshalJSON(data []byte) error {
	v, err := literal(data)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case int64:
		n.Lit = float64(x)
	case float64:
		n.Lit = x
	case string:
		if !isRef(x) {
			return fmt.Errorf("%q is neither a number nor a $knob", x)
		}
		n.Ref = x[1:]
	default:
		return fmt.Errorf("%v is not a number", v)
	}
	return nil
}

// Flag is a literal bool or a "$knob" (a bool knob).
type Flag struct {
	Lit bool
	Ref string // the knob's name, without "$"
}

func (f *Flag) UnmarshalJSON(data []byte) error {
	v, err := literal(data)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case bool:
		f.Lit = x
	case string:
		if !isRef(x) {
			return fmt.Errorf("%q is neither true, false nor a $knob", x)
		}
		f.Ref = x[1:]
	default:
		return fmt.Errorf("%v is not true or false", v)
	}
	return nil
}

// Duration is a number with a unit ("250ms") or a "$knob" (milliseconds).
type Duration struct {
	Ms  float64
	Ref string
}

var durationUnits = map[string]float64{"us": 0.001, "ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}

func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	if isRef(s) {
		d.Ref = s[1:]
		return nil
	}
	ms, err := ParseDurationMs(s)
	d.Ms = ms
	return err
}

// ParseDurationMs reads "250ms", "10s", "1.5m" in milliseconds.
func ParseDurationMs(s string) (float64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("%q is not a duration: a number and a unit (us, ms, s, m, h)", s)
	}
	unit, ok := durationUnits[s[i:]]
	var n float64
	if _, err := fmt.Sscanf(s[:i], "%g", &n); err != nil || !ok {
		return 0, fmt.Errorf("%q is not a duration: a number and a unit (us, ms, s, m, h)", s)
	}
	return n * unit, nil
}

func isRef(s string) bool {
	if len(s) < 2 || s[0] != '$' {
		return false
	}
	for i, r := range s[1:] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Generator kinds (model/workload.py GENERATOR_KINDS and BARE_GENERATORS).
var generatorKinds = map[string]bool{"uniform": true, "zipf": true, "sequence": true, "choice": true,
	"string": true, "bytes": true, "decimal": true, "float": true, "date": true, "timestamp": true,
	"uuid": true, "const": true, "versioned_key": true}
var bareGenerators = map[string]bool{"uuid": true, "now": true, "commit_timestamp": true, "fresh_key": true,
	"version": true, "writer_id": true}

// GenSpec is one generator as written: {kind: params, null_fraction: f} or a bare word.
type GenSpec struct {
	Kind         string
	NullFraction float64
	Params       json.RawMessage // the kind's parameters (const: its value)
}

func (g *GenSpec) UnmarshalJSON(data []byte) error {
	spec, ok, err := generatorOf(data)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("not a generator: %s", data)
	}
	*g = *spec
	return nil
}

// generatorOf decodes data as a generator; false if it is not one (a literal, a reference).
func generatorOf(data []byte) (*GenSpec, bool, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, false, nil
	}
	switch trimmed[0] {
	case '"':
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return nil, false, err
		}
		if bareGenerators[s] {
			return &GenSpec{Kind: s}, true, nil
		}
		return nil, false, nil
	case '{':
		spec := &GenSpec{}
		kinds := 0
		err := eachKey(trimmed, func(key string, raw json.RawMessage) error {
			switch {
			case key == "null_fraction":
				return json.Unmarshal(raw, &spec.NullFraction)
			case generatorKinds[key]:
				kinds++
				spec.Kind, spec.Params = key, raw
				return nil
			}
			return fmt.Errorf("%q is not a generator's key", key)
		})
		if err != nil {
			return nil, false, err
		}
		if kinds != 1 {
			return nil, false, fmt.Errorf("a generator is one of %s (got %s)", kindList(), trimmed)
		}
		return spec, true, nil
	}
	return nil, false, nil
}

func kindList() string {
	return "uniform, zipf, sequence, choice, string, bytes, decimal, float, date, timestamp, uuid, const, now, " +
		"commit_timestamp, versioned_key, fresh_key, version, writer_id"
}

// ValueSpec is where a value goes (a parameter, a column, a key part): "$name", a generator or a
// literal.
type ValueSpec struct {
	Ref string   // a knob, a value or a bound column
	Gen *GenSpec // an inline generator
	Lit any      // a literal (nil: NULL) when Ref and Gen are unset
}

func (v *ValueSpec) UnmarshalJSON(data []byte) error {
	gen, ok, err := generatorOf(data)
	if err != nil {
		return err
	}
	if ok {
		*v = ValueSpec{Gen: gen}
		return nil
	}
	lit, err := literal(data)
	if err != nil {
		return err
	}
	if s, isString := lit.(string); isString && isRef(s) {
		*v = ValueSpec{Ref: s[1:]}
		return nil
	}
	*v = ValueSpec{Lit: lit}
	return nil
}

// RowsSpec is a mutation's row count: a number, a $knob or a generator.
type RowsSpec struct {
	Number *Number
	Gen    *GenSpec
}

func (r *RowsSpec) UnmarshalJSON(data []byte) error {
	gen, ok, err := generatorOf(data)
	if err != nil {
		return err
	}
	if ok {
		r.Gen = gen
		return nil
	}
	r.Number = &Number{}
	return r.Number.UnmarshalJSON(data)
}

// Step kinds.
const (
	StepSQL            = "sql"
	StepInsert         = "insert"
	StepUpdate         = "update"
	StepInsertOrUpdate = "insert_or_update"
	StepReplace        = "replace"
	StepDelete         = "delete"
	StepRead           = "read"
)

// Step is one step of an operation.
type Step struct {
	Kind   string
	SQL    string
	Params Ordered[ValueSpec] // sql
	Bind   Ordered[string]    // sql, read: name -> column of the first row
	Table  string
	Cols   Ordered[ValueSpec] // mutations: column -> value; delete and read: key column -> value
	Rows   *RowsSpec
	Index  string   // read
	Read   []string // read: columns
	Limit  int64    // read (0: none)
}

func (s *Step) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = Step{}
	if b, ok := raw["bind"]; ok {
		if err := decode(b, &s.Bind); err != nil {
			return fmt.Errorf("bind: %w", err)
		}
	}
	if sql, ok := raw["sql"]; ok {
		s.Kind = StepSQL
		if err := json.Unmarshal(sql, &s.SQL); err != nil {
			return err
		}
		if p, ok := raw["params"]; ok {
			return decode(p, &s.Params)
		}
		return nil
	}
	for _, kind := range []string{StepInsert, StepUpdate, StepInsertOrUpdate, StepReplace, StepDelete, StepRead} {
		body, ok := raw[kind]
		if !ok {
			continue
		}
		s.Kind = kind
		var p struct {
			Table   string             `json:"table"`
			Columns json.RawMessage    `json:"columns"`
			Key     Ordered[ValueSpec] `json:"key"`
			Rows    *RowsSpec          `json:"rows"`
			Index   *string            `json:"index"`
			Limit   *int64             `json:"limit"`
		}
		if err := decode(body, &p); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		s.Table, s.Cols, s.Rows = p.Table, p.Key, p.Rows
		if p.Index != nil {
			s.Index = *p.Index
		}
		if p.Limit != nil {
			s.Limit = *p.Limit
		}
		if kind == StepRead {
			if err := decode(p.Columns, &s.Read); err != nil {
				return fmt.Errorf("read.columns: %w", err)
			}
		} else if kind != StepDelete {
			if err := decode(p.Columns, &s.Cols); err != nil {
				return fmt.Errorf("%s.columns: %w", kind, err)
			}
		}
		return nil
	}
	return fmt.Errorf("a step is one of: sql, insert, update, insert_or_update, replace, delete, read")
}

// Transaction kinds.
const (
	TxSingleUse      = "single_use"
	TxReadOnly       = "read_only"
	TxReadWrite      = "read_write"
	TxBatchWrite     = "batch_write"
	TxPartitionedDML = "partitioned_dml"
)

// Staleness of read_only and single_use reads: exactly one of Exact and Max.
type Staleness struct {
	Exact *Duration `json:"exact"`
	Max   *Duration `json:"max"`
}

// Operation is one kind of work: open loop (Rate) or closed loop (Concurrency).
type Operation struct {
	Rate        *Number    `json:"rate"`
	MaxInFlight *Number    `json:"max_in_flight"`
	Concurrency *Number    `json:"concurrency"`
	ThinkTime   *Duration  `json:"think_time"`
	Enabled     *bool      `json:"enabled"`
	Transaction string     `json:"transaction"`
	Staleness   *Staleness `json:"staleness"`
	Steps       []*Step    `json:"steps"`
}

// DefaultMaxInFlight is model/workload.py DEFAULT_MAX_IN_FLIGHT.
const DefaultMaxInFlight = 32

// TableLoad fills a table with Rows rows before the measured phase.
type TableLoad struct {
	Rows    Number             `json:"rows"`
	Columns Ordered[ValueSpec] `json:"columns"`
}

// Watch polls Table by its commit-timestamp column, or (Mode change_stream) reads a change stream on it.
type Watch struct {
	Table        string    `json:"table"`
	Mode         string    `json:"mode"`
	Stream       string    `json:"stream"`
	Heartbeat    *Duration `json:"heartbeat"`
	Timestamp    string    `json:"timestamp"`
	Key          []string  `json:"key"`
	PollInterval *Duration `json:"poll_interval"`
	Limit        *Number   `json:"limit"`
	Watchers     *Number   `json:"watchers"`
	Index        string    `json:"index"`       // poll mode: the index the poll is forced through
	ForceIndex   *Flag     `json:"force_index"` // whether it is (absent: true)
	Filter       string    `json:"filter"`      // poll mode: a condition every polled row meets
	// the columns each change's version and writer are read from (the exact reconciliation)
	Versions *WatchVersions `json:"versions"`
	// poll mode: the values of a shard column, split round-robin between the pollers
	Shards *WatchShards `json:"shards"`
}

// WatchVersions names the columns a versioned write carries (version, writer_id).
type WatchVersions struct {
	Version string `json:"version"`
	Writer  string `json:"writer"`
}

// WatchShards are a shard column's values; poller i of n polls values[i::n].
type WatchShards struct {
	Column string  `json:"column"`
	Values []int64 `json:"values"`
}
