package schema

import (
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// TestLowerPGChangeStream checks the GoogleSQL statement each PostgreSQL CHANGE STREAM
// statement lowers to. The PostgreSQL forms are Spanner's "PostgreSQL DDL" reference:
// CREATE CHANGE STREAM name [FOR {table_columns [, ...] | ALL}] [WITH (option = value,
// ...)], ALTER CHANGE STREAM name {SET FOR ... | DROP FOR ALL | SET (...) | RESET (...)},
// DROP CHANGE STREAM name.
func TestLowerPGChangeStream(t *testing.T) {
	tests := []struct {
		name, stmt string
		code       codes.Code
		want       string
	}{
		{"for all with options", "CREATE CHANGE STREAM S FOR ALL WITH (retention_period = '36h', exclude_insert = true)", codes.OK,
			"CREATE CHANGE STREAM `s` FOR ALL OPTIONS (retention_period = '36h', exclude_insert = true)"},
		{"tables and columns", `CREATE CHANGE STREAM s FOR t, u(a, "B");`, codes.OK,
			"CREATE CHANGE STREAM `s` FOR `t`, `u`(`a`, `B`)"},
		{"no for clause", "CREATE CHANGE STREAM s", codes.OK, "CREATE CHANGE STREAM `s`"},
		{"quote in a string", "CREATE CHANGE STREAM s WITH (value_capture_type = 'it''s')", codes.OK,
			"CREATE CHANGE STREAM `s` OPTIONS (value_capture_type = 'it\\'s')"},
		{"set for", "ALTER CHANGE STREAM s SET FOR t(a)", codes.OK, "ALTER CHANGE STREAM `s` SET FOR `t`(`a`)"},
		{"drop for all", "ALTER CHANGE STREAM s DROP FOR ALL", codes.OK, "ALTER CHANGE STREAM `s` DROP FOR ALL"},
		{"set options", "ALTER CHANGE STREAM s SET (retention_period = '7d')", codes.OK,
			"ALTER CHANGE STREAM `s` SET OPTIONS (retention_period = '7d')"},
		{"reset options", "ALTER CHANGE STREAM s RESET (retention_period, exclude_delete)", codes.OK,
			"ALTER CHANGE STREAM `s` SET OPTIONS (retention_period = NULL, exclude_delete = NULL)"},
		{"drop", "DROP CHANGE STREAM s", codes.OK, "DROP CHANGE STREAM `s`"},
		{"googlesql options keyword", "CREATE CHANGE STREAM s FOR ALL OPTIONS (retention_period = '36h')", codes.InvalidArgument, ""},
		{"number option", "CREATE CHANGE STREAM s WITH (retention_period = 36)", codes.InvalidArgument, ""},
		{"unterminated", "CREATE CHANGE STREAM s WITH (retention_period = '36h)", codes.InvalidArgument, ""},
		{"trailing words", "DROP CHANGE STREAM s t", codes.InvalidArgument, ""},
	}
	for _, tc := range tests {
		got, err := LowerPG(NewCatalog(), tc.stmt)
		if c := spanerr.Code(err, codes.OK); c != tc.code || got != tc.want {
			t.Errorf("%s: LowerPG(%q) = %q, %v (%v); want %q, %v", tc.name, tc.stmt, got, err, c, tc.want, tc.code)
		}
	}
}

// TestRenderPGChangeStream: GetDatabaseDdl answers a PostgreSQL database's change stream
// in PostgreSQL DDL, which lowers back to the same stream.
func TestRenderPGChangeStream(t *testing.T) {
	cat := NewCatalog()
	for _, s := range []string{"CREATE TABLE t (id bigint PRIMARY KEY, a text, \"B\" text)",
		"CREATE CHANGE STREAM s FOR t(a, \"B\") WITH (value_capture_type = 'NEW_ROW', exclude_delete = true)"} {
		g, err := LowerPG(cat, s)
		if err != nil {
			t.Fatal(err)
		}
		if cat, err = Build(append(cat.DDL(), g)); err != nil {
			t.Fatal(err)
		}
	}
	got := cat.RenderPG()
	want := `CREATE CHANGE STREAM s FOR t(a, "B") WITH (exclude_delete = true, value_capture_type = 'NEW_ROW')`
	if got[len(got)-1] != want {
		t.Errorf("RenderPG()[-1] = %q, want %q", got[len(got)-1], want)
	}
}
