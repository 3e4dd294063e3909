package txn

import (
	"context"
	"time"

	"github.com/spanload/spanload/localspanner/storage"
)

// The production_like latency model (database option spanload_latency_model),
// after the 2PC-participants report: commit latency doubles from one participant
// to two (3.2 ms to 6 ms) and stays there, CPU grows with every participant.
const (
	// CommitRound is the delay of one commit round: a commit with one participant
	// takes one round, a two-phase commit (two or more participants) two.
	CommitRound = 3 * time.Millisecond
	// CPUPerParticipant is the server CPU a participant costs. It is accounted, not
	// burned (the machine is shared): the server's CPU figures add it to the
	// process's own CPU time (stats.CPUSeconds).
	CPUPerParticipant = time.Millisecond
)

// ModelCost returns the commit delay and the CPU that a latency model charges a
// commit with n participants; the model "none" charges nothing.
func ModelCost(model string, n int) (delay, cpu time.Duration) {
	if model != storage.LatencyProductionLike || n < 1 {
		return 0, 0
	}
	rounds := 1
	if n >= 2 {
		rounds = 2
	}
	return time.Duration(rounds) * CommitRound, time.Duration(n) * CPUPerParticipant
}

// wait sleeps for d unless ctx ends first.
func wait(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}
