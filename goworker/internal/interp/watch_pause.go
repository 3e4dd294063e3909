package interp

import "sync/atomic"

// runPause is the run's pause as both watch modes hold it (Watcher polls, StreamWatcher reads):
// set by the worker, read by every follower.
type runPause struct{ paused atomic.Bool }

// SetPaused holds the polls or reads (a paused run).
func (p *runPause) SetPaused(paused bool) { p.paused.Store(paused) }

func (p *runPause) isPaused() bool { return p.paused.Load() }
