package exec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

func TestIsDML(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"INSERT INTO T (Id) VALUES (1)", true},
		{"  update T SET V = 1 WHERE true", true},
		{"-- comment\nDELETE FROM T WHERE true", true},
		{"@{LOCK_SCANNED_RANGES=exclusive} UPDATE T SET V = 1 WHERE true", true},
		{"SELECT 1", false},
		{"WITH x AS (SELECT 1) SELECT * FROM x", false},
		{"", false},
		{"'unterminated", false},
	}
	for _, tt := range tests {
		if got := IsDML(tt.sql); got != tt.want {
			t.Errorf("IsDML(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
}

// recorded counts RecordQuery calls by SQL text and whether they failed.
type recorded map[string][]bool

func (r recorded) RecordQuery(_ *storage.DB, sql, _ string, _, _ float64, _, _, _ int64, failed bool) {
	r[sql] = append(r[sql], failed)
}

func (r recorded) RecordRead(_ *storage.DB, tag string, columns []string, _, _ bool, _ float64, _, _ int64) {
	k := "read " + tag + " " + strings.Join(columns, ",")
	r[k] = append(r[k], false)
}

// rowSink collects rows as "a,b" strings.
type rowSink struct {
	fields []string
	rows   []string
}

func (s *rowSink) Start(fields []*spannerpb.StructType_Field) {
	for _, f := range fields {
		s.fields = append(s.fields, f.Name)
	}
}

func (s *rowSink) Row(vals []*structpb.Value) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = v.GetStringValue()
	}
	s.rows = append(s.rows, strings.Join(cells, ","))
	return nil
}

func (s *rowSink) Sent() (int64, int64) { return int64(len(s.rows)), 0 }

func newEngine(t *testing.T) (*Engine, *txn.Session, recorded) {
	t.Helper()
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	// The generated column goes through query's compiler, handed to storage by ApplyDDL.
	if _, err := ApplyDDL(context.Background(), db, []string{
		"CREATE TABLE T (Id INT64 NOT NULL, V INT64, Twice INT64 AS (V * 2) STORED) PRIMARY KEY (Id)",
	}, nil); err != nil {
		t.Fatal(err)
	}
	rec := recorded{}
	m := txn.NewManager()
	return &Engine{Txns: m, Stats: rec}, m.CreateSession(db, db.Name, false, nil, ""), rec
}

// TestBatchDMLStopsAtFailingStatement: the statements before a failing one keep
// their results and writes, the failing one's error comes back, later ones do not
// run; a query then sees exactly the committed rows, generated column included.
func TestBatchDMLStopsAtFailingStatement(t *testing.T) {
	ctx := context.Background()
	e, sess, rec := newEngine(t)
	rw := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}
	tx, err := e.Txns.Begin(sess, rw, false)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []Statement{
		{SQL: "INSERT INTO T (Id, V) VALUES (1, 10), (2, 20)", Seqno: 1},
		{SQL: "INSERT INTO T (Id, V) VALUES (2, 99)", Seqno: 2},
		{SQL: "UPDATE T SET V = 0 WHERE true", Seqno: 3},
	}
	res, err := e.BatchDML(ctx, tx, stmts)
	if code := spanerr.Code(err, codes.Unknown); code != codes.AlreadyExists {
		t.Fatalf("second statement: code %v (%v), want AlreadyExists", code, err)
	}
	if len(res) != 1 || res[0].Count != 2 {
		t.Fatalf("results %+v, want one with count 2", res)
	}
	if _, err := e.Txns.Commit(ctx, tx, nil); err != nil {
		t.Fatal(err)
	}
	if got := rec[stmts[0].SQL]; len(got) != 1 || got[0] {
		t.Errorf("stats of the first statement %v, want one success", got)
	}
	if got := rec[stmts[1].SQL]; len(got) != 1 || !got[0] {
		t.Errorf("stats of the failing statement %v, want one failure", got)
	}
	if got := rec[stmts[2].SQL]; len(got) != 0 {
		t.Errorf("the statement after the failure ran: %v", got)
	}

	ro, err := e.Txns.Begin(sess, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	sink := &rowSink{}
	q := Statement{
		SQL:    "SELECT Id, V, Twice FROM T WHERE Id >= @min ORDER BY Id",
		Params: map[string]*structpb.Value{"min": structpb.NewStringValue("1")},
		Types:  map[string]*spannerpb.Type{"min": {Code: spannerpb.TypeCode_INT64}},
	}
	qr, err := e.Query(ctx, sess.DB, ro, q, false, sink)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(sink.fields, ","), "Id,V,Twice"; got != want {
		t.Errorf("fields %s, want %s", got, want)
	}
	if got, want := strings.Join(sink.rows, ";"), "1,10,20;2,20,40"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	if !strings.Contains(qr.SQLiteSQL, "SELECT") {
		t.Errorf("compiled SQL %q", qr.SQLiteSQL)
	}
}

// The emulator's ReadOnlyTransactionDoesNotSupportDml (frontend/handlers/queries.cc).
func TestDMLInReadOnlyTransactionFails(t *testing.T) {
	e, sess, _ := newEngine(t)
	ro, err := e.Txns.Begin(sess, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.DML(context.Background(), ro, Statement{SQL: "DELETE FROM T WHERE true"})
	want := "DML statements can only be performed in a read-write or partitioned-dml transaction. Current transaction type is ReadOnly."
	if code := spanerr.Code(err, codes.Unknown); code != codes.InvalidArgument || err.Error() != want {
		t.Fatalf("code %v (%v), want InvalidArgument %q", code, err, want)
	}
}

func TestReadUnknownColumn(t *testing.T) {
	e, sess, _ := newEngine(t)
	ro, err := e.Txns.Begin(sess, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	args := ReadArgs{Table: "T", Columns: []string{"Id", "Nope"}, KeySet: &spannerpb.KeySet{All: true}}
	err = e.Read(context.Background(), sess.DB, ro, args, &rowSink{})
	if code := spanerr.Code(err, codes.Unknown); code != codes.NotFound || !strings.Contains(err.Error(), "Nope") {
		t.Fatalf("got %v (%v), want NotFound naming the column", code, err)
	}
}
