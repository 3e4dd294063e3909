package frontend

import (
	"encoding/base64"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// dataBytes is the size of a returned value as SPANNER_SYS's AVG_BYTES counts it: "the data bytes
// that the query returned, excluding transmission encoding overhead" (Spanner's query statistics).
// A value's data is its size in Spanner's "Storage size for data types" (data types docs) without the
// 8 bytes of storage overhead each value carries there: BOOL 1, INT64 and FLOAT64 8, FLOAT32 and DATE
// 4, TIMESTAMP 12, STRING and JSON the bytes of their UTF-8 text, BYTES its bytes, an ARRAY or a
// STRUCT the sum of its parts; NULL none. On the wire INT64 travels as a decimal string and BYTES as
// base64, which is encoding overhead. NUMERIC, whose docs give 6 to 22 bytes by precision and scale,
// counts its text's length here.
func dataBytes(t *spannerpb.Type, v *structpb.Value) int64 {
	switch k := v.GetKind().(type) {
	case nil, *structpb.Value_NullValue:
		return 0
	case *structpb.Value_ListValue:
		var n int64
		switch t.GetCode() {
		case spannerpb.TypeCode_ARRAY:
			for _, e := range k.ListValue.GetValues() {
				n += dataBytes(t.GetArrayElementType(), e)
			}
		case spannerpb.TypeCode_STRUCT:
			fields := t.GetStructType().GetFields()
			for i, e := range k.ListValue.GetValues() {
				if i < len(fields) {
					n += dataBytes(fields[i].GetType(), e)
				}
			}
		}
		return n
	case *structpb.Value_StringValue:
		switch t.GetCode() {
		case spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM:
			return 8
		case spannerpb.TypeCode_FLOAT64:
			return 8 // "NaN", "Infinity" travel as strings
		case spannerpb.TypeCode_FLOAT32, spannerpb.TypeCode_DATE:
			return 4
		case spannerpb.TypeCode_TIMESTAMP:
			return 12
		case spannerpb.TypeCode_UUID:
			return 16
		case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
			if b, err := base64.StdEncoding.DecodeString(k.StringValue); err == nil {
				return int64(len(b))
			}
		}
		return int64(len(k.StringValue))
	case *structpb.Value_BoolValue:
		return 1
	default: // a number_value: FLOAT64 or FLOAT32
		if t.GetCode() == spannerpb.TypeCode_FLOAT32 {
			return 4
		}
		return 8
	}
}
