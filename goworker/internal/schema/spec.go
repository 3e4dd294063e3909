// Package schema holds the benchmark schemas of spanner/schemas.py (DDL, payloads, queries) and
// their idempotent creation.
package schema

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// LeaderboardPlayers is how many Players rows the leaderboard schema seeds.
const LeaderboardPlayers = 1000

// Payload returns the values of PayloadColumns for one row.
type Payload func(rng *rand.Rand, key int64) []any

// Spec is one benchmark schema: its DDL and how the workers write and read it.
type Spec struct {
	Kind             string
	Table            string // the watched table
	Key              string
	Index            string // NULL_FILTERED (ShardId, LastUpdated)
	PayloadColumns   []string
	Payload          Payload
	DDL              []string
	PointQuery       string
	RecentQuery      string // @since: TIMESTAMP, where present
	LeaderboardQuery string
	SeedPlayers      bool
}

// WriteColumns are the columns of every write, LastUpdated (the commit timestamp) last.
func (s *Spec) WriteColumns() []string {
	cols := append([]string{s.Key}, s.PayloadColumns...)
	return append(cols, "Version", "WriterId", "LastUpdated")
}

func watchColumns(key string) string {
	return "  Version INT64,\n" +
		"  WriterId STRING(64),\n" +
		"  LastUpdated TIMESTAMP OPTIONS (allow_commit_timestamp = true),\n" +
		fmt.Sprintf("  ShardId INT64 AS (MOD(FARM_FINGERPRINT(CAST(%s AS STRING)), 19)) STORED,\n", key)
}

func singerPayload(rng *rand.Rand, key int64) []any {
	info := make([]byte, 12)
	for i := range info {
		info[i] = byte(rng.UintN(256))
	}
	return []any{fmt.Sprintf("First%d", rng.IntN(10_000)), fmt.Sprintf("Last%d", key%100_000), info}
}

func tweetPayload(rng *rand.Rand, _ int64) []any {
	return []any{fmt.Sprintf("author%d", rng.IntN(1000)), strings.Repeat("x", 20+rng.IntN(120)), rng.Int64N(1 << 40)}
}

func userPayload(rng *rand.Rand, _ int64) []any {
	out := make([]any, 3)
	for i := range out {
		b := make([]byte, 50)
		for j := range b {
			b[j] = byte(rng.UintN(256))
		}
		out[i] = fmt.Sprintf("%x", b) // YCSB's fields: 100 characters each
	}
	return out
}

func scorePayload(rng *rand.Rand, _ int64) []any {
	return []any{rng.Int64N(LeaderboardPlayers), rng.Int64N(1_000_000)}
}

var specs = map[string]*Spec{
	"singers": {
		Kind: "singers", Table: "Singers", Key: "SingerId", Index: "SingersByShardLastUpdated",
		PayloadColumns: []string{"FirstName", "LastName", "SingerInfo"},
		Payload:        singerPayload,
		DDL: []string{
			"CREATE TABLE Singers (\n  SingerId INT64 NOT NULL,\n  FirstName STRING(200),\n" +
				"  LastName STRING(200),\n  SingerInfo BYTES(MAX),\n" + watchColumns("SingerId") + ") PRIMARY KEY (SingerId)",
			"CREATE NULL_FILTERED INDEX SingersByShardLastUpdated ON Singers (ShardId, LastUpdated)",
		},
		PointQuery: "SELECT SingerId, FirstName, LastName, Version FROM Singers WHERE SingerId = @key",
		RecentQuery: "SELECT SingerId, Version, LastUpdated FROM Singers WHERE LastUpdated > @since " +
			"ORDER BY LastUpdated DESC LIMIT 100",
	},
	"tweets": {
		Kind: "tweets", Table: "Tweets", Key: "Id", Index: "TweetsByShardLastUpdated",
		PayloadColumns: []string{"Author", "Content", "Sort"},
		Payload:        tweetPayload,
		DDL: []string{
			"CREATE TABLE Tweets (\n  Id INT64 NOT NULL,\n  Author STRING(64),\n  Content STRING(MAX),\n" +
				"  Sort INT64,\n" + watchColumns("Id") + ") PRIMARY KEY (Id)",
			"CREATE INDEX TweetsBySort ON Tweets (Sort)",
			"CREATE NULL_FILTERED INDEX TweetsByShardLastUpdated ON Tweets (ShardId, LastUpdated)",
		},
		PointQuery:  "SELECT Id, Author, Content, Sort, Version FROM Tweets WHERE Id = @key",
		RecentQuery: "SELECT Id, Sort FROM Tweets@{FORCE_INDEX=TweetsBySort} ORDER BY Sort DESC LIMIT 100",
	},
	"leaderboard": {
		Kind: "leaderboard", Table: "Scores", Key: "ScoreId", Index: "ScoresByShardLastUpdated",
		PayloadColumns: []string{"PlayerId", "Score"},
		Payload:        scorePayload,
		DDL: []string{
			"CREATE TABLE Players (\n  PlayerId INT64 NOT NULL,\n  PlayerName STRING(200),\n) PRIMARY KEY (PlayerId)",
			"CREATE TABLE Scores (\n  ScoreId INT64 NOT NULL,\n  PlayerId INT64 NOT NULL,\n  Score INT64,\n" +
				watchColumns("ScoreId") + ") PRIMARY KEY (ScoreId)",
			"CREATE INDEX ScoresByScore ON Scores (Score DESC)",
			"CREATE NULL_FILTERED INDEX ScoresByShardLastUpdated ON Scores (ShardId, LastUpdated)",
		},
		PointQuery: "SELECT ScoreId, PlayerId, Score, Version FROM Scores WHERE ScoreId = @key",
		RecentQuery: "SELECT ScoreId, Score, LastUpdated FROM Scores WHERE LastUpdated > @since " +
			"ORDER BY LastUpdated DESC LIMIT 100",
		LeaderboardQuery: "SELECT p.PlayerName, s.Score FROM Scores AS s JOIN Players AS p ON p.PlayerId = s.PlayerId " +
			"ORDER BY s.Score DESC LIMIT 10",
		SeedPlayers: true,
	},
	"usertable": {
		Kind: "usertable", Table: "UserTable", Key: "Id", Index: "", // no index: the 2PC-participants lab
		PayloadColumns: []string{"Field0", "Field1", "Field2"},
		Payload:        userPayload,
		DDL: []string{
			"CREATE TABLE UserTable (\n  Id INT64 NOT NULL,\n  Field0 STRING(100),\n  Field1 STRING(100),\n" +
				"  Field2 STRING(100),\n" + watchColumns("Id") + ") PRIMARY KEY (Id)",
		},
		PointQuery: "SELECT Id, Field0, Version FROM UserTable WHERE Id = @key",
		RecentQuery: "SELECT Id, Version, LastUpdated FROM UserTable WHERE LastUpdated > @since " +
			"ORDER BY LastUpdated DESC LIMIT 100",
	},
}

// Get is the spec of a schema kind ("singers", "tweets", "leaderboard", "usertable").
func Get(kind string) (*Spec, error) {
	s, ok := specs[kind]
	if !ok {
		return nil, fmt.Errorf("unknown schema %q", kind)
	}
	return s, nil
}

// DMLStatements are (UPDATE by key, INSERT) of every write column: @p0 is the key, the commit
// timestamp is PENDING_COMMIT_TIMESTAMP().
func (s *Spec) DMLStatements() (update, insert string) {
	cols := s.WriteColumns()
	values := make([]string, len(cols)-1)
	for i := range values {
		values[i] = fmt.Sprintf("@p%d", i)
	}
	sets := make([]string, 0, len(cols)-2)
	for i, c := range cols[1 : len(cols)-1] {
		sets = append(sets, fmt.Sprintf("%s = %s", c, values[i+1]))
	}
	update = fmt.Sprintf("UPDATE %s SET %s, LastUpdated = PENDING_COMMIT_TIMESTAMP() WHERE %s = @p0",
		s.Table, strings.Join(sets, ", "), s.Key)
	insert = fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s, PENDING_COMMIT_TIMESTAMP())",
		s.Table, strings.Join(cols, ", "), strings.Join(values, ", "))
	return update, insert
}
