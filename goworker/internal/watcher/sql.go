// Package watcher is the Change Watcher's commit-timestamp poller (workers/watcher.py), one
// goroutine per shard group. Each group keeps the last (commit timestamp, key) it has seen and
// asks, in a strong read, for the rows after it in (LastUpdated, key) order: it can neither miss
// a change nor see one twice, even when a page ends inside one commit's rows.
package watcher

import (
	"fmt"

	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/schema"
)

// ShardCount is how many ShardId values there are: MOD(FARM_FINGERPRINT(...), 19) is -18..18.
const ShardCount = 37

// ShardValues are -18..18.
func ShardValues() []int64 {
	out := make([]int64, 0, ShardCount)
	for v := -int64(ShardCount / 2); v <= ShardCount/2; v++ {
		out = append(out, v)
	}
	return out
}

// ShardGroups splits the shard values round-robin between watchers groups.
func ShardGroups(watchers int) [][]int64 {
	groups := make([][]int64, watchers)
	for i, v := range ShardValues() {
		groups[i%watchers] = append(groups[i%watchers], v)
	}
	return groups
}

// PollSQL is the poll query of one shard group; @shards, @ts, @key and @limit are bound.
// "LastUpdated >= @ts" stands alone so that the index can seek to it.
func PollSQL(spec *schema.Spec, cfg protocol.WatcherConfig) string {
	hint := ""
	if cfg.TableHint {
		hint = fmt.Sprintf("@{FORCE_INDEX=%s}", spec.Index)
	}
	shard := ""
	switch cfg.ShardFilter {
	case protocol.ShardFixed:
		shard = "ShardId IN UNNEST(@shards) AND "
	case protocol.ShardNotNull:
		shard = "ShardId IS NOT NULL AND "
	}
	return fmt.Sprintf("SELECT %s, Version, WriterId, LastUpdated, ShardId FROM %s%s "+
		"WHERE %sLastUpdated >= @ts AND (LastUpdated > @ts OR %s > @key) "+
		"ORDER BY LastUpdated, %s LIMIT @limit", spec.Key, spec.Table, hint, shard, spec.Key, spec.Key)
}
