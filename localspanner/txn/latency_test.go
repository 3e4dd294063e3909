package txn

import (
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

// TestCommitKneeDelaysACommitThatFindsMoreThanTheRateInTheLastSecond feeds the
// meter commit times by hand: with a knee of 3 commits a second, the fourth
// commit after three within a second is the first delayed; one that finds
// three or fewer is not.
func TestCommitKneeDelaysACommitThatFindsMoreThanTheRateInTheLastSecond(t *testing.T) {
	knee := &storage.CommitKnee{Rate: 3, Delay: 50 * time.Millisecond}
	k := &kneeMeter{}
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	steps := []struct {
		at   time.Time
		want time.Duration
	}{
		{ms(0), 0}, {ms(100), 0}, {ms(200), 0},
		{ms(300), 0},           // finds 3 commits in the last second: at the knee, not above
		{ms(400), knee.Delay},  // finds 0, 100, 200, 300: four
		{ms(1150), 0},          // finds 200, 300, 400 (0 and 100 are more than a second old)
		{ms(1250), 0},          // finds 300, 400, 1150
		{ms(1290), knee.Delay}, // finds 300, 400, 1150, 1250
		{ms(2300), 0},          // finds 1290
	}
	for i, s := range steps {
		if got := k.delay(knee, s.at); got != s.want {
			t.Fatalf("commit %d at %v: delay %v, want %v", i, s.at.Sub(t0), got, s.want)
		}
	}
	// the rate changed: the meter starts counting again
	if got := k.delay(&storage.CommitKnee{Rate: 0, Delay: time.Second}, ms(2302)); got != 0 {
		t.Fatalf("the first commit after a change: delay %v, want 0", got)
	}
	if got := k.delay(&storage.CommitKnee{Rate: 0, Delay: time.Second}, ms(2303)); got != time.Second {
		t.Fatalf("knee 0: any commit within a second of another is delayed; got %v", got)
	}
}
