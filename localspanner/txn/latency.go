package txn

import (
	"context"
	"sync"
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

// kneeMeter applies a database's synthetic knee (storage.CommitKnee): it keeps
// the times of the last Rate+1 commits, so that a commit finds more than Rate
// commits in the last second exactly when the oldest of them is less than a
// second old.
type kneeMeter struct {
	mu    sync.Mutex
	times []time.Time // a ring of the last len(times) commits' times
	next  int         // the ring's oldest entry, overwritten next
}

// delay records a commit at now and returns how much longer it takes.
func (k *kneeMeter) delay(knee *storage.CommitKnee, now time.Time) time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	if int64(len(k.times)) != knee.Rate+1 {
		k.times, k.next = make([]time.Time, knee.Rate+1), 0
	}
	oldest := k.times[k.next]
	k.times[k.next] = now
	k.next = (k.next + 1) % len(k.times)
	if !oldest.IsZero() && now.Sub(oldest) < time.Second {
		return knee.Delay
	}
	return 0
}
