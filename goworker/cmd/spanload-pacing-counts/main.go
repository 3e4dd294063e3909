// Command spanload-pacing-counts prints the arrival counts of the Go worker's Poisson schedule
// over many short runs, one count a line, for bench/pacing.py --counts to set against the
// Poisson distribution they should follow. -mode schedule draws the schedule alone (no clock);
// -mode pacer runs that many real pacers side by side on the real clock, with an operation that
// only counts the arrivals whose intended start lies within -seconds of its pacer's start.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spanload/spanload/goworker/internal/pacing"
)

func main() {
	runs := flag.Int("runs", 200, "runs")
	rate := flag.Float64("rate", 5, "arrivals per second")
	seconds := flag.Float64("seconds", 15, "length of a run")
	mode := flag.String("mode", "schedule", "schedule | pacer")
	parallelism := flag.Int("parallelism", 4, "goroutines of each pacer (-mode pacer)")
	flag.Parse()
	var counts []int64
	switch *mode {
	case "schedule":
		for range *runs {
			s := pacing.NewSchedule(*rate, 0, rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
			counts = append(counts, int64(len(s.PopDue(*seconds, nil))))
		}
	case "pacer":
		counts = pacers(*runs, *rate, *seconds, *parallelism)
	default:
		fmt.Fprintf(os.Stderr, "spanload-pacing-counts: -mode must be schedule or pacer, not %q\n", *mode)
		os.Exit(2)
	}
	for _, n := range counts {
		fmt.Println(n)
	}
}

// grace is how long counted pacers run past their window: what fell due in it has run by then.
const grace = 2 * time.Second

// pacers runs n pacers side by side; each counts the arrivals it ran whose intended start lies
// within seconds of its own start.
func pacers(n int, rate, seconds float64, parallelism int) []int64 {
	counts := make([]atomic.Int64, n)
	all := make([]*pacing.Pacer, n)
	for i := range all {
		started := pacing.Now() // Start restarts the schedule from the clock, a moment later
		all[i] = pacing.New(fmt.Sprintf("count-%d", i), func(intended, _ float64) {
			if intended-started <= seconds {
				counts[i].Add(1)
			}
		}, rate, parallelism, 0, nil)
		all[i].Start()
	}
	time.Sleep(time.Duration(seconds*float64(time.Second)) + grace)
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Go(func() { p.Stop(10 * time.Second) })
	}
	wg.Wait()
	out := make([]int64, n)
	for i := range counts {
		out[i] = counts[i].Load()
	}
	return out
}
