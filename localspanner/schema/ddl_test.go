package schema

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

func TestApplyDDL(t *testing.T) {
	base := []string{
		"CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(100), Updated TIMESTAMP OPTIONS (allow_commit_timestamp=true)) PRIMARY KEY (SingerId)",
		"CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, Title STRING(MAX)) PRIMARY KEY (SingerId, AlbumId DESC), INTERLEAVE IN PARENT Singers ON DELETE CASCADE",
	}
	tests := []struct {
		name    string
		stmt    string
		code    codes.Code // codes.OK: success
		wantDDL string     // a statement that must appear in the canonical DDL
	}{
		{"index", "CREATE NULL_FILTERED INDEX ByName ON Singers(Name) STORING (Updated)", codes.OK, "CREATE NULL_FILTERED INDEX ByName ON Singers(Name) STORING (Updated)"},
		{"unique index", "CREATE UNIQUE INDEX ByTitle ON Albums(Title DESC)", codes.OK, "CREATE UNIQUE INDEX ByTitle ON Albums(Title DESC)"},
		{"add column", "ALTER TABLE Singers ADD COLUMN Age INT64", codes.OK, "  Age INT64,"},
		{"drop column", "ALTER TABLE Singers DROP COLUMN Name", codes.OK, "CREATE TABLE Singers (\n  SingerId INT64 NOT NULL,\n  Updated TIMESTAMP"},
		{"set options", "ALTER TABLE Singers ALTER COLUMN Updated SET OPTIONS (allow_commit_timestamp=null)", codes.OK, "  Updated TIMESTAMP,\n"},
		{"interleave kept", "CREATE TABLE X (Id INT64) PRIMARY KEY (Id)", codes.OK, "INTERLEAVE IN PARENT Singers ON DELETE CASCADE"},
		{"duplicate table", "CREATE TABLE Singers (Id INT64) PRIMARY KEY (Id)", codes.FailedPrecondition, ""},
		{"unknown parent", "CREATE TABLE C (Id INT64) PRIMARY KEY (Id), INTERLEAVE IN PARENT Nope", codes.FailedPrecondition, ""},
		{"parent key mismatch", "CREATE TABLE C (Other INT64, Id INT64) PRIMARY KEY (Other, Id), INTERLEAVE IN PARENT Singers", codes.FailedPrecondition, ""},
		{"drop table with children", "DROP TABLE Singers", codes.FailedPrecondition, ""},
		{"drop key column", "ALTER TABLE Singers DROP COLUMN SingerId", codes.FailedPrecondition, ""},
		{"unknown table", "DROP TABLE Nope", codes.NotFound, ""},
		{"commit ts on string", "ALTER TABLE Singers ALTER COLUMN Name SET OPTIONS (allow_commit_timestamp=true)", codes.FailedPrecondition, ""},
		{"syntax error", "CREATE TABLEX", codes.InvalidArgument, ""},
		{"create if not exists", "CREATE TABLE IF NOT EXISTS Singers (X INT64) PRIMARY KEY (X)", codes.OK, "  Name STRING(100),"},
		{"drop if exists", "DROP INDEX IF EXISTS Nope", codes.OK, "CREATE TABLE Singers"},
		{"input that makes memefish panic", "0\"\x00", codes.InvalidArgument, ""},
		{"row deletion policy", "CREATE TABLE Ttl (Id INT64, Ts TIMESTAMP) PRIMARY KEY (Id), ROW DELETION POLICY (OLDER_THAN(Ts, INTERVAL 1 DAY))", codes.OK, "  ROW DELETION POLICY (OLDER_THAN(Ts, INTERVAL 1 DAY))"},
		{"row deletion policy on a non-timestamp", "CREATE TABLE Ttl (Id INT64, Ts INT64) PRIMARY KEY (Id), ROW DELETION POLICY (OLDER_THAN(Ts, INTERVAL 1 DAY))", codes.InvalidArgument, ""},
		{"named check", "CREATE TABLE Ck (Id INT64, A INT64, CONSTRAINT A_pos CHECK (A > 0)) PRIMARY KEY (Id)", codes.OK, "  CONSTRAINT A_pos CHECK(A > 0),\n"},
		{"unnamed check", "CREATE TABLE Ck (Id INT64, A INT64, CHECK (A > 0)) PRIMARY KEY (Id)", codes.OK, "  CHECK(A > 0),\n"},
		{"foreign key", "CREATE TABLE Fk (Id INT64, S INT64, CONSTRAINT FkS FOREIGN KEY (S) REFERENCES Singers (SingerId)) PRIMARY KEY (Id)", codes.OK, "  CONSTRAINT FkS FOREIGN KEY(S) REFERENCES Singers(SingerId),\n"},
		{"foreign key type mismatch", "CREATE TABLE Fk (Id INT64, S STRING(MAX), FOREIGN KEY (S) REFERENCES Singers (SingerId)) PRIMARY KEY (Id)", codes.FailedPrecondition, ""},
		{"foreign key to a missing table", "CREATE TABLE Fk (Id INT64, S INT64, FOREIGN KEY (S) REFERENCES Nope (X)) PRIMARY KEY (Id)", codes.NotFound, ""},
		{"longer string", "ALTER TABLE Singers ALTER COLUMN Name STRING(200)", codes.OK, "  Name STRING(200),"},
		{"type change", "ALTER TABLE Singers ALTER COLUMN Name INT64", codes.InvalidArgument, ""},
		{"alter database", "ALTER DATABASE db SET OPTIONS (version_retention_period = '3d', spanload_split_rows = 1000)", codes.OK, "ALTER DATABASE db SET OPTIONS (\n  spanload_split_rows = 1000,\n  version_retention_period = '3d'\n)"},
		{"unknown database option", "ALTER DATABASE db SET OPTIONS (nope = 1)", codes.InvalidArgument, ""},
		{"retention out of range", "ALTER DATABASE db SET OPTIONS (version_retention_period = '8d')", codes.InvalidArgument, ""},
		{"view", "CREATE VIEW V SQL SECURITY INVOKER AS SELECT 1 AS One", codes.OK, "CREATE VIEW V SQL SECURITY INVOKER AS SELECT 1 AS One"},
		{"view without SQL SECURITY", "CREATE VIEW V AS SELECT 1 AS One", codes.InvalidArgument, ""},
		{"drop missing view", "DROP VIEW V", codes.NotFound, ""},
		{"unsupported", "CREATE SEQUENCE S OPTIONS (sequence_kind = 'bit_reversed_positive')", codes.Unimplemented, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := Apply(base, tc.stmt)
			if tc.code != codes.OK {
				if err == nil {
					t.Fatalf("Apply(%q) succeeded, want %v", tc.stmt, tc.code)
				}
				if got := spanerr.Code(err, codes.Unknown); got != tc.code {
					t.Fatalf("Apply(%q) = %v (%v), want %v", tc.stmt, got, err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%q): %v", tc.stmt, err)
			}
			if strings.Contains(tc.stmt, "EXISTS") && (ch.CreatedTable != nil || ch.CreatedIndex != nil || ch.DroppedIndex != nil) {
				t.Errorf("Apply(%q) reports a change although the schema already satisfies it", tc.stmt)
			}
			ddl := strings.Join(ch.Catalog.DDL(), "\n")
			if !strings.Contains(ddl, tc.wantDDL) {
				t.Errorf("canonical DDL lacks %q:\n%s", tc.wantDDL, ddl)
			}
			// The canonical DDL must rebuild the same catalog.
			again, err := Build(ch.Catalog.DDL())
			if err != nil {
				t.Fatalf("canonical DDL does not parse back: %v", err)
			}
			if got := strings.Join(again.DDL(), "\n"); got != ddl {
				t.Errorf("canonical DDL does not round-trip:\n%s\n---\n%s", got, ddl)
			}
		})
	}
}

func TestNullFilteredIndexIsPartial(t *testing.T) {
	cat, err := Build([]string{
		"CREATE TABLE T (Id INT64 NOT NULL, ShardId INT64, Ts TIMESTAMP) PRIMARY KEY (Id)",
		"CREATE NULL_FILTERED INDEX ByShard ON T(ShardId, Ts)",
	})
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := cat.Index("byshard")
	got := ix.SQLiteCreateIndex()
	want := `CREATE INDEX "ByShard" ON "T" ("ShardId", "Ts") WHERE "ShardId" IS NOT NULL AND "Ts" IS NOT NULL`
	if got != want {
		t.Errorf("SQLiteCreateIndex() = %s, want %s", got, want)
	}
}
