package sqlfn

import (
	"sync"
	"sync/atomic"
)

// Rows scanned: a profiled plan has a term sp_scan(:token, <column>) first in the
// WHERE clause of every table it reads, which SQLite evaluates once per row it visits
// (through the table or an index), and which counts into the counter of that plan.

var (
	scanCounters sync.Map // int64 token -> *atomic.Int64
	scanTokens   atomic.Int64
)

const maxScanCounters = 1 << 16

// NewScanCounter returns a fresh token for sp_scan, whose count TakeScanCount reads.
func NewScanCounter() int64 {
	token := scanTokens.Add(1)
	ctr := new(atomic.Int64)
	if token%maxScanCounters == 0 {
		// Plans whose count was never taken must not pile up forever.
		scanCounters.Range(func(k, _ any) bool {
			if k.(int64) < token-maxScanCounters {
				scanCounters.Delete(k)
			}
			return true
		})
	}
	scanCounters.Store(token, ctr)
	return token
}

// TakeScanCount returns the rows counted under token so far and releases its counter.
func TakeScanCount(token int64) int64 {
	if c, ok := scanCounters.LoadAndDelete(token); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func udfScan(token any, _ any) int64 {
	if t, ok := token.(int64); ok {
		if c, ok := scanCounters.Load(t); ok {
			c.(*atomic.Int64).Add(1)
		}
	}
	return 1
}
