package worker

import (
	"testing"
	"time"
)

// A preloaded run's watch starts at the Begin's time, or the server's if earlier: the server's time
// alone came after other workers' first writes (their changes were missed).
func TestWatchStartIsTheEarlierOfBeginAndTheServersTime(t *testing.T) {
	begun := 1_800_000_000.25
	at := time.Unix(1_800_000_000, 250_000_000).UTC()
	if got := watchStart(at.Add(time.Second), begun); !got.Equal(at) {
		t.Fatalf("server later than Begin: got %v, want the Begin's %v", got, at)
	}
	earlier := at.Add(-time.Millisecond)
	if got := watchStart(earlier, begun); !got.Equal(earlier) {
		t.Fatalf("server earlier than Begin: got %v, want the server's %v", got, earlier)
	}
}
