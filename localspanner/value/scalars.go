package value

import (
	"bytes"
	"encoding/json"
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
// optional '-', no leading zeros, no trailing fractional zeros, "0" for zero.
func CanonicalNumeric(s string) (string, error) {
	bad := func() (string, error) { return "", invalid("Invalid value for NUMERIC: %q", s) }
	t := s
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
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
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	if len(intPart) > 29 || len(frac) > 9 {
		return "", spanerr.New(codes.OutOfRange, "NUMERIC value out of range or too precise: %q", s)
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

// NormalizeJSON parses JSON text and prints it normalized: no insignificant
// whitespace, object keys sorted, numbers kept as written, no HTML escaping.
func NormalizeJSON(s string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", invalid("Invalid JSON value %q: %v", s, err)
	}
	if dec.More() {
		return "", invalid("Invalid JSON value %q: trailing data", s)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", invalid("Invalid JSON value %q: %v", s, err)
	}
	return strings.TrimRight(buf.String(), "\n"), nil
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
