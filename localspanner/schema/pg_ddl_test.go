package schema

import (
	"slices"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// TestLowerPG checks the GoogleSQL statement each PostgreSQL DDL statement lowers to.
// The type mapping is Spanner's "PostgreSQL data types" table (bigint = INT64, varchar(n) =
// STRING(n), text = STRING(MAX), bytea = BYTES(MAX), boolean = BOOL, double precision =
// FLOAT64, real = FLOAT32, numeric = NUMERIC, date = DATE, timestamptz = TIMESTAMP, jsonb =
// JSON, spanner.commit_timestamp = TIMESTAMP with allow_commit_timestamp).
func TestLowerPG(t *testing.T) {
	tests := []struct {
		name, stmt string
		code       codes.Code // codes.OK: success
		want       string
	}{
		{"types", "CREATE TABLE t (id bigint PRIMARY KEY, a varchar(10), b text, c bytea, d boolean, e double precision, f real, g numeric, h date, i timestamptz, j jsonb, k spanner.commit_timestamp)", codes.OK,
			"CREATE TABLE `t` (`id` INT64 NOT NULL, `a` STRING(10), `b` STRING(MAX), `c` BYTES(MAX), `d` BOOL, `e` FLOAT64, `f` FLOAT32, `g` NUMERIC, `h` DATE, `i` TIMESTAMP, `j` JSON, `k` TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (`id`)"},
		{"arrays and the long spellings", "CREATE TABLE t (id int8 NOT NULL, a text[], b character varying(5)[], c timestamp with time zone, PRIMARY KEY (id))", codes.OK,
			"CREATE TABLE `t` (`id` INT64 NOT NULL, `a` ARRAY<STRING(MAX)>, `b` ARRAY<STRING(5)>, `c` TIMESTAMP) PRIMARY KEY (`id`)"},
		{"names fold to lower case unless quoted", `CREATE TABLE Singers (SingerId bigint, "FirstName" text, PRIMARY KEY (SingerId))`, codes.OK,
			"CREATE TABLE `singers` (`singerid` INT64, `FirstName` STRING(MAX)) PRIMARY KEY (`singerid`)"},
		{"interleave", "CREATE TABLE c (p bigint NOT NULL, id bigint NOT NULL, PRIMARY KEY (p, id)) INTERLEAVE IN PARENT p ON DELETE CASCADE", codes.OK,
			"CREATE TABLE `c` (`p` INT64 NOT NULL, `id` INT64 NOT NULL) PRIMARY KEY (`p`, `id`), INTERLEAVE IN PARENT `p` ON DELETE CASCADE"},
		{"interleave no action", "CREATE TABLE c (id bigint PRIMARY KEY) INTERLEAVE IN PARENT p ON DELETE NO ACTION;", codes.OK,
			"CREATE TABLE `c` (`id` INT64 NOT NULL) PRIMARY KEY (`id`), INTERLEAVE IN PARENT `p`"},
		{"foreign keys", "CREATE TABLE c (id bigint PRIMARY KEY, pid bigint REFERENCES p (id) ON DELETE CASCADE, CONSTRAINT fk2 FOREIGN KEY (pid) REFERENCES p (id))", codes.OK,
			"CREATE TABLE `c` (`id` INT64 NOT NULL, `pid` INT64, FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE, CONSTRAINT `fk2` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)) PRIMARY KEY (`id`)"},
		{"index", "CREATE UNIQUE INDEX IF NOT EXISTS ix ON t (a DESC, b) INCLUDE (c) INTERLEAVE IN p WHERE a IS NOT NULL AND b IS NOT NULL", codes.OK,
			"CREATE UNIQUE NULL_FILTERED INDEX IF NOT EXISTS `ix` ON `t` (`a` DESC, `b`) STORING (`c`), INTERLEAVE IN `p`"},
		{"generated column (Spanner's PG DDL: GENERATED ALWAYS AS (...) STORED)", "CREATE TABLE t (id bigint NOT NULL, s bigint GENERATED ALWAYS AS (mod(spanner.farm_fingerprint(id::text), 19)) STORED, PRIMARY KEY (id))", codes.OK,
			"CREATE TABLE `t` (`id` INT64 NOT NULL, `s` INT64 AS (MOD(FARM_FINGERPRINT(CAST(`id` AS STRING)), 19)) STORED) PRIMARY KEY (`id`)"},
		{"generated column outside the subset", "CREATE TABLE t (id bigint PRIMARY KEY, s bigint GENERATED ALWAYS AS (random()) STORED)", codes.Unimplemented, ""},
		{"drop", "DROP TABLE IF EXISTS t", codes.OK, "DROP TABLE IF EXISTS `t`"},
		{"add column", "ALTER TABLE t ADD COLUMN x jsonb NOT NULL", codes.OK, "ALTER TABLE `t` ADD COLUMN `x` JSON NOT NULL"},
		{"add foreign key", "ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES p (b)", codes.OK,
			"ALTER TABLE `t` ADD CONSTRAINT `fk` FOREIGN KEY (`a`) REFERENCES `p` (`b`)"},
		{"set not null", "ALTER TABLE t ALTER COLUMN s SET NOT NULL", codes.OK, "ALTER TABLE `t` ALTER COLUMN `s` STRING(10) NOT NULL"},
		{"drop not null", "ALTER TABLE t ALTER COLUMN id DROP NOT NULL", codes.OK, "ALTER TABLE `t` ALTER COLUMN `id` INT64"},
		{"type", "ALTER TABLE t ALTER COLUMN s TYPE bytea", codes.OK, "ALTER TABLE `t` ALTER COLUMN `s` BYTES(MAX)"},
		{"type keeps NOT NULL", "ALTER TABLE t ALTER COLUMN id TYPE text", codes.OK, "ALTER TABLE `t` ALTER COLUMN `id` STRING(MAX) NOT NULL"},
		{"alter an unknown column", "ALTER TABLE t ALTER COLUMN nope SET NOT NULL", codes.NotFound, ""},
		{"no primary key", "CREATE TABLE t (id bigint)", codes.InvalidArgument, ""},
		{"a type Spanner lacks", "CREATE TABLE t (id serial PRIMARY KEY)", codes.InvalidArgument, ""},
		{"GoogleSQL DDL", "CREATE TABLE t (id INT64) PRIMARY KEY (id)", codes.InvalidArgument, ""},
		{"partial index on another condition", "CREATE INDEX ix ON t (a) WHERE a > 1", codes.Unimplemented, ""},
		{"DEFAULT", "CREATE TABLE t (id bigint PRIMARY KEY, a bigint DEFAULT 1)", codes.Unimplemented, ""},
		{"two statements", "DROP TABLE a; DROP TABLE b", codes.InvalidArgument, ""},
		{"a NUL byte", "DROP TABLE a\x00; DROP TABLE b", codes.InvalidArgument, ""},
		{"another schema", "CREATE TABLE s.t (id bigint PRIMARY KEY)", codes.Unimplemented, ""},
		// the local server's own options, set as PostgreSQL sets a database's parameters
		{"local option", `ALTER DATABASE "pg-db" SET spanload_split_rows = 8`, codes.OK,
			"ALTER DATABASE `pg-db` SET OPTIONS (spanload_split_rows = 8)"},
		{"local option TO a string", "ALTER DATABASE db SET spanload_latency_model TO 'production_like'", codes.OK,
			"ALTER DATABASE `db` SET OPTIONS (spanload_latency_model = 'production_like')"},
		{"local option to its default", "ALTER DATABASE db SET spanload_split_rows TO DEFAULT", codes.OK,
			"ALTER DATABASE `db` SET OPTIONS (spanload_split_rows = NULL)"},
		{"local option reset", "ALTER DATABASE db RESET spanload_split_rows", codes.OK,
			"ALTER DATABASE `db` SET OPTIONS (spanload_split_rows = NULL)"},
		{"another database parameter", "ALTER DATABASE db SET work_mem = 8", codes.Unimplemented, ""},
	}
	cat, err := Build([]string{"CREATE TABLE t (id INT64 NOT NULL, s STRING(10), ts TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (id)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LowerPG(cat, tt.stmt)
			if code := spanerr.Code(err, codes.Unknown); err != nil && code != tt.code || err == nil && tt.code != codes.OK {
				t.Fatalf("LowerPG(%q) = %q, %v; want code %v", tt.stmt, got, err, tt.code)
			}
			if got != tt.want {
				t.Errorf("LowerPG(%q) =\n  %s\nwant\n  %s", tt.stmt, got, tt.want)
			}
		})
	}
}

// TestRenderPGRoundTrip: the PostgreSQL DDL a catalog renders builds the same catalog again.
func TestRenderPGRoundTrip(t *testing.T) {
	pgDDL := []string{
		"CREATE TABLE singers (id bigint PRIMARY KEY, name varchar(20), tags text[], at spanner.commit_timestamp)",
		"CREATE TABLE albums (id bigint NOT NULL, aid bigint NOT NULL, title text, PRIMARY KEY (id, aid)) INTERLEAVE IN PARENT singers ON DELETE CASCADE",
		"CREATE INDEX by_title ON albums (title DESC) INCLUDE (aid) INTERLEAVE IN singers WHERE title IS NOT NULL",
		"CREATE TABLE \"Mixed Case\" (k text PRIMARY KEY, sid bigint, CONSTRAINT fk FOREIGN KEY (sid) REFERENCES singers (id))",
		`CREATE TABLE "select" ("user" text PRIMARY KEY, "order" bigint, name text)`,
		"CREATE TABLE g (id bigint PRIMARY KEY, s bigint GENERATED ALWAYS AS (mod(spanner.farm_fingerprint(id::text), 19) + 1) STORED)",
	}
	build := func(stmts []string) *Catalog {
		t.Helper()
		var lowered []string
		for _, s := range stmts {
			g, err := LowerPG(NewCatalog(), s)
			if err != nil {
				t.Fatalf("LowerPG(%q): %v", s, err)
			}
			lowered = append(lowered, g)
		}
		c, err := Build(lowered)
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		return c
	}
	first := build(pgDDL)
	again := build(first.RenderPG())
	if !slices.Equal(first.DDL(), again.DDL()) {
		t.Errorf("round trip changed the schema:\n%q\nthen\n%q", first.DDL(), again.DDL())
	}
	if !slices.Equal(first.RenderPG(), again.RenderPG()) {
		t.Errorf("round trip changed the PG DDL:\n%q\nthen\n%q", first.RenderPG(), again.RenderPG())
	}
}
