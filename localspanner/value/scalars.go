package value

import (
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

var (
	minTimestamp = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTimestamp = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// ParseTimestamp parses an RFC 3339 timestamp with any offset and precision (up to
// nanoseconds), as Spanner accepts on the wire, and checks Spanner's range.
func ParseTimestamp(s string) (time.Time, error) {
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// Spanner also accepts a lower-case 't'/'z' and a space as separator.
		alt := strings.ToUpper(strings.Replace(s, " ", "T", 1))
		if ts, err = time.Parse(time.RFC3339Nano, alt); err != nil {
			return time.Time{}, invalid("Invalid value for TIMESTAMP: %q", s)
		}
	}
	ts = ts.UTC()
	if ts.Before(minTimestamp) || ts.After(maxTimestamp) {
		return time.Time{}, spanerr.New(codes.OutOfRange, "TIMESTAMP out of range: %q", s)
	}
	return ts, nil
}

// FormatTimestamp returns the storage encoding of a TIMESTAMP: fixed-width UTC text
// with nine fractional digits, which sorts as time does.
func FormatTimestamp(t time.Time) string {
	return t.UTC().Format(StorageTimestampLayout)
}

// WireTimestamp returns the wire text of a TIMESTAMP: RFC 3339 in UTC with as many
// fractional digits as needed (none for whole seconds), as Spanner sends it.
func WireTimestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseDate checks a DATE's text 'YYYY-MM-DD' and returns it canonical.
func ParseDate(s string) (string, error) {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		return "", invalid("Invalid value for DATE: %q", s)
	}
	return d.Format("2006-01-02"), nil
}

// CanonicalNumeric returns the canonical text of a NUMERIC (precision 38, scale 9):
// optional '-', no leading zeros, no trailing fractional zeros, "0" for zero. It reads
// decimal and scientific notation ("1.5", ".5", "1E-9"), as the wire format allows; a
// value with more than 9 fractional digits or 29 integer digits is OUT_OF_RANGE.
func CanonicalNumeric(s string) (string, error) {
	return parseNumeric(s, false)
}

// RoundNumeric is CanonicalNumeric for CAST and NUMERIC literals: more than 9
// fractional digits round half away from zero (GoogleSQL's conversion rules).
func RoundNumeric(s string) (string, error) {
	return parseNumeric(s, true)
}

// maxNumericExponent bounds the exponent of scientific notation: past it every
// non-zero value is out of range or rounds to zero.
const maxNumericExponent = 100

func parseNumeric(s string, round bool) (string, error) {
	bad := func() (string, error) { return "", invalid("Invalid value for NUMERIC: %q", s) }
	tooBig := func() (string, error) {
		return "", spanerr.New(codes.OutOfRange, "NUMERIC value out of range or too precise: %q", s)
	}
	t := s
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	exp := 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.Atoi(t[i+1:])
		if err != nil || t[i+1:] == "" || t[i+1] == ' ' {
			return bad()
		}
		exp, t = e, t[:i]
	}
	intPart, frac, hasDot := strings.Cut(t, ".")
	if intPart == "" && (!hasDot || frac == "") {
		return bad()
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return bad()
			}
		}
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0", nil
	}
	if exp > maxNumericExponent || exp < -maxNumericExponent {
		if exp > 0 {
			return tooBig()
		}
		if !round {
			return tooBig()
		}
		return "0", nil
	}
	// Move the decimal point by exp.
	digits = intPart + frac
	point := len(intPart) + exp
	if point < 0 {
		digits = strings.Repeat("0", -point) + digits
		point = 0
	}
	if point > len(digits) {
		digits += strings.Repeat("0", point-len(digits))
	}
	intPart, frac = strings.TrimLeft(digits[:point], "0"), strings.TrimRight(digits[point:], "0")
	if len(frac) > 9 {
		if !round {
			return tooBig()
		}
		up := frac[9] >= '5'
		intPart, frac = roundUp(intPart, frac[:9], up)
		frac = strings.TrimRight(frac, "0")
	}
	if len(intPart) > 29 {
		return tooBig()
	}
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, nil
}

// roundUp adds one unit in the last fractional place to intPart.frac when up is set
// (frac has 9 digits), carrying into the integer part.
func roundUp(intPart, frac string, up bool) (string, string) {
	if !up {
		return intPart, frac
	}
	b := []byte(intPart + frac)
	i := len(b) - 1
	for ; i >= 0 && b[i] == '9'; i-- {
		b[i] = '0'
	}
	if i < 0 {
		b = append([]byte{'1'}, b...)
	} else {
		b[i]++
	}
	n := len(b) - len(frac)
	return strings.TrimLeft(string(b[:n]), "0"), string(b[n:])
}

// TypeString prints a Spanner type as GoogleSQL writes it, e.g. ARRAY<INT64>.
func TypeString(t *spannerpb.Type) string {
	switch t.GetCode() {
	case spannerpb.TypeCode_ARRAY:
		return "ARRAY<" + TypeString(t.GetArrayElementType()) + ">"
	case spannerpb.TypeCode_STRUCT:
		var b strings.Builder
		b.WriteString("STRUCT<")
		for i, f := range t.GetStructType().GetFields() {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.GetName() != "" {
				b.WriteString(f.GetName() + " ")
			}
			b.WriteString(TypeString(f.GetType()))
		}
		b.WriteString(">")
		return b.String()
	case spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED:
		return "untyped"
	}
	return t.GetCode().String()
}
