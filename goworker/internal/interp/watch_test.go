package interp

import (
	"encoding/json"
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
