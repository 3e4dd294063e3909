package spanclient

import (
	"context"
	"sync"
	"time"

	"github.com/spanload/spanload/goworker/internal/metrics"
)

// PoolTimeout is how long an operation waits for a pooled session before failing.
const PoolTimeout = 10 * time.Second

// Pool stands in for a fixed-size session pool. cloud.google.com/go/spanner v1.96 removed its
// session pool (every operation shares one multiplexed session), so with
// client.multiplexed_sessions off the worker bounds its concurrent operations by
// session_pool_size here: that is what a pool of that size did, and its in-use / idle / waiting
// gauges are what the session-pool-exhaustion report studies.
type Pool struct {
	mu      sync.Mutex
	size    int
	inUse   int
	waiting int
	freed   chan struct{} // closed and replaced whenever a session is returned or the size grows
}

func NewPool(size int) *Pool { return &Pool{size: size, freed: make(chan struct{})} }

func (p *Pool) wakeLocked() {
	close(p.freed)
	p.freed = make(chan struct{})
}

// Resize changes the pool size live.
func (p *Pool) Resize(size int) {
	p.mu.Lock()
	p.size = size
	p.wakeLocked()
	p.mu.Unlock()
}

// Get takes a session, waiting up to PoolTimeout (or the context) for one.
func (p *Pool) Get(ctx context.Context) error {
	p.mu.Lock()
	if p.inUse < p.size {
		p.inUse++
		p.mu.Unlock()
		return nil
	}
	p.waiting++
	defer func() {
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
	}()
	timer := time.NewTimer(PoolTimeout)
	defer timer.Stop()
	for {
		ch := p.freed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return metrics.ErrSessionPoolTimeout
		case <-ctx.Done():
			return ctx.Err()
		}
		p.mu.Lock()
		if p.inUse < p.size {
			p.inUse++
			p.mu.Unlock()
			return nil
		}
	}
}

// Put returns a session.
func (p *Pool) Put() {
	p.mu.Lock()
	p.inUse--
	p.wakeLocked()
	p.mu.Unlock()
}

// Gauges are (in use, idle, waiting).
func (p *Pool) Gauges() (inUse, idle, waiting int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inUse, max(0, p.size-p.inUse), p.waiting
}
