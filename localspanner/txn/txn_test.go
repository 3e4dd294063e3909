package txn

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

func setup(t *testing.T) (*Manager, *Session, *storage.DB) {
	t.Helper()
	db, err := storage.Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.ApplyDDL(context.Background(), []string{"CREATE TABLE T (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)"}, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
	m := NewManager()
	s := m.CreateSession(db, db.Name, true, nil, "")
	return m, s, db
}

var rw = &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}

func write(db *storage.DB, id, v int64) *storage.Mutation {
	tb, _ := db.Catalog().Table("T")
	return &storage.Mutation{Op: storage.OpInsertOrUpdate, Table: tb, Columns: tb.Columns, Rows: [][]any{{id, v}}}
}

func TestConflicts(t *testing.T) {
	type read func(t *Txn, db *storage.DB, id int64)
	keyRead := func(tx *Txn, db *storage.DB, id int64) {
		tb, _ := db.Catalog().Table("T")
		tx.RecordKeyRead(tx.ReadSeq(), tb, [][]any{{id}}, nil)
	}
	queryRead := func(tx *Txn, db *storage.DB, id int64) {
		tb, _ := db.Catalog().Table("T")
		q := `SELECT "V" FROM "T" WHERE "Id" = ?`
		seq := tx.ReadSeq()
		h := storage.NewRowHash()
		if _, err := db.Read(context.Background(), q, []any{id}, func(r []any) error { h.Add(r); return nil }); err != nil {
			panic(err)
		}
		tx.RecordQueryRead(seq, []*schema.Table{tb}, q, []any{id}, h.Sum(), 0)
	}
	// A query after a write of the transaction's own (to another row): checked
	// at commit with that write applied. (After a blind write of the row itself
	// the query sees only that write, and nothing another commit does changes it.)
	queryAfterOwnWrite := func(tx *Txn, db *storage.DB, id int64) {
		tb, _ := db.Catalog().Table("T")
		if err := tx.Buffer(write(db, id+10, 5)); err != nil {
			panic(err)
		}
		// The rows include the transaction's own new one: only a check with that
		// write applied sees the same result again.
		q := `SELECT "Id", "V" FROM "T" WHERE "Id" IN (?1, ?1 + 10) ORDER BY "Id"`
		seq := tx.ReadSeq()
		h := storage.NewRowHash()
		err := db.WithPending(context.Background(), tx.Pending(), func(query storage.Querier, _ func(*storage.Mutation) error) error {
			rows, err := query(context.Background(), q, id)
			if err != nil {
				return err
			}
			return storage.ScanRows(rows, func(r []any) error { h.Add(r); return nil })
		})
		if err != nil {
			panic(err)
		}
		tx.RecordQueryRead(seq, []*schema.Table{tb}, q, []any{id}, h.Sum(), len(tx.Pending()))
	}
	tableRead := func(tx *Txn, db *storage.DB, _ int64) {
		tb, _ := db.Catalog().Table("T")
		tx.RecordTableRead(tx.ReadSeq(), tb)
	}
	tests := []struct {
		name        string
		read        read
		firstRow    int64 // row the first transaction reads and writes
		secondRow   int64 // row the second one reads and writes
		wantAborted bool
	}{
		{"key reads, same row", keyRead, 1, 1, true},
		{"key reads, different rows", keyRead, 1, 2, false},
		{"query reads, same row", queryRead, 1, 1, true},
		{"query reads, different rows", queryRead, 1, 2, false},
		{"table reads, different rows", tableRead, 1, 2, true},
		{"queries after own writes, same row", queryAfterOwnWrite, 1, 1, true},
		{"queries after own writes, different rows", queryAfterOwnWrite, 1, 2, false},
		{"blind writes, same row", nil, 1, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, s, db := setup(t)
			ctx := context.Background()
			if _, err := db.Commit(ctx, []*storage.Mutation{write(db, 1, 0), write(db, 2, 0)}, nil, nil); err != nil {
				t.Fatal(err)
			}
			a, _ := m.Begin(s, rw, false)
			b, _ := m.Begin(s, rw, false)
			if tc.read != nil {
				tc.read(a, db, tc.firstRow)
				tc.read(b, db, tc.secondRow)
			}
			if _, err := m.Commit(ctx, a, []*storage.Mutation{write(db, tc.firstRow, 10)}); err != nil {
				t.Fatalf("first commit: %v", err)
			}
			_, err := m.Commit(ctx, b, []*storage.Mutation{write(db, tc.secondRow, 20)})
			var ab *AbortedError
			if got := errors.As(err, &ab); got != tc.wantAborted {
				t.Fatalf("second commit: %v, want aborted=%v", err, tc.wantAborted)
			}
			if ab != nil && ab.Delay <= 0 {
				t.Errorf("ABORTED without a retry delay")
			}
		})
	}
}

func TestStaleSnapshotTimestamps(t *testing.T) {
	m, s, db := setup(t)
	ctx := context.Background()
	ts1, err := db.Commit(ctx, []*storage.Mutation{write(db, 1, 1)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ro := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{}}}
	snap, err := m.Begin(s, ro, false)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ReadTS < ts1 {
		t.Fatalf("strong snapshot at %d is before the last commit %d", snap.ReadTS, ts1)
	}
	ts2, err := db.Commit(ctx, []*storage.Mutation{write(db, 1, 2)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts2 <= snap.ReadTS {
		t.Fatalf("commit %d after a strong snapshot at %d must get a later timestamp", ts2, snap.ReadTS)
	}
	// Stale snapshots, as Spanner documents the bounds: read_timestamp reads at exactly that
	// timestamp (here the first commit's, older than the second), exact_staleness at now - staleness.
	at := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{
		TimestampBound: &spannerpb.TransactionOptions_ReadOnly_ReadTimestamp{ReadTimestamp: timestamppb.New(time.UnixMicro(ts1))},
	}}}
	old, err := m.Begin(s, at, true)
	if err != nil {
		t.Fatal(err)
	}
	if old.ReadTS != ts1 || old.ReadTS >= ts2 {
		t.Fatalf("a read_timestamp snapshot at the first commit %d reads at %d (second commit %d)", ts1, old.ReadTS, ts2)
	}
	const stale = 10 * time.Second
	exact := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{
		TimestampBound: &spannerpb.TransactionOptions_ReadOnly_ExactStaleness{ExactStaleness: durationpb.New(stale)},
	}}}
	before := storage.NowMicros()
	past, err := m.Begin(s, exact, true)
	after := storage.NowMicros()
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := before-stale.Microseconds(), after-stale.Microseconds(); past.ReadTS < lo || past.ReadTS > hi {
		t.Fatalf("an exact_staleness 10s snapshot reads at %d, outside [%d, %d]", past.ReadTS, lo, hi)
	}
	if past.ReadTS >= ts1 {
		t.Fatalf("a snapshot 10 s in the past reads at %d, not before the commit at %d just now", past.ReadTS, ts1)
	}
}

func TestIdleTransactionsAreDiscardedAndAbort(t *testing.T) {
	m, s, db := setup(t)
	tx, err := m.Begin(s, rw, false)
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := db.Catalog().Table("T")
	tx.RecordTableRead(tx.ReadSeq(), tb)
	m.sweep(time.Now().Add(IdleTimeout / 2))
	if _, err := m.Txn(s, []byte(tx.ID)); err != nil {
		t.Fatalf("a transaction idle for less than the timeout was discarded: %v", err)
	}
	m.sweep(time.Now().Add(IdleTimeout + time.Second))
	_, err = m.Txn(s, []byte(tx.ID))
	var ab *AbortedError
	if !errors.As(err, &ab) {
		t.Fatalf("using a discarded transaction: %v, want ABORTED", err)
	}
	// A blind write by another transaction is not held up by the abandoned one.
	other, _ := m.Begin(s, rw, false)
	if _, err := m.Commit(context.Background(), other, []*storage.Mutation{write(db, 1, 1)}); err != nil {
		t.Fatalf("commit after an abandoned transaction: %v", err)
	}
}

func TestLatencyModelCost(t *testing.T) {
	tests := []struct {
		model        string
		participants int
		least, cpu   time.Duration
	}{
		{storage.LatencyNone, 1, 0, 0},
		{storage.LatencyNone, 6, 0, 0},
		{storage.LatencyProductionLike, 1, CommitRound, CPUPerParticipant},
		{storage.LatencyProductionLike, 2, 2 * CommitRound, 2 * CPUPerParticipant},
		{storage.LatencyProductionLike, 6, 2 * CommitRound, 6 * CPUPerParticipant},
	}
	for _, tc := range tests {
		least, cpu := ModelCost(tc.model, tc.participants)
		if least != tc.least || cpu != tc.cpu {
			t.Errorf("%s with %d participants: least %v cpu %v, want %v %v", tc.model, tc.participants, least, cpu, tc.least, tc.cpu)
		}
	}
}

// TestStaleReadsWithinTheDatabaseRetention: a read at a past timestamp is served
// within the database's version_retention_period and refused past it (with the
// slack the server keeps versions for).
func TestStaleReadsWithinTheDatabaseRetention(t *testing.T) {
	m, s, db := setup(t)
	staleness := func(d time.Duration) error {
		ro := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{
			TimestampBound: &spannerpb.TransactionOptions_ReadOnly_ExactStaleness{ExactStaleness: durationpb.New(d)},
		}}}
		before := storage.NowMicros()
		txn, err := m.Begin(s, ro, true)
		after := storage.NowMicros()
		if err == nil {
			// the read timestamp is now - staleness, the moment of the Begin's now within [before, after]
			if lo, hi := before-d.Microseconds(), after-d.Microseconds(); txn.ReadTS < lo || txn.ReadTS > hi {
				t.Errorf("a read %s in the past reads at %d, outside [%d, %d]", d, txn.ReadTS, lo, hi)
			}
		}
		return err
	}
	tests := []struct {
		name      string
		retention string // set before the case when not ""
		staleness time.Duration
		code      codes.Code
	}{
		{"default, 59 minutes", "", 59 * time.Minute, codes.OK},
		{"default, 90 minutes", "", 90 * time.Minute, codes.FailedPrecondition},
		{"2h, 90 minutes", "2h", 90 * time.Minute, codes.OK},
		{"2h, 3 hours", "2h", 3 * time.Hour, codes.FailedPrecondition},
		{"7d, 6 days", "7d", 6 * 24 * time.Hour, codes.OK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.retention != "" {
				ddl := "ALTER DATABASE d SET OPTIONS (version_retention_period = '" + tc.retention + "')"
				if _, err := db.ApplyDDL(context.Background(), []string{ddl}, schema.Compilers{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := staleness(tc.staleness); spanerr.Code(err, codes.OK) != tc.code {
				t.Fatalf("a read %s in the past: %v, want %v", tc.staleness, err, tc.code)
			}
		})
	}
}

// TestSessionsExpire: a regular session ends after an hour unused, a multiplexed
// one 30 days after its creation however busy it is.
func TestSessionsExpire(t *testing.T) {
	m, mux, db := setup(t)
	regular := m.CreateSession(db, db.Name, false, nil, "")
	alive := func(s *Session) bool { _, err := m.Session(s.Name); return err == nil }
	start := time.Now()
	for _, tc := range []struct {
		after        time.Duration
		regular, mux bool
	}{
		{SessionIdleTimeout / 2, true, true},
		{SessionIdleTimeout + time.Minute, false, true},
		{MultiplexedLifetime - time.Hour, false, true},
		{MultiplexedLifetime + time.Minute, false, false},
	} {
		m.sweep(start.Add(tc.after))
		if got := alive(regular); got != tc.regular {
			t.Fatalf("after %s the regular session is alive=%v, want %v", tc.after, got, tc.regular)
		}
		if got := alive(mux); got != tc.mux {
			t.Fatalf("after %s the multiplexed session is alive=%v, want %v", tc.after, got, tc.mux)
		}
	}
}
