// Package pacing is the open-loop pacer of workers/pacing.py: Poisson arrivals at a target rate,
// run by a fixed number of goroutines, each operation timed from its intended start.
package pacing

import "time"

var base = time.Now()

// Now is monotonic seconds since the process started: the pacer's clock and the one operations
// use to time themselves.
func Now() float64 { return time.Since(base).Seconds() }
