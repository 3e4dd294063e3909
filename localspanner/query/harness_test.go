package query

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/mattn/go-sqlite3"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
)

var registerDriver sync.Once

const testDriver = "sqlite3_query_test"

// testDDL is the schema the tests run against.
var testDDL = []string{
	`CREATE TABLE Players (PlayerId INT64 NOT NULL, Name STRING(MAX), Rating FLOAT64, Active BOOL, CreatedAt TIMESTAMP, Tags ARRAY<STRING(MAX)>, Avatar BYTES(MAX)) PRIMARY KEY (PlayerId)`,
	`CREATE TABLE Scores (PlayerId INT64 NOT NULL, ScoreId INT64 NOT NULL, Score INT64, Game STRING(MAX)) PRIMARY KEY (PlayerId, ScoreId)`,
	`CREATE TABLE Changes (Id STRING(MAX) NOT NULL, ShardId INT64 AS (MOD(FARM_FINGERPRINT(Id), 19)) STORED, LastUpdated TIMESTAMP OPTIONS (allow_commit_timestamp=true), Payload STRING(MAX)) PRIMARY KEY (Id)`,
	`CREATE NULL_FILTERED INDEX ChangesByShard ON Changes (ShardId, LastUpdated)`,
	`CREATE INDEX PlayersByName ON Players (Name)`,
}

// newTestDB builds the test schema in a fresh in-memory SQLite database with the
// query layer's functions registered, as the storage layer does.
func newTestDB(t testing.TB) (*schema.Catalog, *sql.DB) {
	t.Helper()
	registerDriver.Do(func() {
		sql.Register(testDriver, &sqlite3.SQLiteDriver{ConnectHook: sqlfn.Register})
	})
	cat, err := schema.Build(testDDL)
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	db, err := sql.Open(testDriver, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	for _, tb := range cat.Tables {
		stmts, err := tb.SQLiteCreateTable(func(tt *schema.Table, e string) (string, error) {
			s, _, err := CompileColumnExpr(tt, e)
			return s, err
		}, "sp_uuid")
		if err != nil {
			t.Fatalf("create %s: %v", tb.Name, err)
		}
		if _, err := db.Exec(stmts[0]); err != nil {
			t.Fatalf("%s: %v", stmts[0], err)
		}
	}
	for _, ix := range cat.Indexes {
		if _, err := db.Exec(ix.SQLiteCreateIndex()); err != nil {
			t.Fatalf("index: %v", err)
		}
	}
	return cat, db
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// seed inserts a few players, scores and changes.
func seed(t testing.TB, db *sql.DB) {
	mustExec(t, db, `INSERT INTO Players (PlayerId, Name, Rating, Active, CreatedAt, Tags, Avatar) VALUES
		(1, 'alice', 3.5, 1, '2024-01-01T00:00:00.000000000Z', '["a","b"]', X'0102'),
		(2, 'Bob', 1.25, 0, '2024-06-15T12:30:00.500000000Z', '[]', NULL),
		(3, NULL, NULL, NULL, NULL, NULL, NULL)`)
	mustExec(t, db, `INSERT INTO Scores (PlayerId, ScoreId, Score, Game) VALUES
		(1, 1, 10, 'chess'), (1, 2, 30, 'go'), (1, 3, 20, 'chess'), (2, 1, 5, 'go'), (2, 2, 7, 'go')`)
	for i := 0; i < 50; i++ {
		mustExec(t, db, `INSERT INTO Changes (Id, LastUpdated, Payload) VALUES (?, ?, ?)`,
			fmt.Sprintf("id-%03d", i), fmt.Sprintf("2024-01-01T00:00:%02d.000000000Z", i), "p")
	}
}

// run compiles and runs a query and returns its rows as text, one string per row.
func run(t testing.TB, cat *schema.Catalog, db *sql.DB, q string, params Params) ([]string, *Plan, error) {
	t.Helper()
	p, err := Compile(cat, q, params, nil)
	if err != nil {
		return nil, nil, err
	}
	rows, err := rowsOf(db, p.SQL, p.Args, p.Decode)
	return rows, p, err
}

func rowsOf(db *sql.DB, q string, args []any, decode func([]any) ([]*structpb.Value, error)) ([]string, error) {
	rs, err := db.Query(q, args...)
	if err != nil {
		return nil, sqlfn.RuntimeError(err)
	}
	defer func() { _ = rs.Close() }()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		cells := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		vals, err := decode(cells)
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = show(v)
		}
		out = append(out, strings.Join(parts, ","))
	}
	return out, sqlfn.RuntimeError(rs.Err())
}

// show prints a wire value compactly: strings bare, NULL as NULL.
func show(v *structpb.Value) string {
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		return "NULL"
	case *structpb.Value_StringValue:
		return k.StringValue
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(k.NumberValue, 'g', -1, 64)
	case *structpb.Value_BoolValue:
		return strconv.FormatBool(k.BoolValue)
	case *structpb.Value_ListValue:
		parts := make([]string, len(k.ListValue.Values))
		for i, e := range k.ListValue.Values {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "?"
}

func p(v *structpb.Value, t *spannerpb.Type) Param { return Param{Value: v, Type: t} }

func str(s string) *structpb.Value { return structpb.NewStringValue(s) }

func i64(n int64) Param { return p(str(strconv.FormatInt(n, 10)), tInt64) }

func list(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}
