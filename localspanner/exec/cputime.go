package exec

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD (Linux): the CPU time of the calling thread.
const rusageThread = 1

// threadCPU measures the CPU time the calling goroutine spends between start and
// stop, by pinning it to its OS thread (SQLite's cgo calls run on that thread).
type threadCPU struct {
	start time.Duration
	ok    bool
}

func cpuNow() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

func startCPU() *threadCPU {
	runtime.LockOSThread()
	t, ok := cpuNow()
	return &threadCPU{start: t, ok: ok}
}

// stop returns the CPU time used since startCPU, or fallback when it cannot be measured.
func (c *threadCPU) stop(fallback time.Duration) time.Duration {
	end, ok := cpuNow()
	runtime.UnlockOSThread()
	if !c.ok || !ok || end < c.start {
		return fallback
	}
	return end - c.start
}
