package query

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/value"
)

func TestDML(t *testing.T) {
	cat, db := newTestDB(t)
	seed(t, db)
	tests := []struct {
		name    string
		sql     string
		params  Params
		kind    DMLKind
		columns string
		want    []string // cells of each row, as wire text, then THEN RETURN values
	}{
		{"insert values", "INSERT INTO Players (PlayerId, Name, Rating) VALUES (10, 'x', 1), (@id, @name, NULL)",
			Params{"id": i64(11), "name": p(str("y"), tString)}, DMLInsert, "PlayerId,Name,Rating",
			[]string{"10,x,1", "11,y,NULL"}},
		{"insert untyped params", "INSERT INTO Scores (PlayerId, ScoreId, Score) VALUES (@a, @b, @c)",
			Params{"a": p(str("1"), nil), "b": p(str("9"), nil), "c": p(structpb.NewNumberValue(3), nil)}, DMLInsert, "PlayerId,ScoreId,Score",
			[]string{"1,9,3"}},
		{"insert pending commit timestamp", "INSERT INTO Changes (Id, LastUpdated) VALUES ('new', PENDING_COMMIT_TIMESTAMP())",
			nil, DMLInsert, "Id,LastUpdated", []string{"new," + CommitTimestampMarker}},
		{"insert then return", "INSERT INTO Changes (Id, Payload) VALUES ('abc', 'p') THEN RETURN Id, ShardId, Payload",
			nil, DMLInsert, "Id,Payload", []string{"abc,p|abc," + shardOf("abc") + ",p"}},
		{"insert select", "INSERT INTO Scores (PlayerId, ScoreId, Score) SELECT PlayerId, 100, 0 FROM Players WHERE PlayerId < 3",
			nil, DMLInsert, "PlayerId,ScoreId,Score", []string{"1,100,0", "2,100,0"}},
		{"insert or update", "INSERT OR UPDATE INTO Changes (Id, Payload, LastUpdated) VALUES (@p0, @p1, PENDING_COMMIT_TIMESTAMP())",
			Params{"p0": p(str("id-001"), tString), "p1": p(str("v2"), nil)}, DMLInsertOrUpdate, "Id,Payload,LastUpdated",
			[]string{"id-001,v2," + CommitTimestampMarker}},
		{"insert or ignore", "INSERT OR IGNORE INTO Scores (PlayerId, ScoreId) VALUES (1, 1)", nil, DMLInsertOrIgnore, "PlayerId,ScoreId", []string{"1,1"}},
		{"update", "UPDATE Scores SET Score = Score + 1, Game = 'x' WHERE PlayerId = @id AND ScoreId < 3 THEN RETURN ScoreId, Score",
			Params{"id": i64(1)}, DMLUpdate, "PlayerId,ScoreId,Score,Game", []string{"1,1,11,x|1,11", "1,2,31,x|2,31"}},
		{"update commit timestamp", "UPDATE Changes SET LastUpdated = PENDING_COMMIT_TIMESTAMP() WHERE Id = 'id-001'",
			nil, DMLUpdate, "Id,LastUpdated", []string{"id-001," + CommitTimestampMarker}},
		{"delete", "DELETE FROM Scores WHERE Score < 10 THEN RETURN Score", nil, DMLDelete, "PlayerId,ScoreId",
			[]string{"2,1|5", "2,2|7"}},
		{"delete where true", "DELETE FROM Players WHERE true", nil, DMLDelete, "PlayerId", []string{"1", "2", "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := CompileDML(cat, tt.sql, tt.params, nil)
			if err != nil {
				t.Fatalf("%s: %v", tt.sql, err)
			}
			if plan.Kind != tt.kind {
				t.Errorf("kind %v, want %v", plan.Kind, tt.kind)
			}
			var names []string
			for _, c := range plan.Columns {
				names = append(names, c.Name)
			}
			if strings.Join(names, ",") != tt.columns {
				t.Errorf("columns %v, want %s", names, tt.columns)
			}
			got, err := rowsOf(db, plan.SQL, plan.Args, func(row []any) ([]*structpb.Value, error) {
				var out []*structpb.Value
				for i, c := range plan.Columns {
					if s, ok := row[i].(string); ok && s == CommitTimestampMarker {
						out = append(out, structpb.NewStringValue(s))
						continue
					}
					v, err := value.FromSQLite(row[i], c.Type)
					if err != nil {
						return nil, err
					}
					out = append(out, v)
				}
				if len(plan.Returning) > 0 {
					ret, err := plan.DecodeReturning(row)
					if err != nil {
						return nil, err
					}
					out = append(out, structpb.NewStringValue("|"))
					out = append(out, ret...)
				}
				return out, nil
			})
			if err != nil {
				t.Fatalf("run %s: %v", plan.SQL, err)
			}
			joined := strings.ReplaceAll(strings.Join(got, "\n"), ",|,", "|")
			if joined != strings.Join(tt.want, "\n") {
				t.Errorf("%s\nSQL: %s\ngot:\n%s\nwant:\n%s", tt.sql, plan.SQL, joined, strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestReturningPendingCommitTimestamp(t *testing.T) {
	cat, db := newTestDB(t)
	plan, err := CompileDML(cat, "INSERT INTO Changes (Id, LastUpdated) VALUES ('x', PENDING_COMMIT_TIMESTAMP()) THEN RETURN LastUpdated", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rowsOf(db, plan.SQL, plan.Args, plan.DecodeReturning)
	if spanerr.Code(err, codes.Unknown) != codes.FailedPrecondition {
		t.Errorf("THEN RETURN of a pending commit timestamp: %v, want FAILED_PRECONDITION", err)
	}
}

func TestDMLErrors(t *testing.T) {
	cat, _ := newTestDB(t)
	tests := []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{"INSERT INTO Nope (a) VALUES (1)", codes.InvalidArgument, "Table not found: Nope"},
		{"INSERT INTO Players (Nope) VALUES (1)", codes.InvalidArgument, "Column Nope is not present"},
		{"INSERT INTO Players (PlayerId) VALUES ('x')", codes.InvalidArgument, "cannot be assigned to PlayerId"},
		{"INSERT INTO Players (PlayerId, Name) VALUES (1)", codes.InvalidArgument, "wrong column count"},
		{"INSERT INTO Changes (Id, ShardId) VALUES ('a', 1)", codes.InvalidArgument, "non-writable column: ShardId"},
		{"INSERT INTO Players (PlayerId, CreatedAt) VALUES (1, PENDING_COMMIT_TIMESTAMP())", codes.InvalidArgument, "allow_commit_timestamp"},
		{"UPDATE Players SET PlayerId = 2 WHERE true", codes.InvalidArgument, "non-writable column: PlayerId"},
		{"UPDATE Players SET Name = 1 WHERE true", codes.InvalidArgument, "cannot be assigned to Name"},
		{"SELECT PENDING_COMMIT_TIMESTAMP()", codes.InvalidArgument, "Statement is not DML"},
		{"INSERT INTO Players (PlayerId) VALUES (1) ON CONFLICT(PlayerId) DO NOTHING", codes.Unimplemented, "ON CONFLICT"},
	}
	for _, tt := range tests {
		_, err := CompileDML(cat, tt.sql, nil, nil)
		if spanerr.Code(err, codes.Unknown) != tt.code || err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v (%v), want %v containing %q", tt.sql, err, spanerr.Code(err, codes.Unknown), tt.code, tt.msg)
		}
	}
	if _, err := Compile(cat, "SELECT PENDING_COMMIT_TIMESTAMP()", nil, nil); spanerr.Code(err, codes.Unknown) != codes.InvalidArgument {
		t.Errorf("PENDING_COMMIT_TIMESTAMP() in a query: %v", err)
	}
}

func TestCompileColumnExpr(t *testing.T) {
	cat, db := newTestDB(t)
	changes, _ := cat.Table("Changes")
	tests := []struct {
		expr string
		want string // value for Id='abc', LastUpdated 2024-01-01
		typ  string
	}{
		{"MOD(FARM_FINGERPRINT(Id), 19)", shardOf("abc"), "INT64"},
		{"MOD(FARM_FINGERPRINT(CAST(LENGTH(Id) AS STRING)), 19)", itoa(int64(sqlfn.Fingerprint64([]byte("3"))) % 19), "INT64"},
		{"LENGTH(Id) * 2 + 1", "7", "INT64"},
		{"CONCAT(UPPER(Id), '-', CAST(EXTRACT(YEAR FROM LastUpdated AT TIME ZONE 'UTC') AS STRING))", "ABC-2024", "STRING"},
		{"IF(Id = 'abc', 1.5, 0)", "1.5", "FLOAT64"},
	}
	for _, tt := range tests {
		sqlExpr, typ, err := CompileColumnExpr(changes, tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if typeName(typ) != tt.typ {
			t.Errorf("%s: type %s, want %s", tt.expr, typeName(typ), tt.typ)
		}
		got, err := rowsOf(db, "SELECT "+sqlExpr+" FROM (SELECT 'abc' AS \"Id\", '2024-01-01T00:00:00.000000000Z' AS \"LastUpdated\")", nil,
			func(row []any) ([]*structpb.Value, error) {
				v, err := value.FromSQLite(row[0], typ)
				return []*structpb.Value{v}, err
			})
		if err != nil || len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s -> %s: got %v %v, want %s", tt.expr, sqlExpr, got, err, tt.want)
		}
	}
	for _, bad := range []string{"CURRENT_TIMESTAMP()", "Nope + 1", "(SELECT 1)", "COUNT(*)", "@p", "PENDING_COMMIT_TIMESTAMP()"} {
		if _, _, err := CompileColumnExpr(changes, bad); spanerr.Code(err, codes.Unknown) != codes.InvalidArgument {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	// The generated column is stored by SQLite itself on insert (the storage path).
	mustExec(t, db, `INSERT INTO Changes (Id) VALUES ('abc')`)
	var shard int64
	if err := db.QueryRow(`SELECT ShardId FROM Changes WHERE Id = 'abc'`).Scan(&shard); err != nil || itoa(shard) != shardOf("abc") {
		t.Errorf("stored ShardId = %d, %v; want %s", shard, err, shardOf("abc"))
	}
}
