package query

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// exprGen builds random GoogleSQL expressions over the Players table from a small
// grammar, to check that whatever compiles also runs in SQLite (runtime errors of
// Spanner's kind aside).
type exprGen struct{ r *rand.Rand }

var (
	genColumns = []string{"PlayerId", "Name", "Rating", "Active", "CreatedAt", "Tags", "Avatar"}
	genLits    = []string{"1", "-7", "0", "2.5", "'x'", "'hello'", "''", "TRUE", "FALSE", "NULL", "b'ab'",
		"TIMESTAMP '2024-01-01T00:00:00Z'", "DATE '2024-02-03'", "NUMERIC '1.5'", "JSON '{\"a\":1}'", "[1, 2]", "['a']", "@s", "@n", "@id"}
	genUnary  = []string{"-", "NOT ", "~"}
	genBinary = []string{"+", "-", "*", "/", "=", "!=", "<", ">=", "AND", "OR", "||", "LIKE", "&", "|", "^", "<<"}
	genFuncs  = []string{"ABS", "LENGTH", "LOWER", "UPPER", "CONCAT", "SUBSTR", "COALESCE", "IFNULL", "MOD", "DIV",
		"FARM_FINGERPRINT", "STRPOS", "STARTS_WITH", "TRIM", "REVERSE", "GREATEST", "LEAST", "NULLIF", "ARRAY_LENGTH",
		"TO_BASE64", "SHA256", "CAST", "SAFE_CAST", "IF", "TIMESTAMP_ADD", "EXTRACT", "UNIX_SECONDS", "SPLIT",
		"REGEXP_CONTAINS", "JSON_VALUE", "TO_JSON_STRING", "FORMAT", "ROUND", "SQRT"}
	genTypes = []string{"INT64", "STRING", "FLOAT64", "BOOL", "BYTES", "TIMESTAMP", "DATE", "NUMERIC"}
)

func (g exprGen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

func (g exprGen) expr(depth int) string {
	if depth <= 0 || g.r.Intn(4) == 0 {
		if g.r.Intn(2) == 0 {
			return g.pick(genColumns)
		}
		return g.pick(genLits)
	}
	switch g.r.Intn(9) {
	case 0:
		return g.pick(genUnary) + g.expr(depth-1)
	case 1, 2:
		return "(" + g.expr(depth-1) + " " + g.pick(genBinary) + " " + g.expr(depth-1) + ")"
	case 3:
		return g.expr(depth-1) + " IN (" + g.expr(depth-1) + ", " + g.expr(depth-1) + ")"
	case 4:
		return g.expr(depth-1) + " IS NULL"
	case 5:
		return "CASE WHEN " + g.expr(depth-1) + " THEN " + g.expr(depth-1) + " ELSE " + g.expr(depth-1) + " END"
	}
	f := g.pick(genFuncs)
	switch f {
	case "CAST", "SAFE_CAST":
		return f + "(" + g.expr(depth-1) + " AS " + g.pick(genTypes) + ")"
	case "TIMESTAMP_ADD":
		return "TIMESTAMP_ADD(" + g.expr(depth-1) + ", INTERVAL " + fmt.Sprint(g.r.Intn(100)) + " MINUTE)"
	case "EXTRACT":
		return "EXTRACT(" + g.pick([]string{"YEAR", "HOUR", "DAY", "DATE"}) + " FROM " + g.expr(depth-1) + ")"
	}
	n := 1 + g.r.Intn(3)
	args := make([]string, n)
	for i := range args {
		args[i] = g.expr(depth - 1)
	}
	return f + "(" + strings.Join(args, ", ") + ")"
}

func TestRandomExpressions(t *testing.T) {
	cat, db := newTestDB(t)
	seed(t, db)
	params := Params{"s": p(str("x"), nil), "n": i64(3), "id": p(str("2"), nil)}
	g := exprGen{rand.New(rand.NewSource(8))}
	compiled := 0
	for i := 0; i < 3000; i++ {
		e := g.expr(3)
		var q string
		switch i % 3 {
		case 0:
			q = "SELECT " + e + " FROM Players"
		case 1:
			q = "SELECT PlayerId FROM Players WHERE " + e + " ORDER BY PlayerId"
		default:
			q = "SELECT COUNT(*), MAX(" + e + ") FROM Players GROUP BY Active"
		}
		plan, err := Compile(cat, q, params, nil)
		if err != nil {
			var qe *spanerr.Error
			if !errors.As(err, &qe) {
				t.Fatalf("%s: compile error is not *spanerr.Error: %v", q, err)
			}
			continue
		}
		compiled++
		if _, err := rowsOf(db, plan.SQL, plan.Args, plan.Decode); err != nil {
			var qe *spanerr.Error
			if !errors.As(err, &qe) {
				t.Errorf("%s\ncompiled to SQL that failed: %v\nSQL: %s", q, err, plan.SQL)
			}
		}
	}
	if compiled < 300 {
		t.Errorf("only %d of 3000 random queries compiled: the generator is too weak to test anything", compiled)
	}
	t.Logf("%d of 3000 random queries compiled and ran", compiled)
}
