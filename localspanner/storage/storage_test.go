package storage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/value"
)

func openTestDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open("projects/p/instances/i/databases/d", filepath.Join(t.TempDir(), "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.ApplyDDL(context.Background(), []string{
		"CREATE TABLE P (Id INT64 NOT NULL, Name STRING(MAX) NOT NULL, Ts TIMESTAMP OPTIONS (allow_commit_timestamp=true)) PRIMARY KEY (Id)",
		"CREATE TABLE C (Id INT64 NOT NULL, N INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id, N), INTERLEAVE IN PARENT P ON DELETE CASCADE",
		"CREATE TABLE K (Id INT64 NOT NULL, N INT64 NOT NULL) PRIMARY KEY (Id, N), INTERLEAVE IN PARENT P ON DELETE NO ACTION",
	}, schema.Compilers{}); err != nil {
		t.Fatal(err)
	}
	return db
}

func (d *DB) write(t *testing.T, op Op, table string, cols []string, rows ...[]any) (int64, error) {
	t.Helper()
	return d.Commit(context.Background(), []*Mutation{d.mutation(t, op, table, cols, rows...)}, nil, nil)
}

// one runs a query that returns one cell (or none: nil).
func (d *DB) one(t testing.TB, q string, args ...any) any {
	t.Helper()
	var v any
	if _, err := d.Read(context.Background(), q, args, func(r []any) error { v = r[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	return v
}

func (d *DB) count(t *testing.T, q string) int64 {
	t.Helper()
	return d.one(t, q).(int64)
}

func TestCommitErrors(t *testing.T) {
	db := openTestDB(t)
	if _, err := db.write(t, OpInsert, "P", []string{"Id", "Name"}, []any{int64(1), "a"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		op    Op
		table string
		cols  []string
		row   []any
		code  codes.Code
		msg   string // Cloud Spanner's text, as users' reports show it ("" = not checked)
	}{
		{"duplicate key", OpInsert, "P", []string{"Id", "Name"}, []any{int64(1), "b"}, codes.AlreadyExists,
			"Row [1] in table P already exists"},
		{"update of missing row", OpUpdate, "P", []string{"Id", "Name"}, []any{int64(9), "b"}, codes.NotFound,
			"Row [9] in table P is missing. Row cannot be updated."},
		{"missing parent", OpInsert, "C", []string{"Id", "N"}, []any{int64(9), int64(1)}, codes.NotFound,
			"Parent row for row [9,1] in table C is missing. Row cannot be written."},
		{"NOT NULL left out", OpInsert, "P", []string{"Id"}, []any{int64(2)}, codes.FailedPrecondition,
			"A new row in table P does not specify a non-null value for these NOT NULL columns: Name"},
		{"NULL in NOT NULL", OpInsertOrUpdate, "P", []string{"Id", "Name"}, []any{int64(1), nil}, codes.FailedPrecondition,
			"Name must not be NULL in table P."},
		{"commit ts without option", OpInsert, "C", []string{"Id", "N", "V"}, []any{int64(1), int64(1), value.CommitTimestamp}, codes.FailedPrecondition, ""},
		{"insert_or_update ok", OpInsertOrUpdate, "P", []string{"Id", "Name"}, []any{int64(1), "c"}, codes.OK, ""},
		{"replace ok", OpReplace, "P", []string{"Id", "Name"}, []any{int64(3), "d"}, codes.OK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.write(t, tc.op, tc.table, tc.cols, tc.row)
			if got := spanerr.Code(err, codes.OK); (err == nil) != (tc.code == codes.OK) || got != tc.code {
				t.Fatalf("got %v (%v), want %v", got, err, tc.code)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Fatalf("message %q, want %q", err.Error(), tc.msg)
			}
		})
	}
}

func TestCommitTimestampsIncreaseAndAreStored(t *testing.T) {
	db := openTestDB(t)
	var last int64
	for i := int64(0); i < 20; i++ {
		ts, err := db.write(t, OpInsert, "P", []string{"Id", "Name", "Ts"}, []any{i, "n", value.CommitTimestamp})
		if err != nil {
			t.Fatal(err)
		}
		if ts <= last {
			t.Fatalf("commit timestamp %d not after %d", ts, last)
		}
		last = ts
		stored := db.one(t, `SELECT "Ts" FROM "P" WHERE "Id" = ?`, i)
		if stored != FormatTS(ts) {
			t.Fatalf("stored %s, commit timestamp %s", stored, FormatTS(ts))
		}
	}
}

func TestDeleteCascadesAndNoAction(t *testing.T) {
	db := openTestDB(t)
	for id := int64(1); id <= 3; id++ {
		if _, err := db.write(t, OpInsert, "P", []string{"Id", "Name"}, []any{id, "p"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write(t, OpInsert, "C", []string{"Id", "N"}, []any{id, int64(1)}, []any{id, int64(2)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.write(t, OpInsert, "K", []string{"Id", "N"}, []any{int64(3), int64(1)}); err != nil {
		t.Fatal(err)
	}
	p, _ := db.Catalog().Table("P")
	del := func(ks KeySet) error {
		_, err := db.Commit(context.Background(), []*Mutation{{Op: OpDelete, Table: p, KeySet: ks}}, nil, nil)
		return err
	}
	if err := del(KeySet{Ranges: []KeyRange{{Start: []any{int64(1)}, End: []any{int64(2)}, StartClosed: true, EndClosed: true}}}); err != nil {
		t.Fatal(err)
	}
	if n := db.count(t, `SELECT COUNT(*) FROM "C"`); n != 2 {
		t.Errorf("after deleting parents 1..2, %d child rows remain, want 2 (cascade)", n)
	}
	if err := del(KeySet{Keys: [][]any{{int64(3)}}}); spanerr.Code(err, codes.OK) != codes.FailedPrecondition {
		t.Errorf("deleting a parent with NO ACTION children: %v, want FAILED_PRECONDITION", err)
	}
	if _, err := db.write(t, OpReplace, "P", []string{"Id", "Name"}, []any{int64(3), "r"}); spanerr.Code(err, codes.OK) != codes.FailedPrecondition {
		t.Errorf("replacing a parent with NO ACTION children: %v, want FAILED_PRECONDITION", err)
	}
}

func TestReadAtPastTimestamp(t *testing.T) {
	db := openTestDB(t)
	var stamps []int64
	for _, name := range []string{"v1", "v2", "v3"} {
		ts, err := db.write(t, OpInsertOrUpdate, "P", []string{"Id", "Name"}, []any{int64(1), name})
		if err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, ts)
	}
	p, _ := db.Catalog().Table("P")
	if _, err := db.Commit(context.Background(), []*Mutation{{Op: OpDelete, Table: p, KeySet: KeySet{All: true}}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	name, _ := p.Column("Name")
	for i, ts := range append(stamps, db.LastCommit(), stamps[0]-1) {
		want := []string{"v1", "v2", "v3", "", ""}[i]
		spec := &ReadSpec{Table: p, Columns: []*schema.Column{name}, KeySet: KeySet{All: true}}
		q, args, err := spec.SQL(db.SourceAt(ts))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := db.one(t, q, args...).(string)
		if got != want {
			t.Errorf("read at version %d: %q, want %q", i, got, want)
		}
	}
}

func TestStaleTempDirsOfDeadServersAreRemoved(t *testing.T) {
	base := t.TempDir()
	dead := filepath.Join(base, tempPrefix+"999999999-x")
	alive := filepath.Join(base, tempPrefix+strconv.Itoa(os.Getpid())+"-y")
	other := filepath.Join(base, tempPrefix+"legacy")
	for _, d := range []string{dead, alive, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleTempDirs(base)
	for d, want := range map[string]bool{dead: false, alive: true, other: true} {
		_, err := os.Stat(d)
		if got := err == nil; got != want {
			t.Errorf("%s exists=%v, want %v", filepath.Base(d), got, want)
		}
	}
}

func TestStrongSnapshotSeesExactlyTheCommitsUpToItsTimestamp(t *testing.T) {
	const count = `SELECT COUNT(*) FROM "P"`
	tests := []struct {
		name  string
		start func(ctx context.Context, db *DB) (*Snapshot, error)
	}{
		{"StrongSnapshot", func(ctx context.Context, db *DB) (*Snapshot, error) { return db.StrongSnapshot(ctx) }},
		{"StrongRead", func(ctx context.Context, db *DB) (*Snapshot, error) { return db.StrongRead(ctx, count, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTestDB(t)
			ctx := context.Background()
			var stamps []int64
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := int64(0); i < 200; i++ {
					ts, err := db.write(t, OpInsert, "P", []string{"Id", "Name"}, []any{i, "n"})
					if err != nil {
						t.Error(err)
						return
					}
					stamps = append(stamps, ts)
				}
			}()
			type seen struct{ ts, rows int64 }
			var reads []seen
			for running := true; running; {
				select {
				case <-done:
					running = false
				default:
				}
				snap, err := tt.start(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				var n int64
				if _, err := snap.Read(ctx, count, nil, func(r []any) error { n = r[0].(int64); return nil }); err != nil {
					t.Fatal(err)
				}
				snap.Close()
				reads = append(reads, seen{snap.TS, n})
			}
			for _, r := range reads {
				var want int64
				for _, ts := range stamps {
					if ts <= r.ts {
						want++
					}
				}
				if r.rows != want {
					t.Fatalf("snapshot at %d saw %d rows, %d commits are at or before it", r.ts, r.rows, want)
				}
			}
		})
	}
}

func TestStrongReadRunsOnlyItsStatement(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	snap, err := db.StrongRead(ctx, `SELECT COUNT(*) FROM "P"`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if _, err := snap.Read(ctx, `SELECT 1`, nil, func([]any) error { return nil }); err == nil {
		t.Fatal("a read of another statement succeeded in a single-statement snapshot")
	}
}

// TestPruneHistoryKeepsTheRetentionPeriod: superseded versions stay for the
// database's version_retention_period (1 h unless ALTER DATABASE set another) and
// RetentionSlack, and are deleted once older.
func TestPruneHistoryKeepsTheRetentionPeriod(t *testing.T) {
	tests := []struct {
		name      string
		retention string // "" leaves the option unset
		after     time.Duration
		want      int64 // superseded versions left in the history (of 2)
	}{
		{"default, within the hour", "", 59 * time.Minute, 2},
		{"default, within the slack", "", DefaultRetention + RetentionSlack - time.Minute, 2},
		{"default, past the slack", "", DefaultRetention + RetentionSlack + time.Minute, 0},
		{"2h, past the default", "2h", 90 * time.Minute, 2},
		{"2h, past its slack", "2h", 2*time.Hour + RetentionSlack + time.Minute, 0},
		{"3d, after two days", "3d", 48 * time.Hour, 2},
		{"3d, after four days", "3d", 96 * time.Hour, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t)
			ctx := context.Background()
			if tc.retention != "" {
				ddl := "ALTER DATABASE d SET OPTIONS (version_retention_period = '" + tc.retention + "')"
				if _, err := db.ApplyDDL(ctx, []string{ddl}, schema.Compilers{}); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range []string{"a", "b", "c"} { // two superseded versions, one current row
				if _, err := db.write(t, OpInsertOrUpdate, "P", []string{"Id", "Name"}, []any{int64(1), name}); err != nil {
					t.Fatal(err)
				}
			}
			if got := db.count(t, "SELECT COUNT(*) FROM _h_P"); got != 2 {
				t.Fatalf("history holds %d versions before pruning, want 2", got)
			}
			if err := db.pruneHistory(ctx, time.Now().Add(tc.after)); err != nil {
				t.Fatal(err)
			}
			if got := db.count(t, "SELECT COUNT(*) FROM _h_P"); got != tc.want {
				t.Fatalf("%s after the writes, history holds %d versions, want %d", tc.after, got, tc.want)
			}
			if got := db.one(t, "SELECT Name FROM P WHERE Id = 1"); got != "c" {
				t.Fatalf("current row is %v after pruning, want c", got)
			}
		})
	}
}
