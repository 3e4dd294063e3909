// Package value converts Spanner wire values (structpb.Value + spannerpb.Type) to the
// SQLite storage encoding defined in package schema's doc comment, and back.
//
// Every layer that writes or reads user data should go through ToSQLite and FromSQLite,
// so that the query layer's compiled SQL and the storage agree on every cell.
package value

import (
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// CommitTimestamp is the wire sentinel for "the commit timestamp" in a TIMESTAMP
// column of a mutation. ToSQLite passes it through unchanged for TIMESTAMP.
const CommitTimestamp = "spanner.commit_timestamp()"

// StorageTimestampLayout is the fixed-width UTC text a TIMESTAMP is stored as.
const StorageTimestampLayout = "2006-01-02T15:04:05.000000000Z"

func invalid(format string, args ...any) error {
	return spanerr.New(codes.InvalidArgument, format, args...)
}

// ToSQLite converts a wire value of type t to its storage encoding: int64, float64,
// string, []byte or nil. Errors are gRPC statuses with codes.InvalidArgument.
func ToSQLite(v *structpb.Value, t *spannerpb.Type) (any, error) {
	if v == nil || isNull(v) {
		return nil, nil
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM:
		return toInt64(v)
	case spannerpb.TypeCode_FLOAT64:
		f, err := toFloat(v)
		if err != nil {
			return nil, err
		}
		return StoreFloat(f), nil
	case spannerpb.TypeCode_FLOAT32:
		f, err := toFloat(v)
		if err != nil {
			return nil, err
		}
		r, ok := RoundFloat32(f)
		if !ok {
			return nil, invalid("Invalid value for FLOAT32: %v is out of range", f)
		}
		return StoreFloat(r), nil
	case spannerpb.TypeCode_BOOL:
		b, ok := v.Kind.(*structpb.Value_BoolValue)
		if !ok {
			return nil, invalid("Invalid value for BOOL: %s", describe(v))
		}
		if b.BoolValue {
			return int64(1), nil
		}
		return int64(0), nil
	case spannerpb.TypeCode_STRING:
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for STRING: %s", describe(v))
		}
		return s.StringValue, nil
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO: // a PROTO value is its serialized message
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for BYTES: %s", describe(v))
		}
		b, err := DecodeBase64(s.StringValue)
		if err != nil {
			return nil, invalid("Invalid base64 value for BYTES: %v", err)
		}
		return b, nil
	case spannerpb.TypeCode_TIMESTAMP:
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for TIMESTAMP: %s", describe(v))
		}
		if s.StringValue == CommitTimestamp {
			return CommitTimestamp, nil
		}
		ts, err := ParseTimestamp(s.StringValue)
		if err != nil {
			return nil, err
		}
		return FormatTimestamp(ts), nil
	case spannerpb.TypeCode_DATE:
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for DATE: %s", describe(v))
		}
		d, err := ParseDate(s.StringValue)
		if err != nil {
			return nil, err
		}
		return d, nil
	case spannerpb.TypeCode_NUMERIC:
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for NUMERIC: %s", describe(v))
		}
		return CanonicalNumeric(s.StringValue)
	case spannerpb.TypeCode_JSON:
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for JSON: %s", describe(v))
		}
		return NormalizeJSON(s.StringValue)
	case spannerpb.TypeCode_UUID:
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, invalid("Invalid value for UUID: %s", describe(v))
		}
		return ParseUUID(s.StringValue)
	case spannerpb.TypeCode_ARRAY:
		return arrayToSQLite(v, t.GetArrayElementType())
	case spannerpb.TypeCode_STRUCT:
		return structToSQLite(v, t)
	default:
		return nil, spanerr.New(codes.Unimplemented, "values of type %s cannot be stored", TypeString(t))
	}
}

// FromSQLite converts a storage-encoded cell (as go-sqlite3 scans it: int64, float64,
// string, []byte, time.Time or nil) of type t to its wire value.
func FromSQLite(x any, t *spannerpb.Type) (*structpb.Value, error) {
	if x == nil {
		return structpb.NewNullValue(), nil
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM:
		i, err := cellInt64(x)
		if err != nil {
			return nil, err
		}
		return structpb.NewStringValue(strconv.FormatInt(i, 10)), nil
	case spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32:
		f, err := cellFloat(x)
		if err != nil {
			return nil, err
		}
		return WireFloat(f), nil
	case spannerpb.TypeCode_BOOL:
		i, err := cellInt64(x)
		if err != nil {
			return nil, err
		}
		return structpb.NewBoolValue(i != 0), nil
	case spannerpb.TypeCode_STRING, spannerpb.TypeCode_DATE, spannerpb.TypeCode_NUMERIC, spannerpb.TypeCode_JSON, spannerpb.TypeCode_UUID:
		return structpb.NewStringValue(cellText(x)), nil
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO: // a PROTO value is its serialized message
		switch b := x.(type) {
		case []byte:
			return structpb.NewStringValue(base64.StdEncoding.EncodeToString(b)), nil
		default:
			return structpb.NewStringValue(base64.StdEncoding.EncodeToString([]byte(cellText(x)))), nil
		}
	case spannerpb.TypeCode_TIMESTAMP:
		if tt, ok := x.(time.Time); ok {
			return structpb.NewStringValue(WireTimestamp(tt)), nil
		}
		s := cellText(x)
		if s == CommitTimestamp {
			return structpb.NewStringValue(s), nil
		}
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, spanerr.New(codes.Internal, "stored TIMESTAMP %q is not in the storage encoding", s)
		}
		return structpb.NewStringValue(WireTimestamp(ts)), nil
	case spannerpb.TypeCode_ARRAY:
		return arrayFromSQLite(cellText(x), t.GetArrayElementType())
	case spannerpb.TypeCode_STRUCT:
		return structFromSQLite(cellText(x), t)
	default:
		return nil, spanerr.New(codes.Unimplemented, "values of type %s cannot be read", TypeString(t))
	}
}

func isNull(v *structpb.Value) bool {
	_, ok := v.Kind.(*structpb.Value_NullValue)
	return ok || v.Kind == nil
}

func describe(v *structpb.Value) string {
	switch k := v.Kind.(type) {
	case *structpb.Value_StringValue:
		return strconv.Quote(k.StringValue)
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(k.NumberValue, 'g', -1, 64)
	case *structpb.Value_BoolValue:
		return strconv.FormatBool(k.BoolValue)
	case *structpb.Value_ListValue:
		return "a list"
	case *structpb.Value_StructValue:
		return "a struct"
	default:
		return "NULL"
	}
}

func toInt64(v *structpb.Value) (int64, error) {
	switch k := v.Kind.(type) {
	case *structpb.Value_StringValue:
		i, err := strconv.ParseInt(k.StringValue, 10, 64)
		if err != nil {
			return 0, invalid("Invalid value for INT64: %q", k.StringValue)
		}
		return i, nil
	case *structpb.Value_NumberValue:
		f := k.NumberValue
		if f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, invalid("Invalid value for INT64: %v", f)
		}
		return int64(f), nil
	default:
		return 0, invalid("Invalid value for INT64: %s", describe(v))
	}
}

func toFloat(v *structpb.Value) (float64, error) {
	switch k := v.Kind.(type) {
	case *structpb.Value_NumberValue:
		return k.NumberValue, nil
	case *structpb.Value_StringValue:
		switch k.StringValue {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		f, err := strconv.ParseFloat(k.StringValue, 64)
		if err != nil {
			return 0, invalid("Invalid value for FLOAT64: %q", k.StringValue)
		}
		return f, nil
	default:
		return 0, invalid("Invalid value for FLOAT64: %s", describe(v))
	}
}

// RoundFloat32 rounds f to the nearest FLOAT32 (IEEE single precision); a finite f
// beyond FLOAT32's range is not a FLOAT32 (ok false).
func RoundFloat32(f float64) (float64, bool) {
	r := float64(float32(f))
	if math.IsInf(r, 0) && !math.IsInf(f, 0) {
		return 0, false
	}
	return r, true
}

// StoreFloat returns the storage encoding of a FLOAT64: the float, or "NaN".
func StoreFloat(f float64) any {
	if math.IsNaN(f) {
		return "NaN"
	}
	return f
}

// WireFloat returns the wire value of a FLOAT64.
func WireFloat(f float64) *structpb.Value {
	switch {
	case math.IsNaN(f):
		return structpb.NewStringValue("NaN")
	case math.IsInf(f, 1):
		return structpb.NewStringValue("Infinity")
	case math.IsInf(f, -1):
		return structpb.NewStringValue("-Infinity")
	}
	return structpb.NewNumberValue(f)
}

func cellInt64(x any) (int64, error) {
	switch v := x.(type) {
	case int64:
		return v, nil
	case float64:
		if v == math.Trunc(v) && v >= -9.223372036854775808e18 && v < 9.223372036854775808e18 {
			return int64(v), nil
		}
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	case string:
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return i, nil
		}
	case []byte:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, nil
		}
	}
	return 0, spanerr.New(codes.Internal, "stored value %v (%T) is not an INT64", x, x)
}

func cellFloat(x any) (float64, error) {
	switch v := x.(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case string:
		return parseFloatText(v)
	case []byte:
		return parseFloatText(string(v))
	}
	return 0, spanerr.New(codes.Internal, "stored value %v (%T) is not a FLOAT64", x, x)
}

func parseFloatText(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity", "Inf", "inf":
		return math.Inf(1), nil
	case "-Infinity", "-Inf", "-inf":
		return math.Inf(-1), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0)) { // SQLite's 9.0e+999 is +inf
		return 0, spanerr.New(codes.Internal, "stored value %q is not a FLOAT64", s)
	}
	return f, nil
}

func cellText(x any) string {
	switch v := x.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case time.Time:
		return FormatTimestamp(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// DecodeBase64 decodes standard base64, padded or not.
func DecodeBase64(s string) ([]byte, error) {
	if len(s)%4 != 0 {
		return base64.RawStdEncoding.DecodeString(s)
	}
	return base64.StdEncoding.DecodeString(s)
}
