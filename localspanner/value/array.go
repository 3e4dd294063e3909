package value

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// arrayToSQLite encodes a wire ARRAY as the JSON text of its element encodings:
// INT64 and BOOL (0/1) as integers, FLOAT64 as numbers or "NaN"/"Infinity"/"-Infinity",
// BYTES as base64 strings, every other type as its storage text, NULL as null.
func arrayToSQLite(v *structpb.Value, elem *spannerpb.Type) (any, error) {
	lv, ok := v.Kind.(*structpb.Value_ListValue)
	if !ok {
		return nil, invalid("Invalid value for ARRAY<%s>: %s", TypeString(elem), describe(v))
	}
	if elem.GetCode() == spannerpb.TypeCode_ARRAY {
		return nil, spanerr.New(codes.Unimplemented, "ARRAY<%s> cannot be stored", TypeString(elem))
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, ev := range lv.ListValue.GetValues() {
		if i > 0 {
			b.WriteByte(',')
		}
		var cell any
		var err error
		if elem.GetCode() == spannerpb.TypeCode_STRUCT && !isNull(ev) {
			js, e := structToSQLite(ev, elem)
			if e != nil {
				return nil, e
			}
			cell = structJSON(js)
		} else if isBytes(elem) {
			// Keep BYTES elements as their base64 text, after checking it.
			if !isNull(ev) {
				raw, e := ToSQLite(ev, elem)
				if e != nil {
					return nil, e
				}
				cell = base64.StdEncoding.EncodeToString(raw.([]byte))
			}
		} else {
			cell, err = ToSQLite(ev, elem)
			if err != nil {
				return nil, err
			}
		}
		appendJSONCell(&b, cell)
	}
	b.WriteByte(']')
	return b.String(), nil
}

// appendJSONCell writes one storage cell as a JSON array element.
func appendJSONCell(b *strings.Builder, cell any) {
	switch c := cell.(type) {
	case nil:
		b.WriteString("null")
	case int64:
		b.WriteString(strconv.FormatInt(c, 10))
	case float64:
		switch {
		case math.IsNaN(c):
			b.WriteString(`"NaN"`)
		case math.IsInf(c, 1):
			b.WriteString(`"Infinity"`)
		case math.IsInf(c, -1):
			b.WriteString(`"-Infinity"`)
		default:
			b.WriteString(strconv.FormatFloat(c, 'g', -1, 64))
		}
	case string:
		// As SQLite's JSON functions write strings (no HTML escaping), so that cells
		// built here and by json_array compare equal.
		var q strings.Builder
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(c)
		b.WriteString(strings.TrimSuffix(q.String(), "\n"))
	case []byte:
		b.WriteByte('"')
		b.WriteString(base64.StdEncoding.EncodeToString(c))
		b.WriteByte('"')
	case structJSON:
		b.WriteString(string(c))
	}
}

// EncodeArrayCells encodes storage cells of one element type as an ARRAY's storage
// text (BYTES cells as base64 strings).
func EncodeArrayCells(cells []any) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(',')
		}
		appendJSONCell(&b, c)
	}
	b.WriteByte(']')
	return b.String()
}

// DecodeArrayCells parses an ARRAY's storage text into element storage cells (int64,
// float64, string or nil; BYTES elements stay base64 text, NaN stays "NaN").
func DecodeArrayCells(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil {
		return nil, spanerr.New(codes.Internal, "stored ARRAY %q is not a JSON array: %v", s, err)
	}
	for i, e := range raw {
		switch x := e.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				raw[i] = n
			} else if f, err := x.Float64(); err == nil {
				raw[i] = f
			} else if f, err := strconv.ParseFloat(string(x), 64); math.IsInf(f, 0) && errors.Is(err, strconv.ErrRange) {
				// SQLite's JSON functions write +-Infinity as 9.0e+999 / -9.0e+999
				// (json_array, json_group_array: what ARRAY literals, ARRAY_AGG and
				// ARRAY(subquery) compile to); that is the transfinite value, not a fault.
				raw[i] = f
			} else {
				return nil, spanerr.New(codes.Internal, "stored ARRAY %q holds a bad number", s)
			}
		case bool:
			if x {
				raw[i] = int64(1)
			} else {
				raw[i] = int64(0)
			}
		case string, nil:
		default:
			// Nested JSON (an element of ARRAY<JSON> stored unquoted): keep its text.
			q, _ := json.Marshal(x)
			raw[i] = string(q)
		}
	}
	return raw, nil
}

func arrayFromSQLite(s string, elem *spannerpb.Type) (*structpb.Value, error) {
	if elem.GetCode() == spannerpb.TypeCode_STRUCT {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(s), &raw); err != nil {
			return nil, spanerr.New(codes.Internal, "stored ARRAY %q is not a JSON array: %v", s, err)
		}
		out := make([]*structpb.Value, len(raw))
		for i, r := range raw {
			v, err := jsonElemToWire(r, elem)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return structpb.NewListValue(&structpb.ListValue{Values: out}), nil
	}
	cells, err := DecodeArrayCells(s)
	if err != nil {
		return nil, err
	}
	out := make([]*structpb.Value, len(cells))
	for i, c := range cells {
		if isBytes(elem) {
			if c == nil {
				out[i] = structpb.NewNullValue()
			} else {
				out[i] = structpb.NewStringValue(cellText(c))
			}
			continue
		}
		v, err := FromSQLite(c, elem)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return structpb.NewListValue(&structpb.ListValue{Values: out}), nil
}

// isBytes: BYTES, and PROTO (a serialized message), are kept as base64 text in arrays.
func isBytes(t *spannerpb.Type) bool {
	return t.GetCode() == spannerpb.TypeCode_BYTES || t.GetCode() == spannerpb.TypeCode_PROTO
}
