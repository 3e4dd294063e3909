package interp

import "sync"

// lagMeter is one poller's watch lag, as workers/lag.py defines it: a poll whose page is
// not full has received every change committed before it started (its caught-up time); a cycle is
// the wait from that start to the end of the next such poll. The lag of a report interval is the
// longest cycle that ended in it (or the last one before, if none did), or the current cycle's age
// at the interval's end if that is longer: a poll interval plus one poll's duration while the
// watcher keeps up, whatever the phase between polls and reports; growing while it falls behind.
// Time paused does not count. Times are pacing.Now seconds (the worker's monotonic clock).
type lagMeter struct {
	mu       sync.Mutex
	caughtUp float64
	peak     float64 // the longest cycle that ended in this interval (when ended)
	ended    bool
	last     float64 // the last cycle that ended
	paused   bool
	pausedAt float64
}

func newLagMeter(now float64) *lagMeter { return &lagMeter{caughtUp: now} }

func (m *lagMeter) CaughtUp() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.caughtUp
}

// Polled records a successful poll; full: its page was full (more changes wait behind it).
func (m *lagMeter) Polled(started, ended float64, full bool) {
	if full {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = ended - m.caughtUp
	if !m.ended || m.last > m.peak {
		m.peak = m.last
	}
	m.ended = true
	m.caughtUp = max(m.caughtUp, started)
}

func (m *lagMeter) Pause(now float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.paused {
		m.paused, m.pausedAt = true, now
	}
}

func (m *lagMeter) Resume(now float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paused {
		m.caughtUp += now - m.pausedAt
		m.paused = false
	}
}

// Take is the lag (seconds) of the interval ending now, and a new interval begins; false while paused.
func (m *lagMeter) Take(now float64) (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	peak := m.last
	if m.ended {
		peak = m.peak
	}
	m.ended = false
	if m.paused {
		return 0, false
	}
	return max(peak, now-m.caughtUp), true
}
