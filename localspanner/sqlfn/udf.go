package sqlfn

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-sqlite3"

	"github.com/spanload/spanload/localspanner/value"
)

// udfs are the functions compiled SQL calls. pure ones are registered as
// deterministic, so they may appear in generated columns, DEFAULTs and indexes.
var udfs = []struct {
	name string
	impl any
	pure bool
}{
	{"sp_farm_fingerprint", udfFarmFingerprint, true},
	{"sp_proto_field", udfProtoField, true},
	{"sp_enum_name", udfEnumName, true},
	{"sp_enum_value", udfEnumValue, true},
	{"sp_add", udfAdd, true},
	{"sp_sub", udfSub, true},
	{"sp_mul", udfMul, true},
	{"sp_div", udfDiv, true},
	{"sp_idiv", udfIntDiv, true},
	{"sp_mod", udfMod, true},
	{"sp_bitxor", udfBitXor, true},
	{"sp_shift", udfShift, true},
	{"sp_numeric_cmp", udfNumericCmp, true},
	{"sp_numeric_op", udfNumericOp, true},
	{"sp_float_op", udfFloatOp, true},
	{"sp_is_nan", udfIsNaN, true},
	{"sp_is_inf", udfIsInf, true},
	{"sp_safe_op", udfSafeOp, true},
	{"sp_numeric_key", udfNumericKey, true},
	{"sp_numeric_unkey", udfNumericUnkey, true},
	{"sp_cast", udfCast, true},
	{"sp_safe_cast", udfSafeCast, true},
	{"sp_lower", udfLower, true},
	{"sp_upper", udfUpper, true},
	{"sp_substr", udfSubstr, true},
	{"sp_starts_with", udfStartsWith, true},
	{"sp_ends_with", udfEndsWith, true},
	{"sp_repeat", udfRepeat, true},
	{"sp_trim", udfTrim, true},
	{"sp_reverse", udfReverse, true},
	{"sp_pad", udfPad, true},
	{"sp_split", udfSplit, true},
	{"sp_regexp_contains", udfRegexpContains, true},
	{"sp_regexp_extract", udfRegexpExtract, true},
	{"sp_regexp_replace", udfRegexpReplace, true},
	{"sp_hash", udfHash, true},
	{"sp_base64", udfBase64, true},
	{"sp_unbase64", udfUnbase64, true},
	{"sp_math", udfMath, true},
	{"sp_ts_add", udfTimestampAdd, true},
	{"sp_ts_diff", udfTimestampDiff, true},
	{"sp_ts_trunc", udfTimestampTrunc, true},
	{"sp_extract", udfExtract, true},
	{"sp_unix", udfUnix, true},
	{"sp_from_unix", udfFromUnix, true},
	{"sp_date_add", udfDateAdd, true},
	{"sp_date_diff", udfDateDiff, true},
	{"sp_error", udfError, true},
	{"sp_format_time", udfFormatTime, true},
	{"sp_format", udfFormat, true},
	{"sp_to_json_string", udfToJSONString, true},
	{"sp_parse_json", udfParseJSON, true},
	{"sp_uuid", udfUUID, false},
	{"sp_scan", udfScan, false},
}

// Register registers this package's SQL functions (FARM_FINGERPRINT, checked
// INT64 arithmetic, CAST, timestamp and string functions) on one SQLite connection,
// and makes LIKE case-sensitive as in Spanner. Call it from the sqlite3.SQLiteDriver
// ConnectHook of every connection.
func Register(conn *sqlite3.SQLiteConn) error {
	for _, f := range udfs {
		if err := conn.RegisterFunc(f.name, f.impl, f.pure); err != nil {
			return fmt.Errorf("register SQL function %s: %w", f.name, err)
		}
	}
	if err := conn.RegisterAggregator("sp_numeric_sum", func() *numericSum { return &numericSum{} }, true); err != nil {
		return fmt.Errorf("register SQL function sp_numeric_sum: %w", err)
	}
	if err := conn.RegisterAggregator("sp_numeric_avg", func() *numericSum { return &numericSum{avg: true} }, true); err != nil {
		return fmt.Errorf("register SQL function sp_numeric_avg: %w", err)
	}
	if err := registerSafe(conn); err != nil {
		return err
	}
	for _, kind := range []string{"sum", "avg", "min", "max"} {
		if err := conn.RegisterAggregator("sp_float_"+kind, func() *floatAgg { return &floatAgg{kind: kind} }, true); err != nil {
			return fmt.Errorf("register SQL function sp_float_%s: %w", kind, err)
		}
	}
	if _, err := conn.Exec("PRAGMA case_sensitive_like = ON", nil); err != nil {
		return fmt.Errorf("make LIKE case-sensitive: %w", err)
	}
	return nil
}

// null reports whether a UDF argument is SQL NULL (go-sqlite3 passes nil []byte).
func null(x any) bool {
	if x == nil {
		return true
	}
	b, ok := x.([]byte)
	return ok && b == nil
}

func asInt(x any) (int64, bool) {
	switch v := x.(type) {
	case int64:
		return v, true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 9.2e18 {
			return int64(v), true
		}
	}
	return 0, false
}

func asFloat(x any) (float64, bool) {
	switch v := x.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case string:
		switch v {
		case "NaN":
			return math.NaN(), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

func asText(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}

func udfFarmFingerprint(x any) (any, error) {
	switch v := x.(type) {
	case string:
		return int64(Fingerprint64([]byte(v))), nil
	case []byte:
		if v == nil {
			return nil, nil
		}
		return int64(Fingerprint64(v)), nil
	case nil:
		return nil, nil
	}
	return nil, rtInvalid("FARM_FINGERPRINT expects STRING or BYTES, got %v", x)
}

func intOp(a, b any, op string, f func(x, y int64) (int64, bool), ff func(x, y float64) float64) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	x, ok1 := a.(int64)
	y, ok2 := b.(int64)
	if ok1 && ok2 {
		r, ok := f(x, y)
		if !ok {
			return nil, rtErr("int64 overflow: %d %s %d", x, op, y)
		}
		return r, nil
	}
	fx, ok1 := asFloat(a)
	fy, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, rtInvalid("operator %s expects numbers, got %v and %v", op, a, b)
	}
	return ff(fx, fy), nil
}

func udfAdd(a, b any) (any, error) {
	return intOp(a, b, "+", func(x, y int64) (int64, bool) {
		r := x + y
		return r, (r > x) == (y > 0)
	}, func(x, y float64) float64 { return x + y })
}

func udfSub(a, b any) (any, error) {
	return intOp(a, b, "-", func(x, y int64) (int64, bool) {
		r := x - y
		return r, (r < x) == (y > 0)
	}, func(x, y float64) float64 { return x - y })
}

func udfMul(a, b any) (any, error) {
	return intOp(a, b, "*", func(x, y int64) (int64, bool) {
		if x == 0 || y == 0 {
			return 0, true
		}
		r := x * y
		if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return 0, false
		}
		return r, true
	}, func(x, y float64) float64 { return x * y })
}

func udfDiv(a, b any) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	x, ok1 := asFloat(a)
	y, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, rtInvalid("operator / expects numbers, got %v and %v", a, b)
	}
	if y == 0 {
		return nil, rtErr("division by zero: %v / %v", a, b)
	}
	return value.StoreFloat(x / y), nil
}

func intArgs(fn string, a, b any) (int64, int64, bool, error) {
	if null(a) || null(b) {
		return 0, 0, true, nil
	}
	x, ok1 := asInt(a)
	y, ok2 := asInt(b)
	if !ok1 || !ok2 {
		return 0, 0, false, rtInvalid("%s expects INT64 arguments, got %v and %v", fn, a, b)
	}
	return x, y, false, nil
}

func udfIntDiv(a, b any) (any, error) {
	x, y, isNull, err := intArgs("DIV", a, b)
	if err != nil || isNull {
		return nil, err
	}
	if y == 0 {
		return nil, rtErr("division by zero: DIV(%d, %d)", x, y)
	}
	if x == math.MinInt64 && y == -1 {
		return nil, rtErr("int64 overflow: DIV(%d, %d)", x, y)
	}
	return x / y, nil
}

func udfMod(a, b any) (any, error) {
	x, y, isNull, err := intArgs("MOD", a, b)
	if err != nil || isNull {
		return nil, err
	}
	if y == 0 {
		return nil, rtErr("division by zero: MOD(%d, %d)", x, y)
	}
	return x % y, nil
}

func udfBitXor(a, b any) (any, error) {
	x, y, isNull, err := intArgs("^", a, b)
	if err != nil || isNull {
		return nil, err
	}
	return x ^ y, nil
}

func udfShift(a, b any, left int64) (any, error) {
	x, y, isNull, err := intArgs("shift", a, b)
	if err != nil || isNull {
		return nil, err
	}
	if y < 0 {
		return nil, rtErr("bit shift by a negative amount: %d", y)
	}
	if y >= 64 {
		return int64(0), nil
	}
	if left == 1 {
		return x << uint(y), nil
	}
	return int64(uint64(x) >> uint(y)), nil
}

func udfNumericCmp(a, b any) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	x, ok1 := numericRat(a)
	y, ok2 := numericRat(b)
	if !ok1 || !ok2 {
		return nil, rtInvalid("cannot compare %v and %v as NUMERIC", a, b)
	}
	return int64(x.Cmp(y)), nil
}

func numericRat(x any) (*big.Rat, bool) {
	switch v := x.(type) {
	case int64:
		return new(big.Rat).SetInt64(v), true
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(v), true
	case string:
		return new(big.Rat).SetString(v)
	}
	return nil, false
}

func udfLower(x any) any {
	switch v := x.(type) {
	case string:
		return strings.ToLower(v)
	case []byte:
		if v == nil {
			return nil
		}
		return []byte(asciiCase(string(v), false))
	}
	return nil
}

func udfUpper(x any) any {
	switch v := x.(type) {
	case string:
		return strings.ToUpper(v)
	case []byte:
		if v == nil {
			return nil
		}
		return []byte(asciiCase(string(v), true))
	}
	return nil
}

func asciiCase(s string, up bool) string {
	b := []byte(s)
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 32
		} else if !up && c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// udfSubstr is SUBSTR(value, position[, length]) with Spanner's rules: 1-based
// position, 0 treated as 1, negative counting from the end; characters for STRING,
// bytes for BYTES.
func udfSubstr(args ...any) (any, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, rtInvalid("SUBSTR expects 2 or 3 arguments")
	}
	for _, a := range args {
		if null(a) {
			return nil, nil
		}
	}
	pos, ok := asInt(args[1])
	if !ok {
		return nil, rtInvalid("SUBSTR position must be INT64")
	}
	length := int64(math.MaxInt64)
	if len(args) == 3 {
		if length, ok = asInt(args[2]); !ok {
			return nil, rtInvalid("SUBSTR length must be INT64")
		}
		if length < 0 {
			return nil, rtErr("Third argument in SUBSTR() cannot be negative")
		}
	}
	cut := func(n int64) (int64, int64) {
		start := pos
		switch {
		case start > 0:
			start--
		case start < 0:
			start = n + start
			if start < 0 {
				start = 0
			}
		}
		if start > n {
			start = n
		}
		end := n
		if length < n-start {
			end = start + length
		}
		return start, end
	}
	switch v := args[0].(type) {
	case string:
		r := []rune(v)
		s, e := cut(int64(len(r)))
		return string(r[s:e]), nil
	case []byte:
		s, e := cut(int64(len(v)))
		return append([]byte{}, v[s:e]...), nil
	}
	return nil, rtInvalid("SUBSTR expects STRING or BYTES")
}

func udfStartsWith(a, b any) any {
	if null(a) || null(b) {
		return nil
	}
	x, _ := asText(a)
	y, _ := asText(b)
	return strings.HasPrefix(x, y)
}

func udfEndsWith(a, b any) any {
	if null(a) || null(b) {
		return nil
	}
	x, _ := asText(a)
	y, _ := asText(b)
	return strings.HasSuffix(x, y)
}

// udfTrim removes Unicode whitespace: side 0 both ends, 1 leading, 2 trailing. BYTES
// values lose ASCII spaces only.
func udfTrim(a any, side int64) any {
	trim := func(s string) string {
		switch side {
		case 1:
			return strings.TrimLeftFunc(s, unicode.IsSpace)
		case 2:
			return strings.TrimRightFunc(s, unicode.IsSpace)
		}
		return strings.TrimFunc(s, unicode.IsSpace)
	}
	switch v := a.(type) {
	case string:
		return trim(v)
	case []byte:
		if v == nil {
			return nil
		}
		cut := " "
		switch side {
		case 1:
			return []byte(strings.TrimLeft(string(v), cut))
		case 2:
			return []byte(strings.TrimRight(string(v), cut))
		}
		return []byte(strings.Trim(string(v), cut))
	}
	return nil
}

func udfRepeat(a, n any) (any, error) {
	if null(a) || null(n) {
		return nil, nil
	}
	k, ok := asInt(n)
	if !ok || k < 0 {
		return nil, rtErr("REPEAT count must be a non-negative INT64")
	}
	s, _ := asText(a)
	if int64(len(s))*k > 1<<24 {
		return nil, rtErr("REPEAT result is too large")
	}
	out := strings.Repeat(s, int(k))
	if _, isB := a.([]byte); isB {
		return []byte(out), nil
	}
	return out, nil
}

func udfReverse(a any) any {
	switch v := a.(type) {
	case string:
		r := []rune(v)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	case []byte:
		if v == nil {
			return nil
		}
		out := make([]byte, len(v))
		for i := range v {
			out[len(v)-1-i] = v[i]
		}
		return out
	}
	return nil
}

func udfPad(a, n, pad any, left int64) (any, error) {
	if null(a) || null(n) || null(pad) {
		return nil, nil
	}
	k, ok := asInt(n)
	if !ok || k < 0 || k > 1<<20 {
		return nil, rtErr("LPAD/RPAD length must be between 0 and 1048576")
	}
	s, _ := asText(a)
	p, _ := asText(pad)
	r, pr := []rune(s), []rune(p)
	if int64(len(r)) >= k {
		return string(r[:k]), nil
	}
	if len(pr) == 0 {
		return nil, rtErr("LPAD/RPAD pattern cannot be empty")
	}
	fill := make([]rune, 0, int(k)-len(r))
	for len(fill) < int(k)-len(r) {
		fill = append(fill, pr[len(fill)%len(pr)])
	}
	if left == 1 {
		return string(fill) + s, nil
	}
	return s + string(fill), nil
}

func udfSplit(a, sep any) (any, error) {
	if null(a) {
		return nil, nil
	}
	s, _ := asText(a)
	d := ","
	if !null(sep) {
		d, _ = asText(sep)
	}
	var parts []string
	if d == "" {
		for _, r := range s {
			parts = append(parts, string(r))
		}
		if s == "" {
			parts = []string{""}
		}
	} else {
		parts = strings.Split(s, d)
	}
	cells := make([]any, len(parts))
	for i, p := range parts {
		cells[i] = p
	}
	return value.EncodeArrayCells(cells), nil
}

var regexps sync.Map // pattern -> *regexp.Regexp

func compileRegexp(p string) (*regexp.Regexp, error) {
	if r, ok := regexps.Load(p); ok {
		return r.(*regexp.Regexp), nil
	}
	r, err := regexp.Compile(p)
	if err != nil {
		return nil, rtInvalid("Cannot parse regular expression: %v", err)
	}
	regexps.Store(p, r)
	return r, nil
}

func udfRegexpContains(a, re any) (any, error) {
	if null(a) || null(re) {
		return nil, nil
	}
	p, _ := asText(re)
	r, err := compileRegexp(p)
	if err != nil {
		return nil, err
	}
	s, _ := asText(a)
	return r.MatchString(s), nil
}

func udfRegexpExtract(a, re any) (any, error) {
	if null(a) || null(re) {
		return nil, nil
	}
	p, _ := asText(re)
	r, err := compileRegexp(p)
	if err != nil {
		return nil, err
	}
	if r.NumSubexp() > 1 {
		return nil, rtInvalid("Regular expressions passed into extraction functions must not have more than 1 capturing group")
	}
	s, _ := asText(a)
	m := r.FindStringSubmatch(s)
	switch {
	case m == nil:
		return nil, nil
	case len(m) > 1:
		return m[1], nil
	}
	return m[0], nil
}

func udfRegexpReplace(a, re, rep any) (any, error) {
	if null(a) || null(re) || null(rep) {
		return nil, nil
	}
	p, _ := asText(re)
	r, err := compileRegexp(p)
	if err != nil {
		return nil, err
	}
	s, _ := asText(a)
	t, _ := asText(rep)
	// GoogleSQL writes \1 for a group; Go's template syntax is ${1}.
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] == '\\' && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' {
			b.WriteString("${" + string(t[i+1]) + "}")
			i++
			continue
		}
		if t[i] == '$' {
			b.WriteString("$$")
			continue
		}
		b.WriteByte(t[i])
	}
	return r.ReplaceAllString(s, b.String()), nil
}

func udfHash(name string, a any) any {
	if null(a) {
		return nil
	}
	s, _ := asText(a)
	switch name {
	case "MD5":
		h := md5.Sum([]byte(s))
		return h[:]
	case "SHA1":
		h := sha1.Sum([]byte(s))
		return h[:]
	case "SHA256":
		h := sha256.Sum256([]byte(s))
		return h[:]
	}
	h := sha512.Sum512([]byte(s))
	return h[:]
}

func udfBase64(a any) any {
	if null(a) {
		return nil
	}
	s, _ := asText(a)
	return base64.StdEncoding.EncodeToString([]byte(s))
}

func udfUnbase64(a any) (any, error) {
	if null(a) {
		return nil, nil
	}
	s, _ := asText(a)
	b, err := value.DecodeBase64(s)
	if err != nil {
		return nil, rtInvalid("Invalid base64 value: %q", s)
	}
	return b, nil
}

func udfMath(name string, args ...any) (any, error) {
	fs := make([]float64, len(args))
	for i, a := range args {
		if null(a) {
			return nil, nil
		}
		f, ok := asFloat(a)
		if !ok {
			return nil, rtInvalid("%s expects numbers", name)
		}
		fs[i] = f
	}
	x := fs[0]
	var r float64
	switch name {
	case "ROUND":
		if len(fs) == 2 {
			p := math.Pow(10, fs[1])
			r = math.Round(x*p) / p
		} else {
			r = math.Round(x)
		}
	case "TRUNC":
		if len(fs) == 2 {
			p := math.Pow(10, fs[1])
			r = math.Trunc(x*p) / p
		} else {
			r = math.Trunc(x)
		}
	case "CEIL":
		r = math.Ceil(x)
	case "FLOOR":
		r = math.Floor(x)
	case "SQRT":
		if x < 0 {
			return nil, rtErr("Argument to SQRT cannot be negative: %v", x)
		}
		r = math.Sqrt(x)
	case "POW":
		r = math.Pow(x, fs[1])
		if math.IsNaN(r) && !math.IsNaN(x) && !math.IsNaN(fs[1]) {
			return nil, rtErr("Floating point error in function: POW(%v, %v)", x, fs[1])
		}
	case "EXP":
		r = math.Exp(x)
	case "LN":
		if x <= 0 {
			return nil, rtErr("Argument to LN must be positive: %v", x)
		}
		r = math.Log(x)
	case "LOG10":
		if x <= 0 {
			return nil, rtErr("Argument to LOG10 must be positive: %v", x)
		}
		r = math.Log10(x)
	case "LOG":
		if x <= 0 || (len(fs) == 2 && (fs[1] <= 0 || fs[1] == 1)) {
			return nil, rtErr("Invalid arguments to LOG")
		}
		r = math.Log(x)
		if len(fs) == 2 {
			r /= math.Log(fs[1])
		}
	default:
		return nil, rtInvalid("unknown math function %s", name)
	}
	if math.IsInf(r, 0) && !math.IsInf(x, 0) {
		return nil, rtErr("Floating point overflow in function %s", name)
	}
	return value.StoreFloat(r), nil
}

func udfError(msg any) (any, error) {
	s, _ := asText(msg)
	return nil, rtErr("%s", s)
}

func udfUUID() string { return value.NewUUID() }

var _ = utf8.ValidString
