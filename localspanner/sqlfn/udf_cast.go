package sqlfn

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/value"
)

// CastSupported lists the conversions CAST allows between scalar types.
func CastSupported(from, to spannerpb.TypeCode) bool {
	if from == to {
		return true
	}
	T := spannerpb.TypeCode_TIMESTAMP
	switch from {
	case spannerpb.TypeCode_INT64:
		return to == spannerpb.TypeCode_FLOAT64 || to == spannerpb.TypeCode_FLOAT32 || to == spannerpb.TypeCode_STRING ||
			to == spannerpb.TypeCode_BOOL || to == spannerpb.TypeCode_NUMERIC
	case spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32:
		return to == spannerpb.TypeCode_INT64 || to == spannerpb.TypeCode_STRING || to == spannerpb.TypeCode_NUMERIC ||
			to == spannerpb.TypeCode_FLOAT64 || to == spannerpb.TypeCode_FLOAT32
	case spannerpb.TypeCode_NUMERIC:
		return to == spannerpb.TypeCode_INT64 || to == spannerpb.TypeCode_STRING || to == spannerpb.TypeCode_FLOAT64 || to == spannerpb.TypeCode_FLOAT32
	case spannerpb.TypeCode_BOOL:
		return to == spannerpb.TypeCode_INT64 || to == spannerpb.TypeCode_STRING
	case spannerpb.TypeCode_STRING:
		return to != spannerpb.TypeCode_JSON && to != spannerpb.TypeCode_STRUCT && to != spannerpb.TypeCode_ARRAY
	case spannerpb.TypeCode_BYTES:
		return to == spannerpb.TypeCode_STRING || to == spannerpb.TypeCode_UUID
	case spannerpb.TypeCode_UUID:
		return to == spannerpb.TypeCode_STRING || to == spannerpb.TypeCode_BYTES
	case spannerpb.TypeCode_DATE:
		return to == spannerpb.TypeCode_STRING || to == T
	case T:
		return to == spannerpb.TypeCode_STRING || to == spannerpb.TypeCode_DATE
	}
	return false
}

func udfCast(x any, from, to string) (any, error) {
	if null(x) {
		return nil, nil
	}
	return castValue(x, from, to)
}

func udfSafeCast(x any, from, to string) any {
	if null(x) {
		return nil
	}
	v, err := castValue(x, from, to)
	if err != nil {
		return nil
	}
	return v
}

// toFloat32 is a cast's FLOAT32 result: f rounded to single precision, an error past
// its range.
func toFloat32(f float64) (any, error) {
	r, ok := value.RoundFloat32(f)
	if !ok {
		return nil, rtErr("Floating point overflow: %v is out of range for FLOAT32", f)
	}
	return value.StoreFloat(r), nil
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// castValue converts a storage cell of type from (a GoogleSQL type name) to to.
func castValue(x any, from, to string) (any, error) {
	bad := func() (any, error) { return nil, rtErr("Bad %s value: %v", strings.ToLower(to), x) }
	switch from {
	case "INT64", "BOOL":
		i, ok := asInt(x)
		if !ok {
			return bad()
		}
		switch to {
		case "FLOAT64":
			return float64(i), nil
		case "FLOAT32":
			return toFloat32(float64(i))
		case "STRING":
			if from == "BOOL" {
				return strconv.FormatBool(i != 0), nil
			}
			return strconv.FormatInt(i, 10), nil
		case "BOOL":
			return i != 0, nil
		case "INT64":
			return i, nil
		case "NUMERIC":
			return strconv.FormatInt(i, 10), nil
		}
	case "FLOAT64", "FLOAT32":
		f, ok := asFloat(x)
		if !ok {
			return bad()
		}
		switch to {
		case "INT64":
			r := math.Round(f)
			if math.IsNaN(f) || r < -9.223372036854775808e18 || r >= 9.223372036854775808e18 {
				return nil, rtErr("Illegal conversion of non-finite or out of range floating point value %v to INT64", f)
			}
			return int64(r), nil
		case "STRING":
			return formatFloat(f), nil
		case "NUMERIC":
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, rtErr("Illegal conversion of %v to NUMERIC", f)
			}
			n, err := value.CanonicalNumeric(strconv.FormatFloat(math.Round(f*1e9)/1e9, 'f', -1, 64))
			if err != nil {
				return nil, rtErr("NUMERIC out of range: %v", f)
			}
			return n, nil
		case "FLOAT64":
			return value.StoreFloat(f), nil
		case "FLOAT32":
			return toFloat32(f)
		}
	case "NUMERIC":
		s, _ := asText(x)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad()
		}
		switch to {
		case "STRING":
			return s, nil
		case "FLOAT64":
			return f, nil
		case "FLOAT32":
			return toFloat32(f)
		case "INT64":
			r := math.Round(f)
			if r < -9.223372036854775808e18 || r >= 9.223372036854775808e18 {
				return nil, rtErr("int64 overflow casting %s", s)
			}
			return int64(r), nil
		}
	case "STRING":
		s, _ := asText(x)
		return castFromString(s, to)
	case "UUID":
		s, _ := asText(x)
		switch to {
		case "STRING":
			return s, nil
		case "BYTES":
			if b, ok := value.UUIDToBytes(s); ok {
				return b, nil
			}
			return bad()
		}
	case "BYTES":
		s, _ := asText(x)
		if to == "UUID" {
			if len(s) != 16 {
				return nil, rtErr("Invalid UUID bytes: want 16 bytes, got %d", len(s))
			}
			return value.FormatUUID([]byte(s)), nil
		}
		if to == "STRING" {
			if !utf8.ValidString(s) {
				return nil, rtErr("Invalid UTF-8 in BYTES to STRING cast")
			}
			return s, nil
		}
	case "DATE":
		s, _ := asText(x)
		switch to {
		case "STRING":
			return s, nil
		case "TIMESTAMP":
			d, err := time.ParseInLocation("2006-01-02", s, DefaultZone())
			if err != nil {
				return bad()
			}
			return value.FormatTimestamp(d), nil
		}
	case "TIMESTAMP":
		t, err := parseStoredTimestamp(x)
		if err != nil {
			return bad()
		}
		switch to {
		case "STRING":
			return formatTimestampString(t, DefaultZone()), nil
		case "DATE":
			return t.In(DefaultZone()).Format("2006-01-02"), nil
		}
	}
	return nil, rtInvalid("Invalid cast from %s to %s", from, to)
}

func castFromString(s, to string) (any, error) {
	bad := func() (any, error) { return nil, rtErr("Bad %s value: %s", strings.ToLower(to), s) }
	t := strings.TrimSpace(s)
	switch to {
	case "STRING":
		return s, nil
	case "BYTES":
		return []byte(s), nil
	case "INT64":
		neg := strings.HasPrefix(t, "-")
		u := strings.TrimPrefix(strings.TrimPrefix(t, "-"), "+")
		if strings.HasPrefix(u, "0x") || strings.HasPrefix(u, "0X") {
			n, err := strconv.ParseUint(u[2:], 16, 64)
			if err != nil || n > math.MaxInt64 {
				return bad()
			}
			if neg {
				return -int64(n), nil
			}
			return int64(n), nil
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return bad()
		}
		return n, nil
	case "FLOAT64", "FLOAT32":
		switch strings.ToLower(t) {
		case "nan", "+nan", "-nan":
			return "NaN", nil
		case "inf", "+inf", "infinity", "+infinity":
			return math.Inf(1), nil
		case "-inf", "-infinity":
			return math.Inf(-1), nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return bad()
		}
		if to == "FLOAT32" {
			return toFloat32(f)
		}
		return f, nil
	case "BOOL":
		switch strings.ToLower(t) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return bad()
	case "DATE":
		d, err := value.ParseDate(t)
		if err != nil {
			return bad()
		}
		return d, nil
	case "TIMESTAMP":
		ts, err := ParseTimestampLiteral(t)
		if err != nil {
			return bad()
		}
		return ts, nil
	case "NUMERIC":
		n, err := value.RoundNumeric(t)
		if err != nil {
			return bad()
		}
		return n, nil
	case "UUID":
		u, err := value.ParseUUID(t)
		if err != nil {
			return nil, rtErr("Invalid UUID string: %s", s)
		}
		return u, nil
	}
	return nil, rtInvalid("Invalid cast from STRING to %s", to)
}
