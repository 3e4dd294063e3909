package query

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// TestPGHostileInput: text a PostgreSQL database cannot run gets an error with a code
// (never a panic): PostgreSQL's parser, the lowering and the compiler each bound what
// they accept.
func TestPGHostileInput(t *testing.T) {
	cat := schema.NewCatalog().WithDialect(schema.PostgreSQL)
	deep := func(open, mid, close string, n int) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	tests := []struct {
		name, sql string
		code      codes.Code
	}{
		{"deep parentheses", "SELECT " + deep("(", "1", ")", 20000), codes.InvalidArgument},
		{"deep parentheses after a parameter", "SELECT $1, " + deep("(", "1", ")", 20000), codes.InvalidArgument},
		{"deep casts", "SELECT 1" + strings.Repeat("::bigint", 5000), codes.InvalidArgument},
		{"deep unary minus", "SELECT " + strings.Repeat("- ", 20000) + "1", codes.InvalidArgument},
		{"no select list (-- starts a comment)", "SELECT --1", codes.InvalidArgument},
		{"deep subqueries", "SELECT " + deep("(SELECT ", "1", ")", 2000), codes.InvalidArgument},
		{"NUL byte", "SELECT 1\x00", codes.InvalidArgument},
		{"two statements", "SELECT 1; SELECT 2", codes.InvalidArgument},
		{"empty", "", codes.InvalidArgument},
		{"unterminated string", "SELECT 'abc", codes.InvalidArgument},
		{"a utility statement", "VACUUM", codes.InvalidArgument},
		{"GoogleSQL parameter (@ is PostgreSQL's absolute value)", "SELECT @p", codes.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(cat, tt.sql, nil, nil)
			if err == nil || spanerr.Code(err, codes.Unknown) != tt.code {
				t.Fatalf("Compile(%.60q...) = %v; want code %v", tt.sql, err, tt.code)
			}
		})
	}
}
