package clienttest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
)

// Issue 25, JSON numbers. The Go client's own integration test
// (TestIntegration_BasicTypes, run against Cloud Spanner and the emulator alike)
// writes this message to a JSON and an ARRAY<JSON> column and reads it back: the
// 17-digit form of the double 0.39240506 and an integer past 2^53 keep their text
// (json.Number decoding) and their value (float64 decoding). Spanner's "Work with
// JSON data" preserves integers in the INT64 and UINT64 ranges and doubles that
// round-trip from string to double to string, and refuses the rest:
// "SELECT JSON '2.2412421353246235436' fails".

type jsonMessage struct {
	Name       string
	Body       string
	Time       int64
	FloatValue any
}

var goClientMessage = jsonMessage{"Alice", "Hello", 145688415796432520, json.Number("0.39240506000000003")}

func TestGoClientJSONNumbers(t *testing.T) {
	startServer(t)
	client := newDatabase(t, "jsonnum", []string{
		"CREATE TABLE J (Id INT64 NOT NULL, J JSON, JA ARRAY<JSON>) PRIMARY KEY (Id)",
	})
	ctx := context.Background()
	msg := spanner.NullJSON{Value: goClientMessage, Valid: true}
	if _, err := client.Apply(ctx, []*spanner.Mutation{
		spanner.Insert("J", []string{"Id", "J", "JA"}, []any{1, msg, []spanner.NullJSON{msg, {}}}),
	}); err != nil {
		t.Fatalf("insert the Go client's JSON message: %v", err)
	}
	for _, useNumber := range []bool{false, true} {
		spanner.UseNumberWithJSONDecoderEncoder(useNumber)
		want := map[string]any{"Name": "Alice", "Body": "Hello", "Time": 1.456884157964325e+17, "FloatValue": 0.39240506}
		if useNumber {
			want = map[string]any{"Name": "Alice", "Body": "Hello",
				"Time": json.Number("145688415796432520"), "FloatValue": json.Number("0.39240506000000003")}
		}
		row, err := client.Single().ReadRow(ctx, "J", spanner.Key{1}, []string{"J", "JA"})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var got spanner.NullJSON
		var arr []spanner.NullJSON
		if err := row.Columns(&got, &arr); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !got.Valid || !reflect.DeepEqual(got.Value, want) {
			t.Errorf("UseNumber=%v: J = %#v, want %#v", useNumber, got.Value, want)
		}
		if len(arr) != 2 || !reflect.DeepEqual(arr[0].Value, want) || arr[1].Valid {
			t.Errorf("UseNumber=%v: JA = %#v, want [%#v NULL]", useNumber, arr, want)
		}
	}
	spanner.UseNumberWithJSONDecoderEncoder(false)

	// The same message as a query parameter, and the documented edge values.
	cases := []struct {
		name string
		text string
		want string
	}{
		{"the Go client's message", `{"Body":"Hello","FloatValue":0.39240506000000003,"Name":"Alice","Time":145688415796432520}`,
			`{"Body":"Hello","FloatValue":0.39240506000000003,"Name":"Alice","Time":145688415796432520}`},
		{"the shortest form of the same double", `[0.39240506]`, `[0.39240506]`},
		{"INT64 extremes", `[-9223372036854775808,9223372036854775807]`, `[-9223372036854775808,9223372036854775807]`},
		{"UINT64 max", `18446744073709551615`, `18446744073709551615`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := queryStrings(t, client, spanner.Statement{
				SQL:    "SELECT TO_JSON_STRING(@j)",
				Params: map[string]any{"j": spanner.NullJSON{Value: json.RawMessage(tc.text), Valid: true}},
			})
			if want := []string{`=` + mustJSONString(tc.want)}; !reflect.DeepEqual(got, want) {
				t.Errorf("TO_JSON_STRING(%s) = %v, want %v", tc.text, got, want)
			}
		})
	}
	for _, text := range []string{"2.2412421353246235436", "[1.00000000000000000000001]"} {
		iter := client.Single().Query(ctx, spanner.Statement{
			SQL:    "SELECT @j",
			Params: map[string]any{"j": spanner.NullJSON{Value: json.RawMessage(text), Valid: true}},
		})
		_, err := iter.Next()
		iter.Stop()
		if spanner.ErrCode(err) != codes.InvalidArgument {
			t.Errorf("SELECT @j with %s: %v, want INVALID_ARGUMENT (the number cannot round-trip through a double)", text, err)
		}
	}
}

// mustJSONString is s as the protojson text of a STRING value.
func mustJSONString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
