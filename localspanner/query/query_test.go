package query

import (
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/sqlfn"
)

// queryCase is one query with its expected rows over the seeded test data.
type queryCase struct {
	name   string
	sql    string
	params Params
	want   []string
}

func queryCases() []queryCase {
	shards := list()
	for s := -18; s <= 18; s++ {
		shards.GetListValue().Values = append(shards.GetListValue().Values, str(itoa(int64(s))))
	}
	return []queryCase{
		{"select 1", "SELECT 1", nil, []string{"1"}},
		{"point lookup", "SELECT Name, Rating, Active FROM Players WHERE PlayerId = @id", Params{"id": i64(1)}, []string{"alice,3.5,true"}},
		{"untyped param", "SELECT Name FROM Players WHERE PlayerId = @id", Params{"id": p(str("2"), nil)}, []string{"Bob"}},
		{"param names are case-insensitive", "SELECT Name FROM Players WHERE PlayerId = @ID", Params{"id": i64(2)}, []string{"Bob"}},
		{"join", "SELECT * FROM Players p JOIN Scores s ON p.PlayerId = s.PlayerId WHERE p.PlayerId=@Id ORDER BY s.Score DESC LIMIT 10",
			Params{"Id": i64(1)}, []string{
				"1,alice,3.5,true,2024-01-01T00:00:00Z,[a b],AQI=,1,2,30,go",
				"1,alice,3.5,true,2024-01-01T00:00:00Z,[a b],AQI=,1,3,20,chess",
				"1,alice,3.5,true,2024-01-01T00:00:00Z,[a b],AQI=,1,1,10,chess"}},
		{"group by having", "SELECT PlayerId, COUNT(*) AS n, MIN(Score), MAX(Score), SUM(Score), AVG(Score) FROM Scores GROUP BY PlayerId HAVING COUNT(*) > 1 ORDER BY n DESC",
			nil, []string{"1,3,10,30,60,20", "2,2,5,7,12,6"}},
		{"order by alias and ordinal", "SELECT Game AS g, SUM(Score) AS total FROM Scores GROUP BY g ORDER BY 2 DESC", nil, []string{"go,42", "chess,30"}},
		{"count distinct", "SELECT COUNT(DISTINCT Game), COUNTIF(Score > 8) FROM Scores", nil, []string{"2,3"}},
		{"limit offset params", "SELECT ScoreId FROM Scores WHERE PlayerId = 1 ORDER BY ScoreId LIMIT @l OFFSET @o",
			Params{"l": i64(1), "o": i64(1)}, []string{"2"}},
		{"watcher with shards", "SELECT Id, ShardId FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"shards": p(shards, arrayOf(tInt64)), "ts": p(str("2024-01-01T00:00:47Z"), tTimestamp), "limit": i64(10)},
			[]string{"id-048," + shardOf("id-048"), "id-049," + shardOf("id-049")}},
		{"watcher not null", "SELECT Id FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IS NOT NULL AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"ts": p(str("2024-01-01T00:00:48Z"), tTimestamp), "limit": i64(10)}, []string{"id-049"}},
		{"watcher no filter", "SELECT Id FROM Changes WHERE LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"ts": p(str("2024-01-01T00:00:47.5-00:00"), tTimestamp), "limit": i64(1)}, []string{"id-048"}},
		{"shard range", "SELECT MIN(ShardId) >= -18, MAX(ShardId) <= 18, COUNT(*) FROM Changes", nil, []string{"true,true,50"}},
		{"in list and between", "SELECT PlayerId FROM Players WHERE PlayerId IN (1, 3) AND PlayerId BETWEEN 0 AND 2", nil, []string{"1"}},
		{"like is case sensitive", "SELECT Name FROM Players WHERE Name LIKE 'b%' OR Name LIKE 'a_i%'", nil, []string{"alice"}},
		{"is null", "SELECT PlayerId FROM Players WHERE Name IS NULL", nil, []string{"3"}},
		{"string functions", "SELECT CONCAT(Name, '!'), LOWER(Name), UPPER(Name), LENGTH(Name), SUBSTR(Name, 2, 3), STARTS_WITH(Name, 'al'), ENDS_WITH(Name, 'ce'), REPLACE(Name, 'l', 'L'), TRIM('  x '), STRPOS(Name, 'i') FROM Players WHERE PlayerId = 1",
			nil, []string{"alice!,alice,ALICE,5,lic,true,true,aLice,x,3"}},
		{"trim whitespace and characters", "SELECT TRIM('\\t x \\n'), LTRIM('  x '), RTRIM(' x  '), TRIM('xxaxx', 'x'), CONCAT(b'[', TRIM(b' a '), b']') = b'[a]'", nil, []string{"x,x , x,a,true"}},
		{"substr negative", "SELECT SUBSTR('hello', -3), SUBSTR('hello', 0, 2), SUBSTR('héllo', 2, 2)", nil, []string{"llo,he,él"}},
		{"conditionals", "SELECT COALESCE(Name, 'none'), IF(Active, 'yes', 'no'), IFNULL(Rating, 0), CASE WHEN PlayerId > 1 THEN 'big' ELSE 'small' END, CASE PlayerId WHEN 1 THEN 'one' END FROM Players ORDER BY PlayerId",
			nil, []string{"alice,yes,3.5,small,one", "Bob,no,1.25,big,NULL", "none,no,0,big,NULL"}},
		{"arithmetic", "SELECT 7 / 2, DIV(7, 2), MOD(-7, 3), 2 * 3 + 1, -PlayerId, 1.5 + 1 FROM Players WHERE PlayerId = 2", nil, []string{"3.5,3,-1,7,-2,2.5"}},
		{"cast", "SELECT CAST(PlayerId AS STRING), CAST('42' AS INT64), CAST(2.5 AS INT64), CAST(Active AS STRING), SAFE_CAST('x' AS INT64), CAST('2024-01-01T00:00:00Z' AS TIMESTAMP) FROM Players WHERE PlayerId = 1",
			nil, []string{"1,42,3,true,NULL,2024-01-01T00:00:00Z"}},
		{"timestamps", "SELECT TIMESTAMP_ADD(CreatedAt, INTERVAL 90 MINUTE), TIMESTAMP_SUB(CreatedAt, INTERVAL 1 DAY), TIMESTAMP_DIFF(TIMESTAMP '2024-01-02T00:00:00Z', CreatedAt, HOUR), EXTRACT(YEAR FROM CreatedAt AT TIME ZONE 'UTC'), EXTRACT(HOUR FROM CreatedAt), UNIX_SECONDS(CreatedAt) FROM Players WHERE PlayerId = 1",
			nil, []string{"2024-01-01T01:30:00Z,2023-12-31T00:00:00Z,24,2024,16,1704067200"}},
		{"timestamp literal default zone", "SELECT TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP_TRUNC(TIMESTAMP '2024-03-05T10:11:12Z', HOUR, 'UTC')", nil, []string{"2024-01-01T08:00:00Z,2024-03-05T10:00:00Z"}},
		{"current timestamp", "SELECT CURRENT_TIMESTAMP() > TIMESTAMP '2020-01-01T00:00:00Z', CURRENT_TIMESTAMP = CURRENT_TIMESTAMP()", nil, []string{"true,true"}},
		{"string literal as timestamp", "SELECT COUNT(*) FROM Changes WHERE LastUpdated >= '2024-01-01T00:00:45Z'", nil, []string{"5"}},
		{"farm fingerprint", "SELECT FARM_FINGERPRINT(''), FARM_FINGERPRINT(b'abc'), MOD(FARM_FINGERPRINT('a'), 19)", nil, []string{"-7286425919675154353,2640714258260161385," + itoa(int64(sqlfn.Fingerprint64([]byte("a")))%19)}},
		{"subquery in from", "SELECT s.g, s.n FROM (SELECT Game AS g, COUNT(*) AS n FROM Scores GROUP BY Game) AS s ORDER BY s.n DESC", nil, []string{"go,3", "chess,2"}},
		{"scalar and exists subqueries", "SELECT Name, (SELECT MAX(Score) FROM Scores s WHERE s.PlayerId = p.PlayerId), EXISTS(SELECT 1 FROM Scores s WHERE s.PlayerId = p.PlayerId) FROM Players p ORDER BY PlayerId",
			nil, []string{"alice,30,true", "Bob,7,true", "NULL,NULL,false"}},
		{"in subquery", "SELECT PlayerId FROM Players WHERE PlayerId IN (SELECT PlayerId FROM Scores WHERE Game = 'chess')", nil, []string{"1"}},
		{"unnest in from", "SELECT x, o FROM UNNEST(@arr) AS x WITH OFFSET AS o ORDER BY x", Params{"arr": p(list(str("b"), str("a")), arrayOf(tString))}, []string{"a,1", "b,0"}},
		{"array column and literal", "SELECT Tags, ARRAY_LENGTH(Tags), [1, 2, 3], ARRAY(SELECT Score FROM Scores WHERE PlayerId = 2 ORDER BY Score) FROM Players WHERE PlayerId = 1", nil, []string{"[a b],2,[1 2 3],[5 7]"}},
		{"bytes", "SELECT Avatar, b'\\x01' || b'\\x02' = Avatar, TO_BASE64(Avatar) FROM Players WHERE PlayerId = 1", nil, []string{"AQI=,true,AQI="}},
		{"union all", "SELECT 1 AS x UNION ALL SELECT 2 ORDER BY x DESC", nil, []string{"2", "1"}},
		{"with", "WITH top AS (SELECT PlayerId, MAX(Score) AS m FROM Scores GROUP BY PlayerId) SELECT PlayerId, m FROM top WHERE m > 10", nil, []string{"1,30"}},
		{"left join", "SELECT p.PlayerId, s.Score FROM Players p LEFT JOIN Scores s ON s.PlayerId = p.PlayerId AND s.Score > 20 ORDER BY p.PlayerId", nil, []string{"1,30", "2,NULL", "3,NULL"}},
		{"greatest least nullif", "SELECT GREATEST(1, 5, 3), LEAST(2.5, 1), NULLIF(1, 1)", nil, []string{"5,1,NULL"}},
		{"regexp", "SELECT REGEXP_CONTAINS('abc123', r'\\d+'), REGEXP_EXTRACT('abc123', r'[a-z]+(\\d)'), REGEXP_REPLACE('a-b-c', '-', '+')", nil, []string{"true,1,a+b+c"}},
		{"params of each type", "SELECT @b, @f, @s, @ts, @d, @by, @a, @n",
			Params{"b": p(structpb.NewBoolValue(true), tBool), "f": p(structpb.NewNumberValue(0.5), tFloat64), "s": p(str("x"), tString),
				"ts": p(str("2024-05-06T07:08:09.123456789+02:00"), tTimestamp), "d": p(str("2024-05-06"), tDate), "by": p(str("AQI="), tBytes),
				"a": p(list(str("1"), structpb.NewNullValue()), arrayOf(tInt64)), "n": p(structpb.NewNullValue(), tString)},
			[]string{"true,0.5,x,2024-05-06T05:08:09.123456789Z,2024-05-06,AQI=,[1 NULL],NULL"}},
		{"array subscripts", "SELECT Tags[OFFSET(1)], Tags[ORDINAL(1)], Tags[SAFE_OFFSET(5)], [1, 2][1] FROM Players WHERE PlayerId = 1", nil, []string{"b,a,NULL,2"}},
		{"json", `SELECT JSON_VALUE(JSON '{"a": {"b": 1.5, "c": "x", "d": true}}', '$.a.b'), JSON_VALUE(JSON '{"a": {"c": "x"}}', '$.a.c'), JSON_VALUE(JSON '{"a": {"c": "x"}}', '$.a'), JSON_QUERY(JSON '{"a": {"c": "x"}}', '$.a'), JSON_VALUE(JSON '{"d": true}', '$.d')`,
			nil, []string{`1.5,x,NULL,{"c":"x"},true`}},
		{"information schema", "SELECT t.TABLE_NAME, COUNT(*) FROM INFORMATION_SCHEMA.TABLES AS t JOIN INFORMATION_SCHEMA.COLUMNS AS c ON c.TABLE_NAME = t.TABLE_NAME WHERE t.TABLE_SCHEMA = '' GROUP BY t.TABLE_NAME ORDER BY t.TABLE_NAME",
			nil, []string{"Changes,4", "Players,7", "Scores,4"}},
		{"information schema indexes", "SELECT INDEX_NAME, IS_NULL_FILTERED FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = 'Changes' ORDER BY INDEX_NAME",
			nil, []string{"ChangesByShard,true", "PRIMARY_KEY,false"}},
		{"information schema generated column", "SELECT SPANNER_TYPE, IS_GENERATED, GENERATION_EXPRESSION FROM INFORMATION_SCHEMA.COLUMNS WHERE COLUMN_NAME = 'ShardId'",
			nil, []string{"INT64,ALWAYS,MOD(FARM_FINGERPRINT(Id), 19)"}},
		{"numeric", "SELECT n, n * 2, n + 1, -n, n / 3 FROM UNNEST([NUMERIC '10.5', NUMERIC '-2', NUMERIC '9']) AS n ORDER BY n",
			nil, []string{"-2,-4,-1,2,-0.666666667", "9,18,10,-9,3", "10.5,21,11.5,-10.5,3.5"}},
		{"numeric aggregates", "SELECT SUM(n), AVG(n), MIN(n), MAX(n) FROM UNNEST([NUMERIC '10.5', NUMERIC '-2', NUMERIC '9']) AS n",
			nil, []string{"17.5,5.833333333,-2,10.5"}},
		{"implicit unnest", "SELECT p.PlayerId, tag FROM Players AS p, p.Tags AS tag ORDER BY tag", nil, []string{"1,a", "1,b"}},
		{"format timestamp", "SELECT FORMAT_TIMESTAMP('%Y-%m-%d %H:%M', TIMESTAMP '2024-03-10T12:30:15Z', 'UTC'), FORMAT_TIMESTAMP('%H:%M', TIMESTAMP '2024-03-10T12:30:15Z'), FORMAT_TIMESTAMP('%F %E3S %Ez', TIMESTAMP '2024-03-10T12:30:15.1234Z', 'UTC'), FORMAT_DATE('%d/%m/%Y %a', DATE '2024-03-10')",
			nil, []string{"2024-03-10 12:30,05:30,2024-03-10 15.123 +00:00,10/03/2024 Sun"}},
		{"format", "SELECT FORMAT('%d-%s', 42, 'x'), FORMAT('%05.2f|%t|%T|%x', 3.14159, TRUE, 'q', 255)", nil, []string{"42-x,03.14|true|\"q\"|ff"}},
		{"to json string", `SELECT TO_JSON_STRING(JSON_QUERY(JSON '{"a": [1, 2]}', '$.a')), TO_JSON_STRING('x'), TO_JSON_STRING(1), TO_JSON_STRING([1, 2])`, nil, []string{`[1,2],"x",1,[1,2]`}},
		{"NaN compares false and sorts first", "SELECT f, f > 0, f = f, f != 1.0, f + 1 FROM UNNEST(@fs) AS f ORDER BY f",
			Params{"fs": p(list(str("Infinity"), str("NaN"), structpb.NewNumberValue(-1.5), structpb.NewNullValue(), str("-Infinity")), arrayOf(tFloat64))},
			[]string{"NULL,NULL,NULL,NULL,NULL", "NaN,false,false,true,NaN", "-Infinity,false,true,true,-Infinity", "-1.5,false,true,true,-0.5", "Infinity,true,true,true,Infinity"}},
		{"NaN sorts last descending", "SELECT f FROM UNNEST([1.0, CAST('nan' AS FLOAT64), NULL]) AS f ORDER BY f DESC", nil, []string{"1", "NaN", "NULL"}},
		{"struct literals and fields", "SELECT STRUCT(1 AS x, 'a' AS y).y, (1, 2) = (1, 2), STRUCT<a INT64, b STRING>(5, 'q'), @s.n, @s",
			Params{"s": p(list(str("7"), str("z")), &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "n", Type: tInt64}, {Name: "t", Type: tString}}}})},
			[]string{"a,true,[5 q],7,[7 z]"}},
		{"struct IN UNNEST", "SELECT PlayerId, ScoreId FROM Scores WHERE (PlayerId, ScoreId) IN UNNEST(@keys) ORDER BY ScoreId",
			Params{"keys": p(list(list(str("1"), str("2")), list(str("2"), str("1")), list(str("9"), str("9"))), arrayOf(&spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "p", Type: tInt64}, {Name: "s", Type: tInt64}}}}))},
			[]string{"2,1", "1,2"}},
		{"array of structs", "SELECT ARRAY(SELECT AS STRUCT ScoreId, Game FROM Scores WHERE PlayerId = 2 ORDER BY ScoreId), (SELECT AS VALUE 3)", nil, []string{"[[1 go] [2 go]],3"}},
		{"safe arithmetic", "SELECT SAFE_DIVIDE(1, 0), SAFE_DIVIDE(6, 3), IEEE_DIVIDE(1, 0), SAFE_ADD(9223372036854775807, 1), SAFE_MULTIPLY(3, 4), SAFE_NEGATE(-9223372036854775808), SAFE_SUBTRACT(1.5, 1)",
			nil, []string{"NULL,2,Infinity,NULL,12,NULL,0.5"}},
		{"float specials", "SELECT CAST('inf' AS FLOAT64), CAST('nan' AS FLOAT64), -CAST('inf' AS FLOAT64)", nil, []string{"Infinity,NaN,-Infinity"}},
	}
}

func TestQueries(t *testing.T) {
	cat, db := newTestDB(t)
	seed(t, db)
	tests := queryCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, plan, err := run(t, cat, db, tt.sql, tt.params)
			if err != nil {
				if plan != nil {
					t.Logf("SQL: %s", plan.SQL)
				}
				t.Fatalf("%s: %v", tt.sql, err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%s\nSQL: %s\ngot:\n%s\nwant:\n%s", tt.sql, plan.SQL, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func shardOf(id string) string { return itoa(int64(sqlfn.Fingerprint64([]byte(id))) % 19) }

func TestQueryErrors(t *testing.T) {
	cat, db := newTestDB(t)
	seed(t, db)
	tests := []struct {
		sql    string
		params Params
		code   codes.Code
		msg    string
	}{
		{"SELECT * FROM Nope", nil, codes.InvalidArgument, "Table not found: Nope [at 1:15]"},
		{"SELECT Nope FROM Players", nil, codes.InvalidArgument, "Unrecognized name: Nope"},
		{"SELECT * FROM Players WHERE PlayerId = @x", nil, codes.InvalidArgument, "No parameter found for binding: x"},
		{"SELECT * FROM Players WHERE PlayerId = 'a' + 1", nil, codes.InvalidArgument, "No matching signature for operator +"},
		{"SELECT * FROM Players WHERE Name = 1", nil, codes.InvalidArgument, "No matching signature for operator ="},
		{"SELECT * FROM Players@{FORCE_INDEX=Nope}", nil, codes.InvalidArgument, "does not have a secondary index called Nope"},
		{"SELEC 1", nil, codes.InvalidArgument, "Syntax error"},
		{"SELECT 1 |> WHERE true", nil, codes.Unimplemented, "pipe syntax is not supported"},
		{"SELECT 1 |> SELECT 2", nil, codes.Unimplemented, "pipe syntax is not supported by the local Spanner server [at 1:1]"},
		{"SELECT (1, 'a') = (1, 2)", nil, codes.InvalidArgument, "No matching signature for operator ="},
		{"SELECT STRUCT(1 AS x).y", nil, codes.InvalidArgument, "Field name y does not exist"},
		{"SELECT Name, COUNT(*) FROM Players", nil, codes.InvalidArgument, "SELECT list expression references column Name which is neither grouped nor aggregated [at 1:8]"},
		{"SELECT Game, Score FROM Scores GROUP BY Game", nil, codes.InvalidArgument, "references column Score which is neither grouped"},
		// ZetaSQL's resolver (resolver_query.cc): grouping by an ordinal or alias of an aggregate; found by FuzzCompile
		{"SELECT MIN(Score)&SUM(Score), AVG(Score) FROM Scores GROUP BY 1", nil, codes.InvalidArgument, "Column 1 contains an aggregation function, which is not allowed in GROUP BY"},
		{"SELECT Game, MAX(Score) AS top FROM Scores GROUP BY Game, top", nil, codes.InvalidArgument, "Column top contains an aggregation function, which is not allowed in GROUP BY"},
		{"SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000), nil, codes.InvalidArgument, "maximum depth"},
		{"SELECT " + strings.Repeat("NOT ", 3000) + "TRUE", nil, codes.InvalidArgument, "maximum depth"},
		{"SELECT NOPE_FN(1)", nil, codes.InvalidArgument, "Function not found: NOPE_FN"},
		{"SELECT PlayerId FROM Players WHERE Name", nil, codes.InvalidArgument, "WHERE clause should return type BOOL"},
		{"SELECT Name FROM Players p, Scores s WHERE PlayerId = 1", nil, codes.InvalidArgument, "Column name PlayerId is ambiguous"},
	}
	for _, tt := range tests {
		_, _, err := run(t, cat, db, tt.sql, tt.params)
		if spanerr.Code(err, codes.Unknown) != tt.code || err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v (%v), want %v containing %q", tt.sql, err, spanerr.Code(err, codes.Unknown), tt.code, tt.msg)
		}
	}
}

// Expressions just within the depth limit must compile to SQL that SQLite accepts.
func TestDeepButAllowed(t *testing.T) {
	cat, db := newTestDB(t)
	const n = maxDepth - 10
	for q, want := range map[string]string{
		"SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n):                           "1",
		"SELECT " + strings.Repeat("ABS(", n) + "-1" + strings.Repeat(")", n):                       "1",
		"SELECT " + strings.Repeat("IF(TRUE, ", n/2) + "1" + strings.Repeat(", 0)", n/2):            "1",
		"SELECT " + strings.Repeat("(1 + ", n/2) + "1" + strings.Repeat(")", n/2):                   itoa(n/2 + 1),
		"SELECT " + strings.Repeat("CASE WHEN TRUE THEN ", n/2) + "1" + strings.Repeat(" END", n/2): "1",
		"SELECT " + strings.Repeat("(SELECT ", 20) + "1" + strings.Repeat(")", 20):                  "1",
	} {
		got, _, err := run(t, cat, db, q, nil)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("%.60s...: %v %v, want %s", q, got, err, want)
		}
	}
}

func TestRuntimeErrors(t *testing.T) {
	cat, db := newTestDB(t)
	tests := []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{"SELECT 9223372036854775807 + 1", codes.OutOfRange, "int64 overflow"},
		{"SELECT 1 / 0", codes.OutOfRange, "division by zero"},
		{"SELECT MOD(1, 0)", codes.OutOfRange, "division by zero"},
		{"SELECT CAST('x' AS INT64)", codes.OutOfRange, "Bad int64 value"},
		{"SELECT [1, 2][OFFSET(2)]", codes.OutOfRange, "Array index 2 is out of bounds"},
		{"SELECT SUM(x) FROM UNNEST([9223372036854775807, 1]) AS x", codes.OutOfRange, "overflow"},
	}
	for _, tt := range tests {
		_, _, err := run(t, cat, db, tt.sql, nil)
		if spanerr.Code(err, codes.Unknown) != tt.code || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v (%v), want %v containing %q", tt.sql, err, spanerr.Code(err, codes.Unknown), tt.code, tt.msg)
		}
	}
}
