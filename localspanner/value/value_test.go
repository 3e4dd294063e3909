package value

import (
	"math"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

func ty(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }

func arr(c spannerpb.TypeCode) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: ty(c)}
}

func s(v string) *structpb.Value { return structpb.NewStringValue(v) }

func lst(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   *structpb.Value
		typ  *spannerpb.Type
		cell any
		wire *structpb.Value // nil: same as in
	}{
		{"int64", s("-9223372036854775808"), ty(spannerpb.TypeCode_INT64), int64(math.MinInt64), nil},
		{"int64 as number", structpb.NewNumberValue(42), ty(spannerpb.TypeCode_INT64), int64(42), s("42")},
		{"float", structpb.NewNumberValue(1.5), ty(spannerpb.TypeCode_FLOAT64), 1.5, nil},
		{"nan", s("NaN"), ty(spannerpb.TypeCode_FLOAT64), "NaN", nil},
		{"inf", s("Infinity"), ty(spannerpb.TypeCode_FLOAT64), math.Inf(1), nil},
		{"-inf", s("-Infinity"), ty(spannerpb.TypeCode_FLOAT64), math.Inf(-1), nil},
		{"bool", structpb.NewBoolValue(true), ty(spannerpb.TypeCode_BOOL), int64(1), nil},
		{"string", s("héllo"), ty(spannerpb.TypeCode_STRING), "héllo", nil},
		{"bytes", s("AQID"), ty(spannerpb.TypeCode_BYTES), []byte{1, 2, 3}, nil},
		{"timestamp offset", s("2024-05-06T07:08:09.5+02:00"), ty(spannerpb.TypeCode_TIMESTAMP), "2024-05-06T05:08:09.500000000Z", s("2024-05-06T05:08:09.5Z")},
		{"timestamp nanos", s("2024-05-06T05:08:09.123456789Z"), ty(spannerpb.TypeCode_TIMESTAMP), "2024-05-06T05:08:09.123456789Z", nil},
		{"commit timestamp sentinel", s(CommitTimestamp), ty(spannerpb.TypeCode_TIMESTAMP), CommitTimestamp, nil},
		{"date", s("2024-02-29"), ty(spannerpb.TypeCode_DATE), "2024-02-29", nil},
		{"numeric", s("-00012.3400"), ty(spannerpb.TypeCode_NUMERIC), "-12.34", s("-12.34")},
		{"json", s(`{"b": [1, 2.50], "a": "<x>"}`), ty(spannerpb.TypeCode_JSON), `{"a":"<x>","b":[1,2.50]}`, s(`{"a":"<x>","b":[1,2.50]}`)},
		{"null", structpb.NewNullValue(), ty(spannerpb.TypeCode_INT64), nil, nil},
		{"array int64", lst(s("1"), structpb.NewNullValue(), s("-3")), arr(spannerpb.TypeCode_INT64), "[1,null,-3]", nil},
		{"array string", lst(s(`a"b`), s("")), arr(spannerpb.TypeCode_STRING), `["a\"b",""]`, nil},
		{"array bytes", lst(s("AQI=")), arr(spannerpb.TypeCode_BYTES), `["AQI="]`, nil},
		{"array bool", lst(structpb.NewBoolValue(false), structpb.NewBoolValue(true)), arr(spannerpb.TypeCode_BOOL), "[0,1]", nil},
		{"array float", lst(structpb.NewNumberValue(0.25), s("NaN"), s("-Infinity")), arr(spannerpb.TypeCode_FLOAT64), `[0.25,"NaN","-Infinity"]`, nil},
		{"array timestamp", lst(s("2024-01-01T00:00:00Z")), arr(spannerpb.TypeCode_TIMESTAMP), `["2024-01-01T00:00:00.000000000Z"]`, nil},
		{"empty array", lst(), arr(spannerpb.TypeCode_INT64), "[]", nil},
		{"struct", lst(s("1"), s("a<b"), structpb.NewNullValue(), s("AQI=")), structType(), `[1,"a<b",null,"AQI="]`, nil},
		{"array of structs", lst(lst(s("1"), s("x"), structpb.NewBoolValue(true), structpb.NewNullValue())), &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: structType()},
			`[[1,"x",1,null]]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cell, err := ToSQLite(tt.in, tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			if !sameCell(cell, tt.cell) {
				t.Fatalf("ToSQLite = %#v, want %#v", cell, tt.cell)
			}
			back, err := FromSQLite(cell, tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wire
			if want == nil {
				want = tt.in
			}
			if !proto.Equal(back, want) {
				t.Errorf("FromSQLite = %v, want %v", back, want)
			}
		})
	}
}

func structType() *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "i", Type: ty(spannerpb.TypeCode_INT64)}, {Name: "s", Type: ty(spannerpb.TypeCode_STRING)},
		{Name: "b", Type: ty(spannerpb.TypeCode_BOOL)}, {Name: "y", Type: ty(spannerpb.TypeCode_BYTES)},
	}}}
}

func sameCell(a, b any) bool {
	if ab, ok := a.([]byte); ok {
		bb, ok := b.([]byte)
		return ok && string(ab) == string(bb)
	}
	return a == b
}

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		in  *structpb.Value
		typ *spannerpb.Type
	}{
		{s("x"), ty(spannerpb.TypeCode_INT64)},
		{structpb.NewNumberValue(1.5), ty(spannerpb.TypeCode_INT64)},
		{s("2024-13-01T00:00:00Z"), ty(spannerpb.TypeCode_TIMESTAMP)},
		{s("2024-02-30"), ty(spannerpb.TypeCode_DATE)},
		{s("1.2.3"), ty(spannerpb.TypeCode_NUMERIC)},
		{s("{"), ty(spannerpb.TypeCode_JSON)},
		{s("!!"), ty(spannerpb.TypeCode_BYTES)},
		{s("1"), arr(spannerpb.TypeCode_INT64)},
		{structpb.NewBoolValue(true), ty(spannerpb.TypeCode_STRING)},
	}
	for _, tt := range tests {
		if _, err := ToSQLite(tt.in, tt.typ); spanerr.Code(err, codes.Unknown) != codes.InvalidArgument {
			t.Errorf("ToSQLite(%v, %v) = %v, want INVALID_ARGUMENT", tt.in, TypeString(tt.typ), err)
		}
	}
	if _, err := ToSQLite(s("12345678901234567890123456789012"), ty(spannerpb.TypeCode_NUMERIC)); spanerr.Code(err, codes.Unknown) != codes.OutOfRange {
		t.Errorf("huge NUMERIC: %v", err)
	}
}

// PARSE_JSON's text (value.ParseJSON): a cut-off document says so, in words.
func TestParseJSONEndOfInput(t *testing.T) {
	for _, text := range []string{"{", `{"a": [1,`, ""} {
		if _, err := ParseJSON(text, false); err == nil || err.Error() != "unexpected end of input" {
			t.Errorf("ParseJSON(%q) error %v, want \"unexpected end of input\"", text, err)
		}
	}
}
