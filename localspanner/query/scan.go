package query

import (
	"sync"
	"sync/atomic"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
)

// Rows scanned: a profiled plan has a term sp_scan(:token, <column>) first in the
// WHERE clause of every table it reads, which SQLite evaluates once per row it visits
// (through the table or an index), and which counts into the counter of that plan.

var (
	scanCounters sync.Map // int64 token -> *atomic.Int64
	scanTokens   atomic.Int64
)

const maxScanCounters = 1 << 16

func newScanCounter() (int64, *atomic.Int64) {
	token := scanTokens.Add(1)
	ctr := new(atomic.Int64)
	if token%maxScanCounters == 0 {
		// Plans whose RowsScanned was never called must not pile up forever.
		scanCounters.Range(func(k, _ any) bool {
			if k.(int64) < token-maxScanCounters {
				scanCounters.Delete(k)
			}
			return true
		})
	}
	scanCounters.Store(token, ctr)
	return token, ctr
}

func udfScan(token any, _ any) int64 {
	if t, ok := token.(int64); ok {
		if c, ok := scanCounters.Load(t); ok {
			c.(*atomic.Int64).Add(1)
		}
	}
	return 1
}

// CompileProfiled is Compile for the PROFILE and WITH_STATS query modes: the plan also
// counts the rows it reads from each table, which RowsScanned returns once the rows
// were read. Counting costs a function call per row read, so plain executions should
// use Compile.
func CompileProfiled(cat *schema.Catalog, sql string, params Params, src Source) (*Plan, error) {
	return compileQueryOpts(cat, sql, params, src, true)
}

// RowsScanned returns the rows the query read from its tables so far (base table and
// index rows, as SQLite visited them), for a plan from CompileProfiled; 0 otherwise.
// Call it once, after the last row: it releases the counter.
func (p *Plan) RowsScanned() int64 {
	if p.scanToken == 0 {
		return 0
	}
	n := int64(0)
	if c, ok := scanCounters.LoadAndDelete(p.scanToken); ok {
		n = c.(*atomic.Int64).Load()
	}
	return n
}

// scanTerm is the counting term for one table of a profiled query.
func (c *compiler) scanTerm(firstCol string) string {
	key := "\x00scan"
	i, ok := c.bindIdx[key]
	if !ok {
		i = len(c.binds)
		c.bindIdx[key] = i
		c.binds = append(c.binds, bind{name: "qp" + itoa(int64(i+1)), scan: true, t: scalar(spannerpb.TypeCode_INT64)})
	}
	return "sp_scan(:" + c.binds[i].name + ", " + firstCol + ")"
}
