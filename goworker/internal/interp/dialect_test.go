package interp

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"github.com/jackc/pgx/v5/pgtype"
)

// The parameters of PostgreSQL statements, as PostgreSQL's lexical rules (its documentation, 4.1
// Lexical Structure) say where a $n is one: not in a string constant, an escape string, a
// dollar-quoted string, a quoted identifier or a comment, and not inside an identifier.
func TestPgParamsAreTheDollarNumbersOutsideLiteralsAndComments(t *testing.T) {
	cases := map[string][]string{
		"SELECT balance FROM customers WHERE customer_id = $1": {"p1"},
		"UPDATE c SET b = b - $2 WHERE id = $1 AND x = $2":     {"p2", "p1"},
		"SELECT '$1', \"$2\", $3":                              {"p3"},
		"SELECT 'it''s $1', $2":                                {"p2"},
		"SELECT E'\\' $1', $2":                                 {"p2"},
		"SELECT $$ $1 $$, $tag$ $2 $tag$, $3":                  {"p3"},
		"SELECT 1 -- $1\n, $2 /* $3 /* $4 */ $5 */ , $6":       {"p2", "p6"},
		"SELECT a$1 FROM t WHERE x = $10":                      {"p10"},
		"/*@STATEMENT_TAG='x'*/ SELECT $1":                     {"p1"},
		"SELECT count(*) FROM orders":                          nil,
	}
	for sql, want := range cases {
		if got := pgParams(sql); !reflect.DeepEqual(got, want) {
			t.Errorf("pgParams(%q) = %v, want %v", sql, got, want)
		}
	}
}

// Spanner's PG-dialect documentation: numeric is NUMERIC annotated PG_NUMERIC; the Go client's
// spanner.PGNumeric carries it. Every other drawn type goes as drawn.
func TestClientValuesOfAPostgreSQLDatabaseAreNumericAsPGNumeric(t *testing.T) {
	d := Decimal{Scale: 2}
	d.Rat.SetFrac64(1234, 100)
	if got := pgClientValue(d); got != (spanner.PGNumeric{Numeric: "12.34", Valid: true}) {
		t.Errorf("decimal 12.34 went as %#v", got)
	}
	if got := pgClientValue(spanner.NullNumeric{}); got != (spanner.PGNumeric{}) {
		t.Errorf("a NULL numeric went as %#v", got)
	}
	if got := pgClientValue(int64(7)); got != int64(7) {
		t.Errorf("int64 7 went as %#v", got)
	}
}

func TestPgxValuesAreWhatPostgreSQLDriversSend(t *testing.T) {
	d := Decimal{Scale: 2}
	d.Rat.SetFrac64(-50, 100)
	n, ok := pgxValue(d).(pgtype.Numeric)
	if !ok {
		t.Fatalf("decimal went as %T", pgxValue(d))
	}
	if f, _ := n.Float64Value(); f.Float64 != -0.5 {
		t.Errorf("decimal -0.50 went as %v", f.Float64)
	}
	date := civil.Date{Year: 2024, Month: 2, Day: 29}
	if got := pgxValue(date); got != (pgtype.Date{Time: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), Valid: true}) {
		t.Errorf("date went as %#v", got)
	}
	for _, null := range []any{spanner.NullInt64{}, spanner.NullString{}, spanner.NullNumeric{}, spanner.NullTime{}} {
		if got := pgxValue(null); got != nil {
			t.Errorf("%T went as %#v, not NULL", null, got)
		}
	}
	if got := pgxValue(spanner.NullNumeric{Numeric: *big.NewRat(3, 2), Valid: true}); got != "1.500000000" {
		t.Errorf("numeric 3/2 went as %#v", got)
	}
}

// PostgreSQL's INSERT ... ON CONFLICT (key) DO UPDATE SET c = excluded.c, UPDATE and DELETE by
// key; Spanner's PG dialect writes a commit timestamp with spanner.pending_commit_timestamp().
func TestMutationsAreDMLByPrimaryKey(t *testing.T) {
	key := []string{"customer_id", "order_id"}
	cols := []string{"customer_id", "order_id", "amount", "created"}
	row := []any{int64(1), "a", "9.50", spanner.CommitTimestamp}
	cases := []struct {
		kind, sql string
		args      []any
		cols      []string
		row       []any
	}{
		{StepInsert, "INSERT INTO orders (customer_id, order_id, amount, created) VALUES ($1, $2, $3, spanner.pending_commit_timestamp())",
			[]any{int64(1), "a", "9.50"}, cols, row},
		{StepInsertOrUpdate, "INSERT INTO orders (customer_id, order_id, amount, created) VALUES ($1, $2, $3, spanner.pending_commit_timestamp())" +
			" ON CONFLICT (customer_id, order_id) DO UPDATE SET amount = excluded.amount, created = excluded.created",
			[]any{int64(1), "a", "9.50"}, cols, row},
		{StepUpdate, "UPDATE orders SET amount = $1, created = spanner.pending_commit_timestamp() WHERE customer_id = $2 AND order_id = $3",
			[]any{"9.50", int64(1), "a"}, cols, row},
		{StepDelete, "DELETE FROM orders WHERE customer_id = $1 AND order_id = $2",
			[]any{int64(1), "a"}, key, []any{int64(1), "a"}},
		{StepInsertOrUpdate, "INSERT INTO orders (customer_id, order_id) VALUES ($1, $2) ON CONFLICT (customer_id, order_id) DO NOTHING",
			[]any{int64(1), "a"}, key, []any{int64(1), "a"}},
	}
	for _, c := range cases {
		sql, args := pgMutation(c.kind, "orders", c.cols, key, c.row)
		if sql != c.sql || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%s:\n got %s %v\nwant %s %v", c.kind, sql, args, c.sql, c.args)
		}
	}
}

func TestPositionalArgumentsFollowTheParameterNumbers(t *testing.T) {
	got := positional(map[string]any{"p3": "c", "p1": "a"})
	if !reflect.DeepEqual(got, []any{"a", nil, "c"}) {
		t.Errorf("positional = %v", got)
	}
}

func TestWatchSQLOfAPostgreSQLDatabaseTakesDollarParameters(t *testing.T) {
	w := &Watch{Table: "orders", Timestamp: "created"}
	want := "SELECT customer_id, order_id, created FROM orders WHERE created >= $1 ORDER BY created LIMIT $2"
	if got := WatchSQL(w, []string{"customer_id", "order_id"}, false, true); got != want {
		t.Errorf("WatchSQL = %s", got)
	}
	if got := watchParams(true, time.Unix(5, 0), 10); !reflect.DeepEqual(got, map[string]any{"p1": time.Unix(5, 0), "p2": int64(10)}) {
		t.Errorf("watchParams = %v", got)
	}
}

func TestAHintedWatchSQLOfAPostgreSQLDatabaseCarriesTheHintAsAComment(t *testing.T) {
	w := &Watch{Table: "orders", Timestamp: "created", Index: "orders_by_created", Filter: "shard IS NOT NULL"}
	want := "SELECT id, created FROM orders /*@ FORCE_INDEX=orders_by_created */ WHERE shard IS NOT NULL AND " +
		"created >= $1 ORDER BY created LIMIT $2"
	if got := WatchSQL(w, []string{"id"}, true, true); got != want {
		t.Errorf("WatchSQL =\n %s\nwant\n %s", got, want)
	}
}
