package value

import (
	"encoding/json"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// STRUCT values cannot be stored in a column, but queries use them (parameters,
// STRUCT(...) expressions, SELECT AS STRUCT). A STRUCT cell is the JSON array of its
// field encodings, as an ARRAY's; an ARRAY<STRUCT> cell nests those arrays.

// structJSON is a cell already in JSON form (a STRUCT inside an ARRAY).
type structJSON string

func structToSQLite(v *structpb.Value, t *spannerpb.Type) (string, error) {
	lv, ok := v.Kind.(*structpb.Value_ListValue)
	fields := t.GetStructType().GetFields()
	if !ok || len(lv.ListValue.GetValues()) != len(fields) {
		return "", invalid("Invalid value for %s: %s", TypeString(t), describe(v))
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fv := lv.ListValue.Values[i]
		if isNull(fv) {
			b.WriteString("null")
			continue
		}
		switch f.GetType().GetCode() {
		case spannerpb.TypeCode_STRUCT:
			s, err := structToSQLite(fv, f.GetType())
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case spannerpb.TypeCode_ARRAY:
			s, err := arrayToSQLite(fv, f.GetType().GetArrayElementType())
			if err != nil {
				return "", err
			}
			b.WriteString(s.(string))
		default:
			cell, err := ToSQLite(fv, f.GetType())
			if err != nil {
				return "", err
			}
			appendJSONCell(&b, cell)
		}
	}
	b.WriteByte(']')
	return b.String(), nil
}

func structFromSQLite(s string, t *spannerpb.Type) (*structpb.Value, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, spanerr.New(codes.Internal, "STRUCT cell %q is not a JSON array: %v", s, err)
	}
	fields := t.GetStructType().GetFields()
	if len(raw) != len(fields) {
		return nil, spanerr.New(codes.Internal, "STRUCT cell %q has %d fields, want %d", s, len(raw), len(fields))
	}
	out := make([]*structpb.Value, len(raw))
	for i, f := range fields {
		v, err := jsonElemToWire(raw[i], f.GetType())
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return structpb.NewListValue(&structpb.ListValue{Values: out}), nil
}

// jsonElemToWire converts one JSON element of an ARRAY or STRUCT cell to a wire value.
func jsonElemToWire(raw json.RawMessage, t *spannerpb.Type) (*structpb.Value, error) {
	if string(raw) == "null" {
		return structpb.NewNullValue(), nil
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_STRUCT:
		return structFromSQLite(string(raw), t)
	case spannerpb.TypeCode_ARRAY:
		return FromSQLite(string(raw), t)
	}
	cells, err := DecodeArrayCells("[" + string(raw) + "]")
	if err != nil {
		return nil, err
	}
	if t.GetCode() == spannerpb.TypeCode_BYTES {
		return structpb.NewStringValue(cellText(cells[0])), nil
	}
	return FromSQLite(cells[0], t)
}
