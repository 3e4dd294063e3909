package clienttest

import (
	"context"
	"fmt"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/encoding/protojson"
)

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Issue 17, "Types and values": the Go client binds Go structs as STRUCT
// parameters (field names from `spanner:"..."` tags, which may repeat or be
// empty), slices of structs as ARRAY<STRUCT>, and nil pointers as NULL STRUCTs.
// Expected rows follow GoogleSQL's UNNEST operator (an ARRAY<STRUCT> unnests into
// a column per field) and STRUCT field access, as in the Go client's own
// integration test of struct parameters.

type structRow struct {
	Stringf string
	Intf    int64
	Boolf   bool
	Floatf  float64
}

func queryStrings(t *testing.T, client *spanner.Client, stmt spanner.Statement) []string {
	t.Helper()
	iter := client.Single().Query(context.Background(), stmt)
	defer iter.Stop()
	var out []string
	for {
		row, err := iter.Next()
		if err == iterator.Done {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", stmt.SQL, err)
		}
		cols := make([]spanner.GenericColumnValue, row.Size())
		ptrs := make([]any, row.Size())
		for i := range cols {
			ptrs[i] = &cols[i]
		}
		if err := row.Columns(ptrs...); err != nil {
			t.Fatalf("%s: decode: %v", stmt.SQL, err)
		}
		s := ""
		for i, c := range cols {
			if i > 0 {
				s += " "
			}
			s += row.ColumnName(i) + "=" + string(must(protojson.Marshal(c.Value)))
		}
		out = append(out, s)
	}
}

func TestGoClientStructParameters(t *testing.T) {
	startServer(t)
	client := newDatabase(t, "structs", nil)
	s1 := structRow{"abc", 300, false, 3.5}
	s2 := structRow{"def", -200, true, -3.5}
	cases := []struct {
		name  string
		param any
		sql   string
		want  string
	}{
		{"field access", s1, "SELECT @p.Stringf, @p.Intf, @p.Boolf, @p.Floatf",
			`[="abc" ="300" =false =3.5]`},
		{"array of structs", []structRow{s1, s2}, "SELECT * FROM UNNEST(@p)",
			`[Stringf="abc" Intf="300" Boolf=false Floatf=3.5 Stringf="def" Intf="-200" Boolf=true Floatf=-3.5]`},
		{"NULL struct", (*structRow)(nil), "SELECT @p IS NULL", `[=true]`},
		{"NULL array of structs", []structRow(nil), "SELECT p IS NULL FROM UNNEST(@p) p", `[]`},
		{"empty struct", struct{}{}, "SELECT @p IS NULL", `[=false]`},
		{"empty array of structs", []structRow{}, "SELECT * FROM UNNEST(@p)", `[]`},
		{"fields sharing a name", struct {
			A int64 `spanner:"field"`
			B int64 `spanner:"field"`
		}{10, 20}, "SELECT * FROM UNNEST([@p])", `[field="10" field="20"]`},
		{"an unnamed field", struct {
			A string `spanner:""`
		}{"hello"}, "SELECT * FROM UNNEST([@p])", `[="hello"]`},
		{"nested struct and array of struct pointers", struct {
			Inner structRow    `spanner:"f1"`
			Arr   []*structRow `spanner:"f2"`
		}{s2, []*structRow{nil}}, "SELECT @p.f1.Intf, ARRAY_LENGTH(@p.f2), @p.f2[OFFSET(0)] IS NULL",
			`[="-200" ="1" =true]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := queryStrings(t, client, spanner.Statement{SQL: tc.sql, Params: map[string]any{"p": tc.param}})
			if fmt.Sprint(got) != tc.want {
				t.Errorf("%s = %v, want %s", tc.sql, got, tc.want)
			}
		})
	}
}

// A row of an ARRAY<STRUCT> decodes back into the Go struct through the field names.
func TestGoClientStructRoundTrip(t *testing.T) {
	startServer(t)
	client := newDatabase(t, "structrt", nil)
	in := []structRow{{"abc", 300, false, 3.5}, {"def", -200, true, -3.5}}
	iter := client.Single().Query(context.Background(), spanner.Statement{
		SQL: "SELECT ARRAY(SELECT AS STRUCT * FROM UNNEST(@p))", Params: map[string]any{"p": in},
	})
	defer iter.Stop()
	row, err := iter.Next()
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	var out []*structRow
	if err := row.Column(0, &out); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(out) != 2 || *out[0] != in[0] || *out[1] != in[1] {
		t.Errorf("round trip = %+v, want %+v", out, in)
	}
}
