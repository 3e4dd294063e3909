package sqlfn

import (
	"math/big"
	"strings"

	"github.com/spanload/spanload/localspanner/value"
)

// NUMERIC cells are canonical decimal text; these functions do NUMERIC arithmetic,
// ordering and aggregation exactly (precision 38, scale 9, rounding half away from zero).

func numericText(r *big.Rat) (string, error) {
	s, err := value.CanonicalNumeric(r.FloatString(9))
	if err != nil {
		return "", rtErr("numeric overflow: %s", r.FloatString(9))
	}
	return s, nil
}

func udfNumericOp(a, b any, op string) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	x, ok1 := numericRat(a)
	y, ok2 := numericRat(b)
	if !ok1 || !ok2 {
		return nil, rtInvalid("operator %s expects NUMERIC values, got %v and %v", op, a, b)
	}
	r := new(big.Rat)
	switch op {
	case "+":
		r.Add(x, y)
	case "-":
		r.Sub(x, y)
	case "*":
		r.Mul(x, y)
	case "/":
		if y.Sign() == 0 {
			return nil, rtErr("division by zero: %v / %v", a, b)
		}
		r.Quo(x, y)
	default:
		return nil, rtInvalid("unknown NUMERIC operator %s", op)
	}
	return numericText(r)
}

// udfNumericKey maps a NUMERIC to text that sorts as the number does: a sign digit,
// then 29 integer and 9 fraction digits, complemented for negative numbers.
func udfNumericKey(a any) (any, error) {
	if null(a) {
		return nil, nil
	}
	s, ok := asText(a)
	if !ok {
		return nil, rtInvalid("not a NUMERIC: %v", a)
	}
	neg := strings.HasPrefix(s, "-")
	intPart, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	digits := strings.Repeat("0", 29-min(29, len(intPart))) + intPart + frac + strings.Repeat("0", 9-min(9, len(frac)))
	if !neg {
		return "1" + digits, nil
	}
	b := []byte(digits)
	for i, c := range b {
		b[i] = '9' - c + '0'
	}
	return "0" + string(b), nil
}

func udfNumericUnkey(k any) (any, error) {
	if null(k) {
		return nil, nil
	}
	s, _ := asText(k)
	if len(s) != 39 {
		return nil, rtInvalid("not a NUMERIC sort key: %q", s)
	}
	digits := []byte(s[1:])
	sign := ""
	if s[0] == '0' {
		sign = "-"
		for i, c := range digits {
			digits[i] = '9' - c + '0'
		}
	}
	n, err := value.CanonicalNumeric(sign + string(digits[:29]) + "." + string(digits[29:]))
	if err != nil {
		return nil, rtInvalid("bad NUMERIC sort key %q", s)
	}
	return n, nil
}

// numericSum is the SUM / AVG aggregate over NUMERIC.
type numericSum struct {
	sum   *big.Rat
	n     int64
	avg   bool
	badIn any
}

func (s *numericSum) Step(x any) {
	if null(x) {
		return
	}
	r, ok := numericRat(x)
	if !ok {
		s.badIn = x
		return
	}
	if s.sum == nil {
		s.sum = new(big.Rat)
	}
	s.sum.Add(s.sum, r)
	s.n++
}

func (s *numericSum) Done() (any, error) {
	if s.badIn != nil {
		return nil, rtInvalid("not a NUMERIC: %v", s.badIn)
	}
	if s.n == 0 {
		return nil, nil
	}
	r := s.sum
	if s.avg {
		r = new(big.Rat).Quo(s.sum, new(big.Rat).SetInt64(s.n))
	}
	return numericText(r)
}

// udfFloatOp is FLOAT64 + - * with IEEE results (NaN, ±Inf), which SQLite would turn
// into NULL, and NaN operands, which SQLite would read as 0.
func udfFloatOp(a, b any, op string) (any, error) {
	if null(a) || null(b) {
		return nil, nil
	}
	x, ok1 := asFloat(a)
	y, ok2 := asFloat(b)
	if !ok1 || !ok2 {
		return nil, rtInvalid("operator %s expects FLOAT64 values, got %v and %v", op, a, b)
	}
	var r float64
	switch op {
	case "+":
		r = x + y
	case "-":
		r = x - y
	case "*":
		r = x * y
	default:
		return nil, rtInvalid("unknown FLOAT64 operator %s", op)
	}
	return value.StoreFloat(r), nil
}

// udfSafeOp is SAFE_ADD/SUBTRACT/MULTIPLY/DIVIDE (NULL instead of an error) and
// IEEE_DIVIDE (op "ieee/": IEEE results for division by zero); t is the result type.
func udfSafeOp(a, b any, op, t string) any {
	if null(a) || null(b) {
		return nil
	}
	var r any
	var err error
	switch {
	case op == "ieee/":
		x, ok1 := asFloat(a)
		y, ok2 := asFloat(b)
		if !ok1 || !ok2 {
			return nil
		}
		return value.StoreFloat(x / y)
	case op == "/":
		r, err = udfDiv(a, b)
	case t == "INT64":
		switch op {
		case "+":
			r, err = udfAdd(a, b)
		case "-":
			r, err = udfSub(a, b)
		case "*":
			r, err = udfMul(a, b)
		}
	default:
		r, err = udfFloatOp(a, b, op)
	}
	if err != nil {
		return nil
	}
	return r
}
