package interp

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The poll is forced through the index with Spanner's table hint (FROM t@{FORCE_INDEX=i}, the
// query-syntax docs) while its bool knob is on; the filter comes first, before the timestamp.
func TestThePollIsForcedThroughTheIndexWhileTheKnobSaysSo(t *testing.T) {
	var def Definition
	data := `{"name": "h", "knobs": {"hint": {"default": true}},
		"operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
		"watch": {"table": "Events", "timestamp": "At", "key": ["Id"], "index": "EventsByShardAt",
			"force_index": "$hint", "filter": "Shard IS NOT NULL"}}`
	if err := json.Unmarshal([]byte(data), &def); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(def.Watch, []string{"Id"}, false, Knobs{"hint": true}, nil, nil, nil, time.Time{})
	want := "SELECT Id, At FROM Events@{FORCE_INDEX=EventsByShardAt} WHERE Shard IS NOT NULL AND At >= @since " +
		"ORDER BY At LIMIT @limit"
	if got := w.SQL(); got != want {
		t.Errorf("hinted poll:\n got %s\nwant %s", got, want)
	}
	w.Apply(Knobs{"hint": false}) // live: the next poll has no hint (and no poller is started)
	want = "SELECT Id, At FROM Events WHERE Shard IS NOT NULL AND At >= @since ORDER BY At LIMIT @limit"
	if got := w.SQL(); got != want {
		t.Errorf("poll without the hint:\n got %s\nwant %s", got, want)
	}
	var bad Definition
	if err := json.Unmarshal([]byte(`{"name": "b", "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
		"watch": {"table": "T", "timestamp": "At", "force_index": "yes"}}`), &bad); err == nil {
		t.Error(`force_index "yes" was accepted`)
	}
}

// With versions the poll also reads each row's version and writer; with shards its shard, of one
// poller's values only (a literal list ANDed like the filter, in either dialect).
func TestThePollReadsVersionsAndOnePollersShards(t *testing.T) {
	w := &Watch{Table: "Items", Timestamp: "LastUpdated", Filter: "Kind = 1",
		Versions: &WatchVersions{Version: "Version", Writer: "WriterId"},
		Shards:   &WatchShards{Column: "ShardId", Values: []int64{-2, -1, 0, 1, 2}}}
	groups := ShardGroups(w.Shards.Values, 2)
	if want := [][]int64{{-2, 0, 2}, {-1, 1}}; !reflect.DeepEqual(groups, want) {
		t.Errorf("groups %v; want values[i::2] %v", groups, want)
	}
	if got := ShardGroups(w.Shards.Values, 9); len(got) != 5 {
		t.Errorf("9 pollers over 5 values: %d groups; want one a value", len(got))
	}
	want := "SELECT Id, LastUpdated, Version, WriterId, ShardId FROM Items WHERE Kind = 1 AND ShardId IN (-1, 1) AND " +
		"LastUpdated >= @since ORDER BY LastUpdated LIMIT @limit"
	if got := WatchSQL(w, []string{"Id"}, false, false, groups[1]...); got != want {
		t.Errorf("GoogleSQL:\n got %s\nwant %s", got, want)
	}
	want = "SELECT Id, LastUpdated, Version, WriterId, ShardId FROM Items WHERE Kind = 1 AND ShardId IN (-2, 0, 2) AND " +
		"LastUpdated >= $1 ORDER BY LastUpdated LIMIT $2"
	if got := WatchSQL(w, []string{"Id"}, false, true, groups[0]...); got != want {
		t.Errorf("PostgreSQL:\n got %s\nwant %s", got, want)
	}
}
