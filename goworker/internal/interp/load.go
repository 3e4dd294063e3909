package interp

import (
	"context"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/loadphase"
)

// LoadTable is one table of a definition's load, compiled: row i draws its columns, in the order
// written, from stream(seed, "load/<table>", i); a sequence column takes start + step * i.
type LoadTable struct {
	Table  string
	Rows   int64
	cols   []string
	srcs   []source
	values []*Gen // the definition's values, for $value columns (drawn per row, before the columns)
	uses   []int  // the values the columns refer to, in the order values lists them
	base   uint64
	pg     bool // a PostgreSQL database's: NUMERIC goes as PG_NUMERIC
}

// LoadPlan is the definition's load, table by table in the order written; the load phase's row
// numbers are the concatenation of the tables' rows in that order.
func LoadPlan(def *Definition, knobs Knobs, seed uint64) ([]*LoadTable, error) {
	seqs := &sequencers{workers: 1, byPath: map[string]*Sequencer{}}
	p, err := compile(def, knobs, seqs)
	if err != nil {
		return nil, err
	}
	var plan []*LoadTable
	for _, t := range def.Load {
		rows, err := knobs.integer(t.Item.Rows, "load."+t.Name+".rows")
		if err != nil {
			return nil, err
		}
		lt := &LoadTable{Table: t.Name, Rows: max(rows, 0), values: p.values, base: StreamBase(seed, LoadLabel(t.Name)),
			pg: def.PG()}
		for _, c := range t.Item.Columns {
			src, err := p.resolve(c.Item, "load."+t.Name+".columns."+c.Name, nil, seqs, map[int]bool{})
			if err != nil {
				return nil, err
			}
			lt.cols = append(lt.cols, c.Name)
			lt.srcs = append(lt.srcs, src)
		}
		for v := range p.values {
			for _, src := range lt.srcs {
				if src.kind == srcValue && src.index == v {
					lt.uses = append(lt.uses, v)
					break
				}
			}
		}
		plan = append(plan, lt)
	}
	return plan, nil
}

// Row is row i of the table: first the values its columns refer to ($name), in the order values
// lists them, then each column's own generator in the order written (workloads/README.md, "Order
// of draws"), so Python's interpreter writes the same row.
func (t *LoadTable) Row(i int64) []any {
	r := StreamAt(t.base, uint64(i))
	drawn := map[int]any{}
	for _, v := range t.uses {
		drawn[v] = t.values[v].Draw(&r, i)
	}
	row := make([]any, len(t.srcs))
	for k, src := range t.srcs {
		row[k] = src.draw(&r, i, func(v int) any { return drawn[v] })
	}
	return row
}

// Count is how many rows the table holds.
func (t *LoadTable) Count(ctx context.Context, client *spanner.Client) (int64, error) {
	return loadphase.CountWith(ctx, client, spanner.NewStatement("SELECT COUNT(*) FROM "+t.Table), t.Table)
}

// Loaded is what ready.table_rows says: the sum over the load's tables of min(present, wanted).
func Loaded(ctx context.Context, client *spanner.Client, plan []*LoadTable) (int64, error) {
	var sum int64
	for _, t := range plan {
		n, err := t.Count(ctx, client)
		if err != nil {
			return 0, err
		}
		sum += min(n, t.Rows)
	}
	return sum, nil
}

// Wanted is the load's total rows.
func Wanted(plan []*LoadTable) int64 {
	var sum int64
	for _, t := range plan {
		sum += t.Rows
	}
	return sum
}

// Load writes rows [start, start+count) of the concatenated load in single-use commits of at most
// loadphase.BatchRows rows (insert or update, so a retried or resumed batch rewrites, never fails),
// loadphase.InFlight at a time. With resume, a table that already holds its rows is skipped.
func Load(ctx context.Context, client *spanner.Client, plan []*LoadTable, start, count int64, resume bool,
	timeout time.Duration, progress *loadphase.Progress) error {
	offsets := make([]int64, len(plan)+1)
	for i, t := range plan {
		offsets[i+1] = offsets[i] + t.Rows
	}
	full := make([]bool, len(plan))
	if resume {
		for i, t := range plan {
			n, err := t.Count(ctx, client)
			if err != nil {
				return err
			}
			full[i] = n >= t.Rows
		}
	}
	table := func(g int64) int {
		for i := range plan {
			if g < offsets[i+1] {
				return i
			}
		}
		return len(plan) - 1
	}
	next := func(lo int64) int64 { return min(lo+loadphase.BatchRows, offsets[table(lo)+1]) }
	return loadphase.RunCut(ctx, start, min(count, offsets[len(plan)]-start), next, timeout, progress,
		func(ctx context.Context, lo, hi int64) (bool, error) {
			i := table(lo)
			if full[i] {
				return true, nil
			}
			t := plan[i]
			ms := make([]*spanner.Mutation, 0, hi-lo)
			for g := lo; g < hi; g++ {
				row := t.Row(g - offsets[i])
				if t.pg {
					for k, v := range row {
						row[k] = pgClientValue(v)
					}
				}
				ms = append(ms, spanner.InsertOrUpdate(t.Table, t.cols, row))
			}
			_, err := client.Apply(ctx, ms, spanner.ApplyAtLeastOnce())
			return false, err
		})
}
