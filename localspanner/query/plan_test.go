package query

import (
	"strings"
	"testing"
)

// queryPlan returns SQLite's EXPLAIN QUERY PLAN details for a compiled query.
func queryPlan(t *testing.T, p *Plan, exec func(q string, args ...any) ([]string, error)) string {
	t.Helper()
	lines, err := exec("EXPLAIN QUERY PLAN "+p.SQL, p.Args...)
	if err != nil {
		t.Fatalf("explain %s: %v", p.SQL, err)
	}
	return strings.Join(lines, "\n")
}

func TestIndexUse(t *testing.T) {
	cat, db := newTestDB(t)
	seed(t, db)
	explain := func(q string, args ...any) ([]string, error) {
		rs, err := db.Query(q, args...)
		if err != nil {
			return nil, err
		}
		defer func() { _ = rs.Close() }()
		var out []string
		for rs.Next() {
			var id, parent, notused int
			var detail string
			if err := rs.Scan(&id, &parent, &notused, &detail); err != nil {
				return nil, err
			}
			out = append(out, detail)
		}
		return out, rs.Err()
	}
	shards := list(str("1"), str("2"))
	tests := []struct {
		name    string
		sql     string
		params  Params
		want    []string
		notWant []string
	}{
		{"point lookup uses the key", "SELECT * FROM Players WHERE PlayerId = @id", Params{"id": i64(1)},
			[]string{"USING PRIMARY KEY (PlayerId=?)"}, []string{"PlayersByName"}},
		{"no hint, no secondary index", "SELECT * FROM Players WHERE Name = 'alice'", nil,
			[]string{"SCAN"}, []string{"PlayersByName"}},
		{"hint uses the index", "SELECT * FROM Players@{FORCE_INDEX=PlayersByName} WHERE Name = 'alice'", nil,
			[]string{"USING INDEX PlayersByName (Name=?)"}, nil},
		{"hinted ORDER BY reads the index backwards", "SELECT PlayerId, Name FROM Players@{FORCE_INDEX=PlayersByName} ORDER BY Name DESC LIMIT 100", nil,
			[]string{"SCAN t1 USING COVERING INDEX PlayersByName"}, []string{"TEMP B-TREE"}},
		{"join uses the child key", "SELECT * FROM Players p JOIN Scores s ON p.PlayerId = s.PlayerId WHERE p.PlayerId=@Id ORDER BY s.Score DESC LIMIT 10",
			Params{"Id": i64(1)}, []string{"USING PRIMARY KEY (PlayerId=?)"}, []string{"SCAN"}},
		{"watcher hinted", "SELECT * FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"shards": p(shards, arrayOf(tInt64)), "ts": p(str("2024-01-01T00:00:00Z"), tTimestamp), "limit": i64(10)},
			[]string{"USING INDEX ChangesByShard (ShardId=? AND LastUpdated>?)"}, nil},
		{"watcher hinted not null", "SELECT * FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IS NOT NULL AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"ts": p(str("2024-01-01T00:00:00Z"), tTimestamp), "limit": i64(10)},
			[]string{"ChangesByShard"}, nil},
		{"watcher hinted no filter", "SELECT * FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"ts": p(str("2024-01-01T00:00:00Z"), tTimestamp), "limit": i64(10)},
			[]string{"ChangesByShard"}, nil},
		{"watcher unhinted scans", "SELECT * FROM Changes WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
			Params{"shards": p(shards, arrayOf(tInt64)), "ts": p(str("2024-01-01T00:00:00Z"), tTimestamp), "limit": i64(10)},
			[]string{"SCAN"}, []string{"ChangesByShard"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Compile(cat, tt.sql, tt.params, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := queryPlan(t, plan, explain)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("plan of %s\n%s\nlacks %q", plan.SQL, got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("plan of %s\n%s\nhas %q", plan.SQL, got, w)
				}
			}
		})
	}
}
