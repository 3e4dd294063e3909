package query

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
)

var fuzzSeeds = []string{
	"SELECT 1",
	watcherHinted,
	"SELECT * FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IS NOT NULL AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
	"SELECT * FROM Players p JOIN Scores s ON p.PlayerId = s.PlayerId WHERE p.PlayerId=@id ORDER BY s.Score DESC LIMIT 10",
	"SELECT PlayerId, COUNT(*) AS n, MIN(Score), MAX(Score), SUM(Score), AVG(Score) FROM Scores GROUP BY PlayerId HAVING COUNT(*) > 1 ORDER BY n DESC",
	"SELECT CONCAT(Name, '!'), SUBSTR(Name, 2, 3), STRPOS(Name, 'i'), TIMESTAMP_ADD(CreatedAt, INTERVAL 1 HOUR) FROM Players",
	"SELECT x FROM UNNEST(@shards) AS x WITH OFFSET o WHERE x > 0",
	"SELECT CAST(PlayerId AS STRING), SAFE_CAST(Name AS INT64), IF(Active, 1, 2) FROM Players",
	"WITH t AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT a FROM t ORDER BY a",
	"INSERT INTO Players (PlayerId, Name) VALUES (@id, 'x') THEN RETURN PlayerId",
	"UPDATE Scores SET Score = Score + 1 WHERE PlayerId = @id THEN RETURN Score",
	"DELETE FROM Changes WHERE ShardId = 3",
	"SELECT EXTRACT(DAY FROM CreatedAt), ARRAY(SELECT Score FROM Scores) FROM Players",
}

// FuzzCompile feeds random SQL through parse, compile and SQLite. Compiling may fail
// with an *spanerr.Error and running with a runtime error; nothing may panic, and SQL that
// compiled must be SQL SQLite accepts.
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, qc := range queryCases() {
		f.Add(qc.sql)
	}
	cat, db := newTestDB(f)
	seed(f, db)
	params := Params{
		"id":     i64(1),
		"ts":     p(str("2024-01-01T00:00:10Z"), tTimestamp),
		"limit":  i64(5),
		"shards": p(list(str("1"), str("-3")), arrayOf(tInt64)),
		"s":      p(str("x"), nil),
		"n":      p(structpb.NewNumberValue(2), nil),
	}
	f.Fuzz(func(t *testing.T, q string) { fuzzOne(t, cat, db, params, q) })
}

// fuzzOne compiles q (as a query, else as DML) for cat and runs what compiled on db:
// compiling may fail with an *spanerr.Error and running with a runtime error; nothing may
// panic, and SQL that compiled must be SQL SQLite accepts.
func fuzzOne(t *testing.T, cat *schema.Catalog, db *sql.DB, params Params, q string) {
	var sqlText string
	var args []any
	var decode func([]any) ([]*structpb.Value, error)
	if plan, err := Compile(cat, q, params, nil); err == nil {
		sqlText, args, decode = plan.SQL, plan.Args, plan.Decode
	} else if dml, derr := CompileDML(cat, q, params, nil); derr == nil {
		sqlText, args = dml.SQL, dml.Args
		decode = func(row []any) ([]*structpb.Value, error) { return dml.DecodeReturning(row) }
	} else {
		var qe *spanerr.Error
		if !errors.As(err, &qe) || !errors.As(derr, &qe) {
			t.Fatalf("%q: compile errors are not *spanerr.Error: %v / %v", q, err, derr)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rs, err := db.QueryContext(ctx, sqlText, args...)
	if err == nil {
		cols, _ := rs.Columns()
		for rs.Next() {
			cells := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range cells {
				ptrs[i] = &cells[i]
			}
			if err = rs.Scan(ptrs...); err != nil {
				break
			}
			if _, err = decode(cells); err != nil {
				break
			}
		}
		if err == nil {
			err = rs.Err()
		}
		_ = rs.Close()
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	var qe *spanerr.Error
	if errors.As(sqlfn.RuntimeError(err), &qe) {
		return
	}
	if strings.Contains(err.Error(), "interrupted") {
		return
	}
	t.Fatalf("%q compiled to SQL that failed: %v\nSQL: %s", q, err, sqlText)
}
