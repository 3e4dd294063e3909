package reader

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/spanload/spanload/goworker/internal/schema"
)

func TestStatementForEveryQuery(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		schema, query, sqlPrefix string
		params                   map[string]any
		err                      string
	}{
		{"singers", "point", "SELECT SingerId, FirstName", map[string]any{"key": nil}, ""},
		{"singers", "recent_changes", "SELECT SingerId, Version, LastUpdated FROM Singers WHERE LastUpdated > @since",
			map[string]any{"since": now.Add(-10 * time.Second)}, ""},
		{"tweets", "recent_changes", "SELECT Id, Sort FROM Tweets@{FORCE_INDEX=TweetsBySort}", nil, ""},
		{"leaderboard", "leaderboard", "SELECT p.PlayerName, s.Score FROM Scores AS s JOIN Players", nil, ""},
		{"singers", "leaderboard", "", nil, `schema "singers" has no leaderboard query`},
		{"singers", "scan", "", nil, `unknown reader query "scan"`},
	}
	for _, c := range cases {
		spec, err := schema.Get(c.schema)
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := Statement(spec, c.query, rng, 50, now)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s/%s: error %v; want %q", c.schema, c.query, err, c.err)
			}
			continue
		}
		if err != nil || !strings.HasPrefix(stmt.SQL, c.sqlPrefix) || len(stmt.Params) != len(c.params) {
			t.Errorf("%s/%s: %q %v, %v", c.schema, c.query, stmt.SQL, stmt.Params, err)
			continue
		}
		for name, want := range c.params {
			got := stmt.Params[name]
			if name == "key" {
				if k, ok := got.(int64); !ok || k < 0 || k >= 50 {
					t.Errorf("point key %v; want an int64 in [0, 50)", got)
				}
			} else if got != want {
				t.Errorf("%s/%s: @%s = %v; want %v", c.schema, c.query, name, got, want)
			}
		}
	}
}
