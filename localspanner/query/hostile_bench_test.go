package query

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// hostileDepth is the nesting of issue 18's hostile query: it must be rejected
// quickly (the goal is under 50 ms), whatever its shape.
const hostileDepth = 20000

func hostileQueries() map[string]string {
	n := hostileDepth
	return map[string]string{
		"parens": "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n),
		"plus":   "SELECT " + strings.Repeat("(1 + ", n) + "1" + strings.Repeat(")", n),
		"abs":    "SELECT " + strings.Repeat("ABS(", n) + "1" + strings.Repeat(")", n),
		"unary":  "SELECT " + strings.Repeat("- ", n) + "1",
		"not":    "SELECT " + strings.Repeat("NOT ", n) + "TRUE",
		"array":  "SELECT " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n),
		"chain":  "SELECT 1" + strings.Repeat(" + 1", n),
	}
}

// BenchmarkHostileDepth reports how long compiling each hostile query takes until
// it is rejected (go test -bench HostileDepth -run ^$ ./query/).
func BenchmarkHostileDepth(b *testing.B) {
	cat, err := schema.Build(testDDL)
	if err != nil {
		b.Fatal(err)
	}
	for name, q := range hostileQueries() {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Compile(cat, q, nil, nil); err == nil {
					b.Fatalf("%s: compiled", name)
				}
			}
		})
	}
}

func TestNestingBoundMatchesDepth(t *testing.T) {
	if maxDepth != schema.MaxNesting {
		t.Fatalf("query.maxDepth %d != schema.MaxNesting %d", maxDepth, schema.MaxNesting)
	}
}

func TestHostileDepthIsInvalidArgument(t *testing.T) {
	cat, err := schema.Build(testDDL)
	if err != nil {
		t.Fatal(err)
	}
	for name, q := range hostileQueries() {
		_, err := Compile(cat, q, nil, nil)
		if spanerr.Code(err, codes.Unknown) != codes.InvalidArgument || !strings.Contains(fmt.Sprint(err), "maximum depth of 150") {
			t.Errorf("%s: got %v (%v), want INVALID_ARGUMENT naming the depth limit", name, err, spanerr.Code(err, codes.Unknown))
		}
	}
	if _, err := CompileDML(cat, "UPDATE Players SET Rating = "+strings.Repeat("(", hostileDepth)+"1"+strings.Repeat(")", hostileDepth)+" WHERE TRUE", nil, nil); spanerr.Code(err, codes.Unknown) != codes.InvalidArgument {
		t.Errorf("deep DML: got %v", err)
	}
	if _, err := schema.Build([]string{"CREATE TABLE T (Id INT64, X INT64 DEFAULT (" + strings.Repeat("(", hostileDepth) + "1" + strings.Repeat(")", hostileDepth) + ")) PRIMARY KEY (Id)"}); spanerr.Code(err, codes.Unknown) != codes.InvalidArgument || !strings.Contains(fmt.Sprint(err), "maximum depth") {
		t.Errorf("deep DDL: got %v", err)
	}
}
