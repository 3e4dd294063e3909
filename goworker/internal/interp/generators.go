package interp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"sync/atomic"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
)

// Type is the Spanner type of a drawn value: what a statement parameter is typed as, and what a
// NULL draw stands for.
type Type int

const (
	TypeUnknown Type = iota
	TypeInt64
	TypeString
	TypeBytes
	TypeNumeric
	TypeFloat64
	TypeBool
	TypeDate
	TypeTimestamp
)

// Null is a typed NULL of t, as the Go client takes it.
func Null(t Type) any {
	switch t {
	case TypeInt64:
		return spanner.NullInt64{}
	case TypeString:
		return spanner.NullString{}
	case TypeBytes:
		return []byte(nil)
	case TypeNumeric:
		return spanner.NullNumeric{}
	case TypeFloat64:
		return spanner.NullFloat64{}
	case TypeBool:
		return spanner.NullBool{}
	case TypeDate:
		return spanner.NullDate{}
	case TypeTimestamp:
		return spanner.NullTime{}
	}
	return nil
}

// typeOf is the type of a literal.
func typeOf(v any) Type {
	switch v.(type) {
	case int64:
		return TypeInt64
	case float64:
		return TypeFloat64
	case string:
		return TypeString
	case bool:
		return TypeBool
	}
	return TypeUnknown
}

// Gen is a compiled generator. Draw returns what the Go client takes: int64, string, []byte,
// big.Rat (NUMERIC), float64, bool, civil.Date, time.Time, spanner.CommitTimestamp, or a typed
// NULL (Null).
type Gen struct {
	Kind         string
	Type         Type
	nullFraction float64
	draw         func(r *SplitMix64, row int64) any
	key          keyKind // a key generator (keys.go): drawn by the execution's keyState
	keySpace     int64   // versioned_key: max
}

// Draw draws one value. row is the load row's number, or < 0 in an operation.
func (g *Gen) Draw(r *SplitMix64, row int64) any {
	if g.nullFraction > 0 && r.Unit() < g.nullFraction {
		return Null(g.Type)
	}
	return g.draw(r, row)
}

// Knobs are the run's knob values (every knob: defaults for the unset).
type Knobs map[string]any

func (k Knobs) number(n Number) (float64, error) {
	if n.Ref == "" {
		return n.Lit, nil
	}
	switch v := k[n.Ref].(type) {
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case nil:
		return 0, fmt.Errorf("$%s names no knob", n.Ref)
	default:
		return 0, fmt.Errorf("$%s is not a number (%v)", n.Ref, v)
	}
}

func (k Knobs) integer(n Number, what string) (int64, error) {
	f, err := k.number(n)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<63 {
		return 0, fmt.Errorf("%s must be a whole number (got %g)", what, f)
	}
	return int64(f), nil
}

func (k Knobs) flag(f Flag) (bool, error) {
	if f.Ref == "" {
		return f.Lit, nil
	}
	v, ok := k[f.Ref].(bool)
	if !ok {
		return false, fmt.Errorf("$%s is not a bool knob (%v)", f.Ref, k[f.Ref])
	}
	return v, nil
}

func (k Knobs) duration(d Duration) (float64, error) {
	if d.Ref == "" {
		return d.Ms, nil
	}
	return k.number(Number{Ref: d.Ref})
}

// Sequencer is where a sequence generator is in an operation: its draw k on this worker is
// index k * workers + worker. One per generator, kept across recompiles.
type Sequencer struct {
	worker, workers int64
	next            atomic.Int64
}

func (s *Sequencer) index() int64 { return (s.next.Add(1)-1)*s.workers + s.worker }

// genEnv is what compiling a generator needs besides its spec.
type genEnv struct {
	knobs Knobs
	seq   func() *Sequencer // the generator's sequencer (compiled once per place in the definition)
}

// zipf is rejection-inversion sampling of Zipf's law on [1, n] (Hörmann and Derflinger 1996).
type zipf struct {
	n                float64
	s, hx1, hn, shft float64
}

func newZipf(n int64, s float64) (*zipf, error) {
	if n < 1 || s <= 0 {
		return nil, fmt.Errorf("zipf needs n >= 1 and s > 0 (got n=%d, s=%g)", n, s)
	}
	z := &zipf{n: float64(n), s: s}
	z.hx1 = z.hint(1.5) - 1
	z.hn = z.hint(float64(n) + 0.5)
	z.shft = 2 - z.hinv(z.hint(2.5)-z.h(2))
	return z, nil
}

func (z *zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

func (z *zipf) hint(x float64) float64 {
	logX := math.Log(x)
	return helper2((1-z.s)*logX) * logX
}

func (z *zipf) hinv(x float64) float64 {
	t := math.Max(x*(1-z.s), -1)
	return math.Exp(helper1(t) * x)
}

func (z *zipf) draw(r *SplitMix64) int64 {
	for {
		u := z.hn + r.Unit()*(z.hx1-z.hn)
		x := z.hinv(u)
		k := math.Min(math.Max(math.Floor(x+0.5), 1), z.n)
		if k-x <= z.shft || u >= z.hint(k+0.5)-z.h(k) {
			return int64(k)
		}
	}
}

func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3.0-0.25*x))
}

func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3.0)*(1+0.25*x))
}

// lengthOf compiles a string's or bytes' length: a number or [lo, hi].
func lengthOf(raw json.RawMessage, knobs Knobs) (func(*SplitMix64) int64, error) {
	var pair []Number
	if err := decode(raw, &pair); err == nil {
		if len(pair) != 2 {
			return nil, fmt.Errorf("length [lo, hi] takes two numbers")
		}
		lo, err := knobs.integer(pair[0], "length")
		if err != nil {
			return nil, err
		}
		hi, err := knobs.integer(pair[1], "length")
		if err != nil {
			return nil, err
		}
		if lo < 0 || lo > hi {
			return nil, fmt.Errorf("length [%d, %d] must have 0 <= lo <= hi", lo, hi)
		}
		return func(r *SplitMix64) int64 { return r.Between(lo, hi) }, nil
	}
	var one Number
	if err := decode(raw, &one); err != nil {
		return nil, fmt.Errorf("length: %w", err)
	}
	n, err := knobs.integer(one, "length")
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("length %d is negative", n)
	}
	return func(*SplitMix64) int64 { return n }, nil
}

var epochDate = civil.Date{Year: 1970, Month: 1, Day: 1}

// parseTimestamp reads RFC 3339 (a missing zone is UTC) into microseconds since the epoch.
func parseTimestamp(s string) (int64, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("%q is not an RFC 3339 timestamp", s)
}

func parseDate(s string) (int64, error) {
	d, err := civil.ParseDate(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a date YYYY-MM-DD", s)
	}
	return int64(d.DaysSince(epochDate)), nil
}

func uuid4(r *SplitMix64) string {
	hi := r.U64()&^0xF000 | 0x4000
	lo := r.U64()&^(0xC<<60) | 0x8<<60
	var h [32]byte
	for i := range 16 {
		h[i] = hexdigits[(hi>>(60-4*i))&0xF]
		h[16+i] = hexdigits[(lo>>(60-4*i))&0xF]
	}
	return string(h[:8]) + "-" + string(h[8:12]) + "-" + string(h[12:16]) + "-" + string(h[16:20]) + "-" + string(h[20:])
}

const hexdigits = "0123456789abcdef"

// CompileGen compiles one generator with the run's knobs.
func CompileGen(spec *GenSpec, env genEnv) (*Gen, error) {
	g := &Gen{Kind: spec.Kind, nullFraction: spec.NullFraction}
	knobs := env.knobs
	switch spec.Kind {
	case "uniform":
		var p struct {
			Min *Number `json:"min"`
			Max Number  `json:"max"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("uniform: %w", err)
		}
		minN := Number{Lit: 1}
		if p.Min != nil {
			minN = *p.Min
		}
		lo, err := knobs.integer(minN, "uniform.min")
		if err != nil {
			return nil, err
		}
		hi, err := knobs.integer(p.Max, "uniform.max")
		if err != nil {
			return nil, err
		}
		if lo > hi {
			return nil, fmt.Errorf("uniform min %d is above max %d", lo, hi)
		}
		g.Type, g.draw = TypeInt64, func(r *SplitMix64, _ int64) any { return r.Between(lo, hi) }
	case "zipf":
		var p struct {
			N Number  `json:"n"`
			S *Number `json:"s"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("zipf: %w", err)
		}
		n, err := knobs.integer(p.N, "zipf.n")
		if err != nil {
			return nil, err
		}
		s := 1.0
		if p.S != nil {
			if s, err = knobs.number(*p.S); err != nil {
				return nil, fmt.Errorf("zipf.s: %w", err)
			}
		}
		z, err := newZipf(n, s)
		if err != nil {
			return nil, err
		}
		g.Type, g.draw = TypeInt64, func(r *SplitMix64, _ int64) any { return z.draw(r) }
	case "sequence":
		var p struct {
			Start *Number `json:"start"`
			Step  *Number `json:"step"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("sequence: %w", err)
		}
		start, step := Number{Lit: 1}, Number{Lit: 1}
		if p.Start != nil {
			start = *p.Start
		}
		if p.Step != nil {
			step = *p.Step
		}
		a, err := knobs.integer(start, "sequence.start")
		if err != nil {
			return nil, err
		}
		d, err := knobs.integer(step, "sequence.step")
		if err != nil {
			return nil, err
		}
		seq := env.seq()
		g.Type, g.draw = TypeInt64, func(_ *SplitMix64, row int64) any {
			if row < 0 {
				row = seq.index()
			}
			return a + d*row
		}
	case "choice":
		var p struct {
			Values  []json.RawMessage `json:"values"`
			Weights []float64         `json:"weights"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("choice: %w", err)
		}
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("choice: no values")
		}
		values := make([]any, len(p.Values))
		for i, raw := range p.Values {
			v, err := literal(raw)
			if err != nil {
				return nil, fmt.Errorf("choice.values: %w", err)
			}
			values[i] = v
		}
		g.Type = typeOf(values[0])
		if p.Weights == nil {
			n := uint64(len(values))
			g.draw = func(r *SplitMix64, _ int64) any { return values[r.Below(n)] }
			break
		}
		if len(p.Weights) != len(values) {
			return nil, fmt.Errorf("choice: %d weights for %d values", len(p.Weights), len(values))
		}
		cumulative := make([]float64, len(p.Weights))
		total := 0.0
		for i, w := range p.Weights {
			total += w
			cumulative[i] = total
		}
		g.draw = func(r *SplitMix64, _ int64) any {
			u := r.Unit() * total
			for i, c := range cumulative {
				if u < c {
					return values[i]
				}
			}
			return values[len(values)-1]
		}
	case "string":
		var p struct {
			Length   json.RawMessage `json:"length"`
			Alphabet *string         `json:"alphabet"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("string: %w", err)
		}
		length, err := lengthOf(p.Length, knobs)
		if err != nil {
			return nil, fmt.Errorf("string.%w", err)
		}
		alphabet := []rune(DefaultAlphabet)
		if p.Alphabet != nil {
			alphabet = []rune(*p.Alphabet)
		}
		if len(alphabet) == 0 {
			return nil, fmt.Errorf("string: an empty alphabet")
		}
		ascii := true
		for _, c := range alphabet {
			ascii = ascii && c < 0x80
		}
		size := uint64(len(alphabet))
		g.Type, g.draw = TypeString, func(r *SplitMix64, _ int64) any {
			n := length(r)
			if ascii {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(alphabet[r.Below(size)])
				}
				return string(b)
			}
			out := make([]rune, n)
			for i := range out {
				out[i] = alphabet[r.Below(size)]
			}
			return string(out)
		}
	case "bytes":
		var p struct {
			Length json.RawMessage `json:"length"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("bytes: %w", err)
		}
		length, err := lengthOf(p.Length, knobs)
		if err != nil {
			return nil, fmt.Errorf("bytes.%w", err)
		}
		g.Type, g.draw = TypeBytes, func(r *SplitMix64, _ int64) any {
			b := make([]byte, length(r))
			for i := range b {
				b[i] = byte(r.Below(256))
			}
			return b
		}
	case "decimal":
		var p struct {
			Min   Number `json:"min"`
			Max   Number `json:"max"`
			Scale *int   `json:"scale"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("decimal: %w", err)
		}
		scale := 2
		if p.Scale != nil {
			scale = *p.Scale
		}
		if scale < 0 || scale > 9 {
			return nil, fmt.Errorf("decimal.scale %d is outside [0, 9]", scale)
		}
		lo, hi, err := decimalBounds(knobs, p.Min, p.Max, scale)
		if err != nil {
			return nil, err
		}
		denominator := big.NewInt(int64(math.Pow10(scale)))
		g.Type, g.draw = TypeNumeric, func(r *SplitMix64, _ int64) any {
			var v big.Rat
			v.SetFrac(big.NewInt(r.Between(lo, hi)), denominator)
			return Decimal{Rat: v, Scale: scale}
		}
	case "float":
		var p struct {
			Min *Number `json:"min"`
			Max *Number `json:"max"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("float: %w", err)
		}
		lo, hi := 0.0, 1.0
		var err error
		if p.Min != nil {
			if lo, err = knobs.number(*p.Min); err != nil {
				return nil, fmt.Errorf("float.min: %w", err)
			}
		}
		if p.Max != nil {
			if hi, err = knobs.number(*p.Max); err != nil {
				return nil, fmt.Errorf("float.max: %w", err)
			}
		}
		if lo > hi {
			return nil, fmt.Errorf("float min %g is above max %g", lo, hi)
		}
		g.Type, g.draw = TypeFloat64, func(r *SplitMix64, _ int64) any { return lo + r.Unit()*(hi-lo) }
	case "date", "timestamp":
		var p struct {
			Min string `json:"min"`
			Max string `json:"max"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Kind, err)
		}
		parse := parseDate
		if spec.Kind == "timestamp" {
			parse = parseTimestamp
		}
		lo, err := parse(p.Min)
		if err != nil {
			return nil, fmt.Errorf("%s.min: %w", spec.Kind, err)
		}
		hi, err := parse(p.Max)
		if err != nil {
			return nil, fmt.Errorf("%s.max: %w", spec.Kind, err)
		}
		if lo > hi {
			return nil, fmt.Errorf("%s min %s is after max %s", spec.Kind, p.Min, p.Max)
		}
		if spec.Kind == "date" {
			g.Type, g.draw = TypeDate, func(r *SplitMix64, _ int64) any { return epochDate.AddDays(int(r.Between(lo, hi))) }
		} else {
			g.Type, g.draw = TypeTimestamp, func(r *SplitMix64, _ int64) any { return time.UnixMicro(r.Between(lo, hi)).UTC() }
		}
	case "uuid":
		g.Type, g.draw = TypeString, func(r *SplitMix64, _ int64) any { return uuid4(r) }
	case "const":
		v, err := literal(spec.Params)
		if err != nil {
			return nil, fmt.Errorf("const: %w", err)
		}
		g.Type = typeOf(v)
		if v == nil {
			g.draw = func(*SplitMix64, int64) any { return nil }
		} else {
			g.draw = func(*SplitMix64, int64) any { return v }
		}
	case "now":
		g.Type, g.draw = TypeTimestamp, func(*SplitMix64, int64) any { return time.Now().UTC() }
	case "commit_timestamp":
		g.Type, g.draw = TypeTimestamp, func(*SplitMix64, int64) any { return spanner.CommitTimestamp }
	case "versioned_key", "fresh_key", "version", "writer_id":
		if err := compileKeyGen(g, spec, knobs); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("not a generator: %q (one of %s)", spec.Kind, kindList())
	}
	return g, nil
}

// DefaultAlphabet is model/workload.py DEFAULT_ALPHABET.
const DefaultAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// decimalBounds are round(min * 10^scale) and round(max * 10^scale), rounding half to even as
// Python's round() does.
func decimalBounds(knobs Knobs, minN, maxN Number, scale int) (int64, int64, error) {
	lo, err := knobs.number(minN)
	if err != nil {
		return 0, 0, fmt.Errorf("decimal.min: %w", err)
	}
	hi, err := knobs.number(maxN)
	if err != nil {
		return 0, 0, fmt.Errorf("decimal.max: %w", err)
	}
	p := math.Pow10(scale)
	a, b := math.RoundToEven(lo*p), math.RoundToEven(hi*p)
	if a > b {
		return 0, 0, fmt.Errorf("decimal min is above max (%g > %g)", lo, hi)
	}
	return int64(a), int64(b), nil
}

// Decimal is a drawn NUMERIC: its value and how many fraction digits it is written with. The
// client takes its Rat; Wire writes it with exactly Scale digits.
type Decimal struct {
	Rat   big.Rat
	Scale int
}

// EncodeSpanner makes a Decimal a NUMERIC for the client (spanner.Encoder).
func (d Decimal) EncodeSpanner() (any, error) { return d.Rat, nil }

// Wire writes a drawn value as Spanner's JSON does (INT64 and NUMERIC as strings, BYTES base64,
// TIMESTAMP RFC 3339 with 6 fraction digits and Z): the form of workloads/testdata/generators.json.
func Wire(v any) any {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case []byte:
		if x == nil {
			return nil
		}
		return base64.StdEncoding.EncodeToString(x)
	case Decimal:
		return x.Rat.FloatString(x.Scale)
	case civil.Date:
		return x.String()
	case time.Time:
		if x.Equal(spanner.CommitTimestamp) {
			return "spanner.commit_timestamp()"
		}
		return x.UTC().Format("2006-01-02T15:04:05.000000Z")
	case spanner.NullInt64, spanner.NullString, spanner.NullNumeric, spanner.NullFloat64, spanner.NullBool,
		spanner.NullDate, spanner.NullTime:
		return nil
	}
	return v
}
