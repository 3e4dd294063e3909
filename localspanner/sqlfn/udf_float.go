package sqlfn

import (
	"math"

	"github.com/spanload/spanload/localspanner/value"
)

// Aggregates over FLOAT64 / FLOAT32 with GoogleSQL's NaN and infinity rules, which
// SQLite's own sum/avg/min/max break (they read the stored TEXT 'NaN' as 0 or as a
// string greater than every number, and turn inf + -inf into NULL):
//   - SUM and AVG: NaN if any input is NaN, or if +inf and -inf are both summed;
//   - MIN and MAX: NaN if any input is NaN;
//   - every one: NULL over no non-NULL input.

// floatAgg is one of sp_float_sum, sp_float_avg, sp_float_min, sp_float_max.
type floatAgg struct {
	kind  string // "sum", "avg", "min", "max"
	acc   float64
	n     int64
	badIn any
}

func (a *floatAgg) Step(x any) {
	if null(x) {
		return
	}
	f, ok := asFloat(x)
	if !ok {
		a.badIn = x
		return
	}
	if a.n == 0 {
		a.acc = f
		a.n = 1
		return
	}
	a.n++
	switch {
	case math.IsNaN(a.acc):
	case math.IsNaN(f):
		a.acc = f
	case a.kind == "min":
		a.acc = math.Min(a.acc, f)
	case a.kind == "max":
		a.acc = math.Max(a.acc, f)
	default:
		a.acc += f
	}
}

func (a *floatAgg) Done() (any, error) {
	if a.badIn != nil {
		return nil, rtInvalid("not a FLOAT64: %v", a.badIn)
	}
	if a.n == 0 {
		return nil, nil
	}
	if a.kind == "avg" {
		return value.StoreFloat(a.acc / float64(a.n)), nil
	}
	return value.StoreFloat(a.acc), nil
}

// udfIsNaN is IS_NAN over a FLOAT64 cell (NaN is stored as the TEXT 'NaN').
func udfIsNaN(x any) any {
	if null(x) {
		return nil
	}
	f, ok := asFloat(x)
	return ok && math.IsNaN(f)
}

// udfIsInf is IS_INF over a FLOAT64 cell.
func udfIsInf(x any) any {
	if null(x) {
		return nil
	}
	f, ok := asFloat(x)
	return ok && math.IsInf(f, 0)
}
