// Command spanload-pacing-counts prints the arrival counts of the Go worker's Poisson schedule
// over many short runs, one count a line, for bench/pacing.py --counts to set against the
// Poisson distribution they should follow. -mode schedule draws the schedule alone (no clock);
// -mode pacer runs that many real pacers side by side for -seconds of wall-clock time, with an
// operation that does nothing, and counts the arrivals each one scheduled.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
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

// pacers runs n pacers at once for the given seconds and returns what each scheduled.
func pacers(n int, rate, seconds float64, parallelism int) []int64 {
	all := make([]*pacing.Pacer, n)
	for i := range all {
		all[i] = pacing.New(fmt.Sprintf("count-%d", i), func(float64, float64) {}, rate, parallelism, 0, nil)
	}
	for _, p := range all {
		p.Start()
	}
	time.Sleep(time.Duration(seconds * float64(time.Second)))
	counts := make([]int64, n)
	var wg sync.WaitGroup
	for i, p := range all {
		p.Behind() // collects what fell due unclaimed, so it counts
		counts[i], _ = p.TakeCounts()
		wg.Go(func() { p.Stop(10 * time.Second) })
	}
	wg.Wait()
	return counts
}
