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
	// CommitRound is one commit round: a commit with one participant takes at least
	// one round from its start, a two-phase commit (two or more participants) at
	// least two. The server's own work counts towards them, as a real commit's does,
	// so that the model's figures do not drift with the machine's load.
	CommitRound = 3 * time.Millisecond
	// CPUPerParticipant is the server CPU a participant costs. It is accounted, not
	// burned (the machine is shared): the server's CPU figures add it to the
	// process's own CPU time (stats.CPUSeconds).
	CPUPerParticipant = time.Millisecond
)

// ModelCost returns the least time a commit with n participants takes under a
// latency model, and the CPU the model charges it; the model "none" charges nothing.
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
