package frontend

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestDataBytesCountsSpannersDataSizes(t *testing.T) {
	typ := func(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }
	list := func(vs ...*structpb.Value) *structpb.Value {
		return structpb.NewListValue(&structpb.ListValue{Values: vs})
	}
	for _, c := range []struct {
		name string
		t    *spannerpb.Type
		v    *structpb.Value
		want int64
	}{
		{"INT64 0 (one decimal digit on the wire)", typ(spannerpb.TypeCode_INT64), structpb.NewStringValue("0"), 8},
		{"INT64 of 19 digits", typ(spannerpb.TypeCode_INT64), structpb.NewStringValue("9223372036854775807"), 8},
		{"STRING of 9 ASCII letters", typ(spannerpb.TypeCode_STRING), structpb.NewStringValue("m1234abcd"), 9},
		{"STRING of 2 two-byte letters", typ(spannerpb.TypeCode_STRING), structpb.NewStringValue("éé"), 4},
		{"BYTES of 3 bytes (4 base64 letters)", typ(spannerpb.TypeCode_BYTES), structpb.NewStringValue("AAEC"), 3},
		{"BOOL", typ(spannerpb.TypeCode_BOOL), structpb.NewBoolValue(true), 1},
		{"FLOAT64", typ(spannerpb.TypeCode_FLOAT64), structpb.NewNumberValue(1.5), 8},
		{"FLOAT32", typ(spannerpb.TypeCode_FLOAT32), structpb.NewNumberValue(1.5), 4},
		{"DATE", typ(spannerpb.TypeCode_DATE), structpb.NewStringValue("2024-01-02"), 4},
		{"TIMESTAMP", typ(spannerpb.TypeCode_TIMESTAMP), structpb.NewStringValue("2024-01-02T03:04:05.123456789Z"), 12},
		{"NULL", typ(spannerpb.TypeCode_STRING), structpb.NewNullValue(), 0},
		{"ARRAY<INT64> of 2 and a NULL", &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typ(spannerpb.TypeCode_INT64)},
			list(structpb.NewStringValue("1"), structpb.NewStringValue("22"), structpb.NewNullValue()), 16},
		{"STRUCT<INT64, STRING>", &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "a", Type: typ(spannerpb.TypeCode_INT64)}, {Name: "b", Type: typ(spannerpb.TypeCode_STRING)}}}},
			list(structpb.NewStringValue("7"), structpb.NewStringValue("xy")), 10},
	} {
		if got := dataBytes(c.t, c.v); got != c.want {
			t.Errorf("%s: %d data bytes, want %d", c.name, got, c.want)
		}
	}
}
