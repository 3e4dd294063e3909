package watcher

import (
	"slices"
	"testing"

	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/schema"
)

func TestPollSQLForEveryHintAndShardFilter(t *testing.T) {
	spec, err := schema.Get("singers")
	if err != nil {
		t.Fatal(err)
	}
	tail := "LastUpdated >= @ts AND (LastUpdated > @ts OR SingerId > @key) ORDER BY LastUpdated, SingerId LIMIT @limit"
	cases := []struct {
		hint   bool
		filter string
		want   string
	}{
		{true, protocol.ShardFixed, "SELECT SingerId, Version, WriterId, LastUpdated, ShardId FROM Singers@{FORCE_INDEX=SingersByShardLastUpdated} WHERE ShardId IN UNNEST(@shards) AND " + tail},
		{false, protocol.ShardFixed, "SELECT SingerId, Version, WriterId, LastUpdated, ShardId FROM Singers WHERE ShardId IN UNNEST(@shards) AND " + tail},
		{true, protocol.ShardNotNull, "SELECT SingerId, Version, WriterId, LastUpdated, ShardId FROM Singers@{FORCE_INDEX=SingersByShardLastUpdated} WHERE ShardId IS NOT NULL AND " + tail},
		{false, protocol.ShardNone, "SELECT SingerId, Version, WriterId, LastUpdated, ShardId FROM Singers WHERE " + tail},
	}
	for _, c := range cases {
		got := PollSQL(spec, protocol.WatcherConfig{TableHint: c.hint, ShardFilter: c.filter})
		if got != c.want {
			t.Errorf("hint %v filter %s:\n got %s\nwant %s", c.hint, c.filter, got, c.want)
		}
	}
}

func TestShardGroupsCoverEveryShardOnce(t *testing.T) {
	for _, watchers := range []int{1, 2, 4, 8, 37} {
		groups := ShardGroups(watchers)
		var all []int64
		for _, g := range groups {
			if len(g) == 0 {
				t.Errorf("%d watchers: an empty group", watchers)
			}
			all = append(all, g...)
		}
		slices.Sort(all)
		if !slices.Equal(all, ShardValues()) || len(groups) != watchers {
			t.Errorf("%d watchers: groups %v", watchers, groups)
		}
	}
	if v := ShardValues(); len(v) != 37 || v[0] != -18 || v[36] != 18 {
		t.Errorf("shard values %v", v)
	}
}
