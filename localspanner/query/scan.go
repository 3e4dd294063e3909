package query

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
)

// Rows scanned: a profiled plan counts the rows SQLite visits with sqlfn's
// sp_scan term (see sqlfn.NewScanCounter).

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
	return sqlfn.TakeScanCount(p.scanToken)
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
