package query

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
)

// Describe types each parameter the request left out by its context: the column it is compared
// with or written to, LIMIT's INT64, STRING with no context; a declared one is not listed.
func TestDescribeTypesUndeclaredParametersByContext(t *testing.T) {
	cat, err := schema.Build([]string{"CREATE TABLE T (Id INT64 NOT NULL, Name STRING(MAX), Born DATE, Score FLOAT64) PRIMARY KEY (Id)"})
	if err != nil {
		t.Fatal(err)
	}
	declared := Params{"id": {Value: nil, Type: tInt64}}
	tests := []struct {
		sql  string
		dml  bool
		want map[string]spannerpb.TypeCode
	}{
		{"SELECT Name FROM T WHERE Born = @b AND Score > @s AND Id = @id LIMIT @n", false,
			map[string]spannerpb.TypeCode{"b": spannerpb.TypeCode_DATE, "s": spannerpb.TypeCode_FLOAT64, "n": spannerpb.TypeCode_INT64}},
		{"SELECT @x", false, map[string]spannerpb.TypeCode{"x": spannerpb.TypeCode_STRING}},
		{"INSERT INTO T (Id, Name, Born) VALUES (@i, @n, @b)", true,
			map[string]spannerpb.TypeCode{"i": spannerpb.TypeCode_INT64, "n": spannerpb.TypeCode_STRING, "b": spannerpb.TypeCode_DATE}},
	}
	for _, tc := range tests {
		d, err := Describe(cat, tc.sql, declared, nil, tc.dml)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		got := map[string]spannerpb.TypeCode{}
		for _, f := range d.Undeclared {
			got[f.Name] = f.Type.GetCode()
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: undeclared %v, want %v", tc.sql, got, tc.want)
		}
		for n, c := range tc.want {
			if got[n] != c {
				t.Errorf("%s: @%s is %v, want %v", tc.sql, n, got[n], c)
			}
		}
	}
}
