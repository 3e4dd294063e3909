package query

import (
	"testing"

	"github.com/spanload/spanload/localspanner/schema"
)

// pgFuzzSeeds are PostgreSQL statements over the test schema (names fold to lower case,
// the catalog matches them as Spanner matches names).
var pgFuzzSeeds = []string{
	"SELECT 1",
	"SELECT * FROM changes /*@ FORCE_INDEX = changesbyshard */ WHERE shardid = ANY($5) AND lastupdated > $2 ORDER BY lastupdated LIMIT $3",
	"SELECT p.playerid, count(*) AS n, min(s.score), max(s.score) FROM players p JOIN scores s ON p.playerid = s.playerid GROUP BY p.playerid HAVING count(*) > 1 ORDER BY n DESC",
	"SELECT coalesce(name, 'x'), upper(name), length(name), name || '!', 7 / 2, 7 % 2, -playerid FROM players ORDER BY name NULLS FIRST",
	"SELECT x FROM unnest($5) AS x WHERE x > 0",
	"WITH t AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT a FROM t ORDER BY a DESC",
	"SELECT CASE WHEN playerid > 1 THEN 'a' ELSE 'b' END, EXISTS (SELECT 1 FROM scores), '2024-01-01'::date, $4::text FROM players",
	"INSERT INTO players (playerid, name) VALUES ($1, 'x') ON CONFLICT (playerid) DO NOTHING RETURNING playerid",
	"UPDATE scores SET score = score + 1 WHERE playerid = $1 RETURNING score",
	"DELETE FROM changes WHERE shardid = 3",
}

// FuzzCompilePG is FuzzCompile for a PostgreSQL database: PostgreSQL's parser, the
// lowering and the compiler may refuse text with an *spanerr.Error, never panic, and what
// compiles must run on SQLite.
func FuzzCompilePG(f *testing.F) {
	for _, s := range pgFuzzSeeds {
		f.Add(s)
	}
	cat, db := newTestDB(f)
	seed(f, db)
	pgCat := cat.WithDialect(schema.PostgreSQL)
	params := Params{
		"p1": i64(1),
		"p2": p(str("2024-01-01T00:00:10Z"), tTimestamp),
		"p3": i64(5),
		"p4": p(str("x"), nil),
		"p5": p(list(str("1"), str("-3")), arrayOf(tInt64)),
	}
	f.Fuzz(func(t *testing.T, q string) { fuzzOne(t, pgCat, db, params, q) })
}
