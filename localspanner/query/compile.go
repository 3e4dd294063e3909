package query

import (
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/cloudspannerecosystem/memefish"
	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/value"
)

// Clock is optionally implemented by a Source: CURRENT_TIMESTAMP() then returns Now()
// (the transaction's read timestamp, as Spanner does) instead of the wall clock.
type Clock interface{ Now() time.Time }

// bind is one SQLite parameter of a compiled statement.
type bind struct {
	name  string          // SQLite parameter name, without ':'
	param string          // the query parameter it takes its value from
	t     *spannerpb.Type // the type the value is converted as
	now   bool            // CURRENT_TIMESTAMP() instead of a parameter
	date  bool            // CURRENT_DATE() instead of a parameter
	scan  bool            // the rows-scanned counter token of a profiled plan
}

// template is the parameter-independent result of compiling a query; it is cached.
type template struct {
	sql     string
	fields  []*spannerpb.StructType_Field
	types   []*spannerpb.Type
	binds   []bind
	tables  []*schema.Table
	indexes []*schema.Index
}

func (t *template) decode(row []any) ([]*structpb.Value, error) {
	if len(row) != len(t.types) {
		return nil, errorf(codes.Internal, "result row has %d cells, want %d", len(row), len(t.types))
	}
	out := make([]*structpb.Value, len(row))
	for i, x := range row {
		v, err := value.FromSQLite(x, t.types[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// args binds the parameters' values for one execution.
func bindArgs(binds []bind, params Params, src Source) ([]any, int64, error) {
	args := make([]any, len(binds))
	var now time.Time
	var token int64
	for i, b := range binds {
		var x any
		switch {
		case b.scan:
			token = sqlfn.NewScanCounter()
			x = token
		case b.now || b.date:
			if now.IsZero() {
				now = time.Now()
				if clk, ok := src.(Clock); ok {
					now = clk.Now()
				}
			}
			if b.now {
				x = value.FormatTimestamp(now)
			} else {
				x = now.In(sqlfn.DefaultZone()).Format("2006-01-02")
			}
		default:
			v, err := value.ToSQLite(params[b.param].Value, b.t)
			if err != nil {
				return nil, 0, errorf(codes.InvalidArgument, "Invalid value for parameter @%s of type %s: %v", b.param, typeName(b.t), err)
			}
			x = v
		}
		args[i] = sql.Named(b.name, x)
	}
	return args, token, nil
}

// The plan cache: compiled templates keyed by catalog, Source.Key(), SQL text and
// parameter types. Catalogs are immutable, so a DDL change naturally misses.
type cacheKey struct {
	cat *schema.Catalog
	key string
}

const maxCachedPlans = 4096

var planCache struct {
	sync.Mutex
	m map[cacheKey]any
}

func cacheGet(k cacheKey) any {
	planCache.Lock()
	defer planCache.Unlock()
	return planCache.m[k]
}

func cachePut(k cacheKey, v any) {
	planCache.Lock()
	defer planCache.Unlock()
	if planCache.m == nil || len(planCache.m) >= maxCachedPlans {
		planCache.m = make(map[cacheKey]any, 64)
	}
	planCache.m[k] = v
}

// paramKey describes the parameters' types (or, for untyped ones, their values'
// kinds) for the cache key.
func paramKey(b *strings.Builder, params Params) {
	if len(params) == 0 {
		return
	}
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	if len(names) > 1 {
		sortStrings(names)
	}
	for _, n := range names {
		p := params[n]
		b.WriteByte(0)
		b.WriteString(n)
		b.WriteByte('=')
		if p.Type != nil {
			writeTypeKey(b, p.Type)
		} else {
			b.WriteByte('?')
			b.WriteString(kindKey(p.Value))
		}
	}
}

func writeTypeKey(b *strings.Builder, t *spannerpb.Type) {
	b.WriteString(strconv.Itoa(int(t.GetCode())))
	if e := t.GetArrayElementType(); e != nil {
		b.WriteByte('[')
		writeTypeKey(b, e)
		b.WriteByte(']')
	}
	if st := t.GetStructType(); st != nil {
		b.WriteByte('{')
		for _, f := range st.GetFields() {
			b.WriteString(f.GetName())
			b.WriteByte(':')
			writeTypeKey(b, f.GetType())
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
}

func kindKey(v *structpb.Value) string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return "s"
	case *structpb.Value_NumberValue:
		return "n"
	case *structpb.Value_BoolValue:
		return "b"
	case *structpb.Value_ListValue:
		if vs := k.ListValue.GetValues(); len(vs) > 0 {
			return "l" + kindKey(vs[0])
		}
		return "l"
	case *structpb.Value_StructValue:
		return "o"
	}
	return "0"
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func templateKey(prefix byte, src Source, sqlText string, params Params) string {
	var b strings.Builder
	b.Grow(len(sqlText) + 32*len(params) + 16)
	b.WriteByte(prefix)
	if src != nil {
		b.WriteString(src.Key())
	}
	b.WriteByte(0)
	b.WriteString(sqlText)
	paramKey(&b, params)
	return b.String()
}

func compileQuery(cat *schema.Catalog, sqlText string, params Params, src Source) (*Plan, error) {
	return compileQueryOpts(cat, sqlText, params, src, false)
}

func compileQueryOpts(cat *schema.Catalog, sqlText string, params Params, src Source, profile bool) (*Plan, error) {
	if src == nil {
		src = CurrentRows{}
	}
	prefix := byte('Q')
	if profile {
		prefix = 'P'
	}
	k := cacheKey{cat, templateKey(prefix, src, sqlText, params)}
	tmpl, _ := cacheGet(k).(*template)
	if tmpl == nil {
		var err error
		tmpl, err = buildQueryTemplate(cat, sqlText, params, src, profile, nil)
		if err != nil {
			return nil, pgWording(cat, err)
		}
		cachePut(k, tmpl)
	}
	args, token, err := bindArgs(tmpl.binds, params, src)
	if err != nil {
		return nil, err
	}
	return &Plan{SQL: tmpl.sql, Args: args, Fields: tmpl.fields, Tables: tmpl.tables, Indexes: tmpl.indexes, tmpl: tmpl, scanToken: token}, nil
}

func buildQueryTemplate(cat *schema.Catalog, sqlText string, params Params, src Source, profile bool, und *undeclared) (*template, error) {
	stmt, err := parseFor(cat, sqlText)
	if err != nil {
		return nil, err
	}
	qs, ok := stmt.(*ast.QueryStatement)
	if !ok {
		return nil, errorf(codes.InvalidArgument, "Statement is not a query: %s", firstWord(sqlText))
	}
	c := newCompiler(cat, sqlText, params, src)
	c.profile = profile
	c.undeclared = und
	res, err := c.queryExpr(qs.Query, nil)
	if err != nil {
		return nil, err
	}
	tmpl := &template{sql: res.sql, binds: c.binds, tables: c.tables, indexes: c.indexes}
	for _, f := range res.fields {
		t := f.t
		if t == nil {
			t = tInt64
		}
		tmpl.fields = append(tmpl.fields, &spannerpb.StructType_Field{Name: f.name, Type: t})
		tmpl.types = append(tmpl.types, t)
	}
	if cat.Dialect() == schema.PostgreSQL {
		PGAnnotate(tmpl.fields)
	}
	return tmpl, nil
}

func syntaxError(text string, err error) error {
	var se *spanerr.Error
	if errors.As(err, &se) {
		return se // already answered with a code (the nesting check)
	}
	var me memefish.MultiError
	var one *memefish.Error
	switch {
	case errors.As(err, &me) && len(me) > 0:
		one = me[0]
	case errors.As(err, &one):
	}
	if one == nil || one.Position == nil {
		return errorf(codes.InvalidArgument, "Syntax error: %s", strings.TrimSpace(err.Error()))
	}
	return errorf(codes.InvalidArgument, "Syntax error: %s %s", syntaxWhat(text, one), schema.At(trimSemicolon(text), int(one.Position.Pos)))
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "(empty)"
	}
	return f[0]
}

// compiler holds the state of compiling one statement.
type compiler struct {
	cat     *schema.Catalog
	src     Source
	text    string
	params  Params
	binds   []bind
	bindIdx map[string]int
	aliasN  int
	tables  []*schema.Table
	indexes []*schema.Index
	ctes    map[string]*cte
	// colExpr is set while compiling a generated column or DEFAULT expression.
	colExpr bool
	// pendingTS allows PENDING_COMMIT_TIMESTAMP() (DML values).
	pendingTS bool
	// grouping records the column references of the SELECT being compiled that are not
	// inside an aggregate (aggDepth == 0), to reject ungrouped columns as Spanner does.
	grouping *groupCheck
	aggDepth int
	// profile adds rows-scanned counting terms (CompileProfiled); scanTerms collects
	// them for the SELECT whose FROM is being compiled.
	profile   bool
	scanTerms []string
	depth     int
	// strict is set while a view's query is compiled: Spanner resolves it with strict
	// name resolution (columns qualified, no SELECT *).
	strict bool
	// undeclared, when set (Describe), collects the parameters the request did not
	// declare, typed by their context, instead of refusing them.
	undeclared *undeclared
}

type groupCheck struct {
	scope   *scope
	refs    []string // SQL of the columns referenced outside aggregates, in order
	names   []string
	aggSeen bool
}

// noteColumn records a column reference resolved in scope s.
func (c *compiler) noteColumn(s *scope, name, sqlText string) {
	if g := c.grouping; g != nil && g.scope == s && c.aggDepth == 0 {
		g.refs = append(g.refs, sqlText)
		g.names = append(g.names, name)
	}
}

type cte struct {
	sqlName string
	fields  []field
}

func newCompiler(cat *schema.Catalog, text string, params Params, src Source) *compiler {
	return &compiler{cat: cat, src: src, text: text, params: params, bindIdx: map[string]int{}}
}

// at formats a node's position as Spanner's error location (schema.At).
func (c *compiler) at(n ast.Node) string {
	return schema.At(c.text, int(n.Pos()))
}

// unsupported is the error for a construct outside the supported subset.
func (c *compiler) unsupported(n ast.Node, what string) error {
	return errorf(codes.Unimplemented, "%s is not supported by the local Spanner server %s", what, c.at(n))
}

func (c *compiler) invalid(n ast.Node, format string, args ...any) error {
	return errorf(codes.InvalidArgument, "%s %s", fmtSprintf(format, args...), c.at(n))
}

func (c *compiler) newAlias() string {
	c.aliasN++
	return `"t` + strconv.Itoa(c.aliasN) + `"`
}

func (c *compiler) addTable(t *schema.Table) {
	for _, x := range c.tables {
		if x == t {
			return
		}
	}
	c.tables = append(c.tables, t)
}

// param returns the SQLite placeholder for query parameter name, typed by its declared
// type or, when untyped, by the hint from its context or its value's kind.
func (c *compiler) param(n *ast.Param, hint *spannerpb.Type) (expr, error) {
	if c.colExpr {
		return expr{}, c.invalid(n, "Query parameters cannot be used in column expressions")
	}
	name := n.Name
	p, ok := c.params[name]
	if !ok {
		// Query parameter names are case-insensitive in GoogleSQL.
		for k, v := range c.params {
			if strings.EqualFold(k, name) {
				name, p, ok = k, v, true
				break
			}
		}
	}
	if !ok && c.undeclared != nil {
		return expr{sql: "NULL", t: c.undeclared.note(name, hint), param: true}, nil
	}
	if !ok {
		return expr{}, c.invalid(n, "No parameter found for binding: %s", n.Name)
	}
	t := p.Type
	if t == nil {
		t = inferParamType(p.Value, hint)
	} else if c.cat.Dialect() == schema.PostgreSQL {
		t = pgPlain(t)
	}
	key := name + "\x00" + typeName(t)
	if i, ok := c.bindIdx[key]; ok {
		return expr{sql: ":" + c.binds[i].name, t: t, param: true}, nil
	}
	sqlName := "qp" + strconv.Itoa(len(c.binds)+1)
	c.bindIdx[key] = len(c.binds)
	c.binds = append(c.binds, bind{name: sqlName, param: name, t: t})
	return expr{sql: ":" + sqlName, t: t, param: true}, nil
}

func (c *compiler) nowParam(date bool) expr {
	key := "\x00now"
	t := tTimestamp
	if date {
		key, t = "\x00date", tDate
	}
	if i, ok := c.bindIdx[key]; ok {
		return expr{sql: ":" + c.binds[i].name, t: t}
	}
	name := "qp" + strconv.Itoa(len(c.binds)+1)
	c.bindIdx[key] = len(c.binds)
	c.binds = append(c.binds, bind{name: name, now: !date, date: date})
	return expr{sql: ":" + name, t: t}
}

// inferParamType types an untyped parameter as Spanner does: by the context when the
// value can be read as that type, else by the value's kind.
func inferParamType(v *structpb.Value, hint *spannerpb.Type) *spannerpb.Type {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if hint != nil && code(hint) != spannerpb.TypeCode_ARRAY && code(hint) != spannerpb.TypeCode_STRUCT {
			return hint
		}
		return tString
	case *structpb.Value_NumberValue:
		if isNumeric(hint) {
			return hint
		}
		return tFloat64
	case *structpb.Value_BoolValue:
		return tBool
	case *structpb.Value_ListValue:
		if code(hint) == spannerpb.TypeCode_ARRAY {
			return hint
		}
		var elemHint *spannerpb.Type
		for _, e := range k.ListValue.GetValues() {
			if _, null := e.GetKind().(*structpb.Value_NullValue); !null {
				return arrayOf(inferParamType(e, elemHint))
			}
		}
		return arrayOf(tInt64)
	}
	if hint != nil {
		return hint
	}
	return tInt64
}
