// Package localspanner_test holds checks over the whole module.
package localspanner_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/spanload/spanload/localspanner/"

// allowed lists, for every package of the module, the packages of the module its
// non-test code may import. The layers, top down (DESIGN.md "Layout"):
//
//	cmd -> frontend (wire) -> exec -> txn, query -> storage, stats -> schema, sqlfn -> value
//
// internal/spanerr carries error codes and may be imported from anywhere below cmd.
// storage knows nothing of SQL compilation: it imports only schema, value and sqlfn.
var allowed = map[string][]string{
	"cmd/spanload-local-spanner": {"frontend", "storage"},
	"frontend":                   {"exec", "internal/spanerr", "schema", "stats", "storage", "txn"},
	"exec":                       {"internal/spanerr", "query", "schema", "storage", "txn", "value"},
	"txn":                        {"internal/spanerr", "schema", "storage", "value"},
	"query":                      {"internal/spanerr", "schema", "sqlfn", "value"},
	"stats":                      {"schema", "sqlfn", "storage", "value"},
	"storage":                    {"internal/spanerr", "schema", "sqlfn", "value"},
	"schema":                     {"internal/spanerr"},
	"sqlfn":                      {"internal/spanerr", "value"},
	"value":                      {"internal/spanerr"},
	"internal/spanerr":           {},
	"clienttest":                 {},
	// the do-nothing server for client benches stands apart: it imports nothing of the module
	"cmd/spanload-null-spanner": {"nullspanner"},
	"nullspanner":               {},
}

// moduleImports returns, for every package of the module, the packages of the
// module its non-test files import, as `go list` reports them.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	got := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue // the module root (this test only)
		}
		got[pkg] = []string{}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				got[pkg] = append(got[pkg], rel)
			}
		}
	}
	return got
}

func TestLayers(t *testing.T) {
	got := moduleImports(t)
	if len(got) < len(allowed) {
		t.Fatalf("go list found %d packages, the table has %d: %v", len(got), len(allowed), got)
	}
	for pkg, imports := range got {
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s is not in the layer table of layers_test.go: add it with its allowed imports", pkg)
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(ok, imp) {
				t.Errorf("%s imports %s, which its layer may not (allowed: %s)", pkg, imp, strings.Join(ok, ", "))
			}
		}
	}
}
