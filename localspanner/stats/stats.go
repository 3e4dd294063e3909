// Package stats measures what the server really did (query executions, commits,
// Read RPCs and lock conflicts) and serves it as SPANNER_SYS.QUERY_STATS_*,
// TXN_STATS_*, READ_STATS_* and LOCK_STATS_* tables.
// Samples are kept in one-minute buckets; 10-minute and hour tables sum them.
// Only closed intervals are shown, as in Spanner.
package stats

import (
	"sort"
	"sync"
	"time"

	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/storage"
)

// keep is how long minute buckets are kept (a few hour intervals).
const keep = 3 * time.Hour

// topN is the most rows a TOP table lists per interval.
const topN = 100

// maxShapes bounds the distinct queries (or transaction shapes) kept per minute;
// executions beyond it are still counted in the TOTAL tables, under one row.
const maxShapes = 2000

// otherText is the TEXT of the row that collects queries beyond maxShapes.
const otherText = "(other queries)"

type queryAgg struct {
	tag                  string // REQUEST_TAG ("" when untagged)
	text                 string
	fprint               int64
	count, failed        int64
	latency, cpu         float64
	rows, bytes, scanned int64
}

type txnAgg struct {
	tag                     string // TRANSACTION_TAG ("" when untagged)
	fprint                  int64
	attempts, aborts        int64
	commitLatency, totalLat float64
	// participants sums the participants of the committed attempts, committed counts them.
	participants, committed int64
}

type bucket struct {
	queries map[int64]*queryAgg
	txns    map[int64]*txnAgg
	reads   map[string]*readAgg // readKey -> Read RPCs of one shape
	locks   map[string]*lockAgg // ROW_RANGE_START_KEY -> its lock conflicts
}

func newBucket() *bucket {
	return &bucket{queries: map[int64]*queryAgg{}, txns: map[int64]*txnAgg{}, reads: map[string]*readAgg{}, locks: map[string]*lockAgg{}}
}

// dbStats are the statistics of one database.
type dbStats struct {
	mu      sync.Mutex
	buckets map[int64]*bucket // minute end (Unix seconds) -> samples
	totals  totals            // since the server started (SPANLOAD_COUNTERS)
}

// Collector collects statistics for every database.
type Collector struct {
	mu  sync.Mutex
	dbs map[*storage.DB]*dbStats
	now func() time.Time
}

// New returns an empty collector.
func New() *Collector {
	return &Collector{dbs: map[*storage.DB]*dbStats{}, now: time.Now}
}

func (c *Collector) of(db *storage.DB) *dbStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.dbs[db]
	if !ok {
		s = &dbStats{buckets: map[int64]*bucket{}}
		c.dbs[db] = s
	}
	return s
}

// Forget drops the statistics of a dropped database.
func (c *Collector) Forget(db *storage.DB) {
	c.mu.Lock()
	delete(c.dbs, db)
	c.mu.Unlock()
}

func fingerprint(s string) int64 { return int64(sqlfn.Fingerprint64([]byte(s))) }

// rowKey is a statistics row's FPRINT: as Spanner documents it, the hash of the request (or
// transaction) tag when there is one, else of the query text (or transaction shape). So one row
// holds every execution under a tag, whatever its text, and untagged executions group by text.
// A tag "t" and an untagged text "t" share a hash; the tag is kept apart by the prefix.
func rowKey(tag, text string) int64 {
	if tag != "" {
		return fingerprint("\x00tag:" + tag)
	}
	return fingerprint(text)
}

// bucketFor returns the bucket of the minute that contains t (under s.mu).
func (s *dbStats) bucketFor(t time.Time) *bucket {
	end := t.Truncate(time.Minute).Add(time.Minute).Unix()
	b, ok := s.buckets[end]
	if !ok {
		b = newBucket()
		s.buckets[end] = b
		cutoff := t.Add(-keep).Unix()
		for k := range s.buckets {
			if k < cutoff {
				delete(s.buckets, k)
			}
		}
	}
	return b
}

// RecordQuery records one execution of a query sent with request tag tag ("" for none).
func (c *Collector) RecordQuery(db *storage.DB, sql, tag string, latencySec, cpuSec float64, rows, bytes, scanned int64, failed bool) {
	s := c.of(db)
	fp := rowKey(tag, sql)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketFor(c.now())
	a, ok := b.queries[fp]
	if !ok && len(b.queries) >= maxShapes {
		fp = fingerprint(otherText)
		a, ok = b.queries[fp]
		sql, tag = otherText, ""
	}
	if !ok {
		a = &queryAgg{tag: tag, text: sql, fprint: fp}
		b.queries[fp] = a
	}
	a.count++
	if failed {
		a.failed++
	}
	a.latency += latencySec
	a.cpu += cpuSec
	a.rows += rows
	a.bytes += bytes
	a.scanned += scanned
}

// RecordCommit records one commit attempt of a read-write transaction whose
// shape (tables and columns read and written) is shape, tagged tag ("" for none):
// its participants and the
// CPU the latency model charged it (when it committed), how long the commit took
// and how long the transaction lived.
func (c *Collector) RecordCommit(db *storage.DB, shape, tag string, committed, aborted bool, participants int, modelCPUSec, commitSec, totalSec float64) {
	s := c.of(db)
	fp := rowKey(tag, shape)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketFor(c.now())
	a, ok := b.txns[fp]
	if !ok && len(b.txns) >= maxShapes {
		fp = fingerprint(otherText)
		a, ok = b.txns[fp]
		tag = ""
	}
	if !ok {
		a = &txnAgg{tag: tag, fprint: fp}
		b.txns[fp] = a
	}
	a.attempts++
	if aborted {
		a.aborts++
	}
	a.commitLatency += commitSec
	a.totalLat += totalSec
	if committed {
		a.participants += int64(participants)
		a.committed++
		s.totals.commits++
		s.totals.participants += int64(participants)
		s.totals.commitSec += commitSec
	}
	s.totals.modelCPUSec += modelCPUSec
}

// interval is one closed interval of a table.
type interval struct {
	end int64
	*bucket
}

// intervals sums the closed minute buckets into intervals of the given length.
func (s *dbStats) intervals(now time.Time, length time.Duration) []interval {
	s.mu.Lock()
	defer s.mu.Unlock()
	step := int64(length / time.Second)
	byEnd := map[int64]*interval{}
	for end, b := range s.buckets {
		if end > now.Unix() {
			continue // the current minute is still open
		}
		iend := ((end + step - 1) / step) * step
		if iend > now.Unix() {
			continue // its longer interval is still open
		}
		iv, ok := byEnd[iend]
		if !ok {
			iv = &interval{end: iend, bucket: newBucket()}
			byEnd[iend] = iv
		}
		for fp, q := range b.queries {
			a, ok := iv.queries[fp]
			if !ok {
				a = &queryAgg{tag: q.tag, text: q.text, fprint: fp}
				iv.queries[fp] = a
			}
			a.count += q.count
			a.failed += q.failed
			a.latency += q.latency
			a.cpu += q.cpu
			a.rows += q.rows
			a.bytes += q.bytes
			a.scanned += q.scanned
		}
		for fp, t := range b.txns {
			a, ok := iv.txns[fp]
			if !ok {
				a = &txnAgg{tag: t.tag, fprint: fp}
				iv.txns[fp] = a
			}
			a.attempts += t.attempts
			a.aborts += t.aborts
			a.commitLatency += t.commitLatency
			a.totalLat += t.totalLat
			a.participants += t.participants
			a.committed += t.committed
		}
		iv.mergeReadsLocks(b)
	}
	out := make([]interval, 0, len(byEnd))
	for _, iv := range byEnd {
		out = append(out, *iv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].end < out[j].end })
	return out
}
