package interp

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
)

// A value's source, resolved once at compile time: a value of the definition's values (drawn once
// per execution), a knob or a literal (a constant), an inline generator (drawn where it stands), or
// a column bound by an earlier step (looked up when the step runs). A name is looked up among the
// knobs, then the values, then the columns bound by earlier steps.
type srcKind uint8

const (
	srcConst srcKind = iota
	srcValue
	srcGen
	srcBind
)

type source struct {
	kind  srcKind
	index int    // srcValue: the value's index in Definition.Values
	gen   *Gen   // srcGen
	name  string // srcBind
	val   any    // srcConst
}

// draw is the source's value in a row drawn from r (row: a load row's number, or < 0): a constant,
// an inline generator's draw, value(index) for a value of values; nil for a bound column (filled
// in when its step runs).
func (src source) draw(r *SplitMix64, row int64, value func(int) any) any {
	switch src.kind {
	case srcConst:
		return src.val
	case srcValue:
		return value(src.index)
	case srcGen:
		return src.gen.Draw(r, row)
	}
	return nil
}

// program is a definition compiled with one set of knob values; a patch that changes knobs
// compiles a new one (sequencers carry over, so sequence generators never repeat).
type program struct {
	def    *Definition
	knobs  Knobs
	values []*Gen
	ops    map[string]*compiledOp
}

type compiledOp struct {
	name      string
	tx        string
	bound     spanner.TimestampBound
	staleness staleness // bound, for a PostgreSQL driver
	uses      []int     // the values the operation refers to, in the order values lists them
	steps     []*cstep
	mutations bool // single_use: mutations only (one commit), else one read or query
	writes    bool // a mutation or a DML statement: its commits count transactions and mutations
}

type cstep struct {
	kind   string
	sql    string
	dml    bool
	params []string // sql: parameter names, the sources in srcs
	srcs   []source // sql: params; mutation: columns; delete and read: key parts
	cols   []string // mutation: columns; read: columns to read
	table  string
	index  string
	limit  int64
	rows   int64 // a mutation's rows when rowsGen is nil
	rows2  *Gen
	binds  []Named[string]
	inline int // inline generators per row
}

// staleness is a read's bound: at a timestamp, else exact, else max staleness in milliseconds (all
// zero: strong).
type staleness struct {
	exactMs, maxMs float64
	at             time.Time // a read at this timestamp (a hand-over's drain); zero: none
}

// sequencers keeps one Sequencer per place in the definition that holds a sequence generator.
type sequencers struct {
	worker, workers int64
	mu              sync.Mutex
	byPath          map[string]*Sequencer
}

func (s *sequencers) at(path string) func() *Sequencer {
	return func() *Sequencer {
		s.mu.Lock()
		defer s.mu.Unlock()
		if q, ok := s.byPath[path]; ok {
			return q
		}
		q := &Sequencer{worker: s.worker, workers: s.workers}
		s.byPath[path] = q
		return q
	}
}

// compile compiles def with knobs (every knob's value).
func compile(def *Definition, knobs Knobs, seqs *sequencers) (*program, error) {
	p := &program{def: def, knobs: knobs, ops: map[string]*compiledOp{}}
	for _, v := range def.Values {
		g, err := CompileGen(v.Item, genEnv{knobs: knobs, seq: seqs.at("values." + v.Name)})
		if err != nil {
			return nil, fmt.Errorf("values.%s: %w", v.Name, err)
		}
		p.values = append(p.values, g)
	}
	for _, o := range def.Operations {
		op, err := p.compileOp(o.Name, o.Item, seqs)
		if err != nil {
			return nil, fmt.Errorf("operations.%s: %w", o.Name, err)
		}
		p.ops[o.Name] = op
	}
	return p, nil
}

func (p *program) valueIndex(name string) int {
	for i, v := range p.def.Values {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// resolve is the source of a value spec at path; bound holds the names earlier steps bind.
func (p *program) resolve(spec ValueSpec, path string, bound map[string]bool, seqs *sequencers, used map[int]bool) (source, error) {
	switch {
	case spec.Gen != nil:
		g, err := CompileGen(spec.Gen, genEnv{knobs: p.knobs, seq: seqs.at(path)})
		if err != nil {
			return source{}, fmt.Errorf("%s: %w", path, err)
		}
		return source{kind: srcGen, gen: g}, nil
	case spec.Ref != "":
		return p.named(spec.Ref, path, bound, used)
	}
	return source{kind: srcConst, val: spec.Lit}, nil
}

func (p *program) named(name, path string, bound map[string]bool, used map[int]bool) (source, error) {
	if v, ok := p.knobs[name]; ok {
		return source{kind: srcConst, val: v}, nil
	}
	if i := p.valueIndex(name); i >= 0 {
		used[i] = true
		return source{kind: srcValue, index: i}, nil
	}
	if bound[name] {
		return source{kind: srcBind, name: name}, nil
	}
	return source{}, fmt.Errorf("%s: %s names no knob, value or column bound by an earlier step", path, name)
}

func (p *program) compileOp(name string, o *Operation, seqs *sequencers) (*compiledOp, error) {
	op := &compiledOp{name: name, tx: o.Transaction, bound: spanner.StrongRead()}
	if op.tx == "" {
		op.tx = TxReadWrite
	}
	if o.Staleness != nil {
		switch {
		case o.Staleness.Exact != nil:
			ms, err := p.knobs.duration(*o.Staleness.Exact)
			if err != nil {
				return nil, fmt.Errorf("staleness: %w", err)
			}
			op.bound, op.staleness = spanner.ExactStaleness(msDuration(ms)), staleness{exactMs: ms}
		case o.Staleness.Max != nil:
			ms, err := p.knobs.duration(*o.Staleness.Max)
			if err != nil {
				return nil, fmt.Errorf("staleness: %w", err)
			}
			op.bound, op.staleness = spanner.MaxStaleness(msDuration(ms)), staleness{maxMs: ms}
		}
	}
	used := map[int]bool{}
	bound := map[string]bool{}
	op.mutations = true
	for i, s := range o.Steps {
		path := fmt.Sprintf("steps.%d", i)
		c, err := p.compileStep(s, path, bound, seqs, used)
		if err != nil {
			return nil, err
		}
		if c.kind == StepSQL || c.kind == StepRead {
			op.mutations = false
		}
		if c.kind != StepRead && (c.kind != StepSQL || c.dml) {
			op.writes = true
		}
		for _, b := range s.Bind {
			bound[b.Name] = true
		}
		op.steps = append(op.steps, c)
	}
	for i := range p.def.Values {
		if used[i] {
			op.uses = append(op.uses, i)
		}
	}
	return op, nil
}

func (p *program) compileStep(s *Step, path string, bound map[string]bool, seqs *sequencers, used map[int]bool) (*cstep, error) {
	c := &cstep{kind: s.Kind, table: s.Table, index: s.Index, limit: s.Limit, binds: s.Bind, rows: 1}
	add := func(name string, spec ValueSpec, where string) error {
		src, err := p.resolve(spec, path+"."+where, bound, seqs, used)
		if err != nil {
			return err
		}
		if src.kind == srcGen {
			c.inline++
		}
		c.params = append(c.params, name)
		c.srcs = append(c.srcs, src)
		return nil
	}
	switch s.Kind {
	case StepSQL:
		c.sql, c.dml = s.SQL, isDML(s.SQL)
		given := map[string]bool{}
		for _, param := range s.Params {
			given[param.Name] = true
			if err := add(param.Name, param.Item, "params."+param.Name); err != nil {
				return nil, err
			}
		}
		named := sqlParams
		if p.def.PG() {
			named = pgParams
		}
		for _, name := range named(s.SQL) {
			if given[name] {
				continue
			}
			if p.def.PG() { // $1 has no name of its own to look up
				return nil, fmt.Errorf("%s.sql: $%s has no value; say where it comes from in params, e.g. "+
					"params: {%s: $customer}", path, name[1:], name)
			}
			given[name] = true
			src, err := p.named(name, path+".sql @"+name, bound, used)
			if err != nil {
				return nil, err
			}
			c.params = append(c.params, name)
			c.srcs = append(c.srcs, src)
		}
	case StepRead:
		c.cols = s.Read
		for _, k := range s.Cols {
			if err := add(k.Name, k.Item, "read.key."+k.Name); err != nil {
				return nil, err
			}
		}
	default: // mutations
		for _, k := range s.Cols {
			if err := add(k.Name, k.Item, s.Kind+"."+k.Name); err != nil {
				return nil, err
			}
		}
		c.cols = c.params
		if s.Rows != nil {
			if s.Rows.Gen != nil {
				g, err := CompileGen(s.Rows.Gen, genEnv{knobs: p.knobs, seq: seqs.at(path + ".rows")})
				if err != nil {
					return nil, fmt.Errorf("%s.%s.rows: %w", path, s.Kind, err)
				}
				c.rows2 = g
			} else {
				n, err := p.knobs.integer(*s.Rows.Number, path+"."+s.Kind+".rows")
				if err != nil {
					return nil, err
				}
				c.rows = n
			}
		}
	}
	return c, nil
}

// sqlParams are the @names of a statement, in order, outside string literals, quoted names and
// comments; @{...} hints are not parameters.
func sqlParams(sql string) []string {
	var out []string
	for i := 0; i < len(sql); i++ {
		switch ch := sql[i]; {
		case ch == '\'' || ch == '"' || ch == '`':
			for i++; i < len(sql) && sql[i] != ch; i++ {
				if sql[i] == '\\' {
					i++
				}
			}
		case ch == '-' && i+1 < len(sql) && sql[i+1] == '-', ch == '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case ch == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 3
		case ch == '@':
			j := i + 1
			for j < len(sql) && (sql[j] == '_' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' ||
				j > i+1 && sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			if j > i+1 {
				out = append(out, sql[i+1:j])
			}
			i = j - 1
		}
	}
	return out
}

// isDML says whether a statement is INSERT, UPDATE or DELETE (run with Update, or with Query when
// it binds what THEN RETURN gives back).
func isDML(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n(")
	word := s
	if i := strings.IndexAny(s, " \t\r\n("); i >= 0 {
		word = s[:i]
	}
	switch strings.ToUpper(word) {
	case "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}
