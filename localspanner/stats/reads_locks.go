package stats

import (
	"sort"
	"strconv"
	"strings"

	"github.com/spanload/spanload/localspanner/storage"
)

// maxLockSamples is the most SAMPLE_LOCK_REQUESTS a LOCK_STATS row holds (Spanner's lock
// statistics docs: "The maximum number of samples in this array is 20.").
const maxLockSamples = 20

// readAgg is one READ_STATS row: the Read RPCs of one read shape (or request tag).
type readAgg struct {
	tag         string   // REQUEST_TAG ("" when untagged)
	columns     []string // READ_COLUMNS: table.column, in alphabetical order
	partitioned bool     // READ_TYPE PARTITIONED_READ (a read with a partition token) or READ
	fprint      int64
	count, rw   int64 // executions, and those in read-write transactions
	rows, bytes int64
	cpu         float64
}

// LockRequest is one lock request of a conflict: the column (table.column), the lock
// mode (ReaderShared, WriterShared or Exclusive) and the requesting transaction's tag.
type LockRequest struct {
	Column, Mode, Tag string
}

// lockAgg is one LOCK_STATS row: the conflicts on one row key or row range.
type lockAgg struct {
	key     string // ROW_RANGE_START_KEY
	wait    float64
	samples []LockRequest
}

func readKey(fprint int64, partitioned bool) string {
	return strconv.FormatInt(fprint, 10) + "/" + strconv.FormatBool(partitioned)
}

// RecordRead records one Read RPC: its request tag ("" for none), the columns it read
// (table.column), whether it ran with a partition token and in a read-write
// transaction, the CPU it used and the rows and bytes it returned.
func (c *Collector) RecordRead(db *storage.DB, tag string, columns []string, partitioned, inReadWrite bool, cpuSec float64, rows, bytes int64) {
	cols := append([]string(nil), columns...)
	sort.Strings(cols)
	// FPRINT: "The hash of the REQUEST_TAG value if present; Otherwise, the hash of the
	// READ_COLUMNS value." (Spanner's read statistics docs)
	fp := rowKey(tag, strings.Join(cols, "\x00"))
	key := readKey(fp, partitioned)
	s := c.of(db)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketFor(c.now())
	a, ok := b.reads[key]
	if !ok && len(b.reads) >= maxShapes {
		return // the shapes beyond the bound are not kept (Spanner keeps the top ones too)
	}
	if !ok {
		a = &readAgg{tag: tag, columns: cols, partitioned: partitioned, fprint: fp}
		b.reads[key] = a
	}
	a.add(readAgg{count: 1, rw: b2i(inReadWrite), rows: rows, bytes: bytes, cpu: cpuSec})
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (a *readAgg) add(o readAgg) {
	a.count += o.count
	a.rw += o.rw
	a.rows += o.rows
	a.bytes += o.bytes
	a.cpu += o.cpu
}

// RecordLockConflict records one lock conflict on the row key (or row range) key: how
// long it held the losing transaction up and the lock requests on either side of it.
func (c *Collector) RecordLockConflict(db *storage.DB, key string, waitSec float64, requests []LockRequest) {
	s := c.of(db)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketFor(c.now())
	a, ok := b.locks[key]
	if !ok && len(b.locks) >= maxShapes {
		return
	}
	if !ok {
		a = &lockAgg{key: key}
		b.locks[key] = a
	}
	a.add(waitSec, requests)
}

func (a *lockAgg) add(wait float64, requests []LockRequest) {
	a.wait += wait
	for _, r := range requests {
		if len(a.samples) >= maxLockSamples {
			return
		}
		dup := false
		for _, s := range a.samples {
			if s == r {
				dup = true
				break
			}
		}
		if !dup {
			a.samples = append(a.samples, r)
		}
	}
}

// mergeReadsLocks adds a minute bucket's reads and locks to an interval's.
func (iv *interval) mergeReadsLocks(b *bucket) {
	for k, r := range b.reads {
		a, ok := iv.reads[k]
		if !ok {
			a = &readAgg{tag: r.tag, columns: r.columns, partitioned: r.partitioned, fprint: r.fprint}
			iv.reads[k] = a
		}
		a.add(*r)
	}
	for k, l := range b.locks {
		a, ok := iv.locks[k]
		if !ok {
			a = &lockAgg{key: l.key}
			iv.locks[k] = a
		}
		a.add(l.wait, l.samples)
	}
}

// readRows renders an interval's READ_STATS_TOP (top) or READ_STATS_TOTAL row(s).
func readRows(end string, iv interval, top bool) [][]any {
	rs := make([]*readAgg, 0, len(iv.reads))
	var tot readAgg
	for _, r := range iv.reads {
		rs = append(rs, r)
		tot.add(*r)
	}
	// The emulated reads never wait for locks (they are optimistic), for a client or for a leader,
	// and do no HDD I/O: those averages are 0.
	avgs := func(r *readAgg) []any {
		n := r.count
		return []any{n, jfloat(avg(float64(r.rows), n)), jfloat(avg(float64(r.bytes), n)), jfloat(avg(r.cpu, n)),
			jfloat(0), jfloat(0), jfloat(0), r.rw}
	}
	if !top {
		return [][]any{append([]any{end}, avgs(&tot)...)}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].cpu > rs[j].cpu })
	if len(rs) > topN {
		rs = rs[:topN]
	}
	var rows [][]any
	for _, r := range rs {
		readType := "READ"
		if r.partitioned {
			readType = "PARTITIONED_READ"
		}
		row := []any{end, r.tag, readType, r.columns, r.fprint}
		row = append(row, avgs(r)...)
		rows = append(rows, append(row, jfloat(0)))
	}
	return rows
}

// lockRows renders an interval's LOCK_STATS_TOP (top) or LOCK_STATS_TOTAL row(s).
func lockRows(end string, iv interval, top bool) [][]any {
	ls := make([]*lockAgg, 0, len(iv.locks))
	var total float64
	for _, l := range iv.locks {
		ls = append(ls, l)
		total += l.wait
	}
	if !top {
		return [][]any{{end, jfloat(total)}}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].wait > ls[j].wait })
	if len(ls) > topN {
		ls = ls[:topN]
	}
	var rows [][]any
	for _, l := range ls {
		samples := make([][]string, len(l.samples))
		for i, s := range l.samples {
			samples[i] = []string{s.Column, s.Mode, s.Tag}
		}
		rows = append(rows, []any{end, l.key, jfloat(l.wait), samples})
	}
	return rows
}
