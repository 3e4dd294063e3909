package interp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// draws are one execution's values, drawn before any step runs (workloads/README.md, "Order of
// draws"), so that a read-write transaction the client retries runs with the same values.
type draws struct {
	values []any     // by value index; only the operation's are drawn
	steps  [][][]any // per step, per row: its values, inline generators drawn, binds left nil
}

func (op *compiledOp) draw(p *program, r *SplitMix64) *draws {
	d, _ := op.drawKeyed(p, r, &keyState{})
	return d
}

// drawKeyed draws an execution's values, its key generators through k (keys.go); an error is a
// key that could not be reserved (the keys reserved before it are k's to release).
func (op *compiledOp) drawKeyed(p *program, r *SplitMix64, k *keyState) (*draws, error) {
	d := &draws{values: make([]any, len(p.values)), steps: make([][][]any, len(op.steps))}
	versions := false // a version to fill in once the values are drawn
	for _, i := range op.uses {
		g := p.values[i]
		if g.key == keyNone {
			d.values[i] = g.Draw(r, -1)
			continue
		}
		v, err := k.draw(g, r, false)
		if err != nil {
			return nil, err
		}
		d.values[i], versions = v, versions || g.key == keyVersion
	}
	if versions {
		for _, i := range op.uses {
			if p.values[i].key == keyVersion {
				d.values[i] = k.values
			}
		}
	}
	value := func(v int) any { return d.values[v] }
	for i, s := range op.steps {
		n := s.rows
		if s.rows2 != nil {
			n = rowCount(s.rows2.Draw(r, -1))
		}
		rows := make([][]any, n)
		for j := range rows {
			row := make([]any, len(s.srcs))
			k.row, versions = 0, false
			for c, src := range s.srcs {
				if src.kind != srcGen || src.gen.key == keyNone {
					row[c] = src.draw(r, -1, value)
					continue
				}
				v, err := k.draw(src.gen, r, true)
				if err != nil {
					return nil, err
				}
				row[c], versions = v, versions || src.gen.key == keyVersion
			}
			if versions {
				for c, src := range s.srcs {
					if src.kind == srcGen && src.gen.key == keyVersion {
						row[c] = k.version()
					}
				}
			}
			rows[j] = row
		}
		d.steps[i] = rows
	}
	return d, nil
}

func rowCount(v any) int64 {
	if n, ok := v.(int64); ok && n > 0 {
		return n
	}
	return 0
}

// run is one execution's state while its steps run.
type run struct {
	op    *compiledOp
	d     *draws
	binds map[string]any // the official client's spanner.GenericColumnValue, a PostgreSQL driver's value
	rows  int64          // rows read or written
	// rows written: mutation rows and rows a DML statement changed
	written int64
	conv    func(any) any // a drawn value as the interface sends it (nil: as drawn)
}

// value is a drawn or bound value as the interface sends it.
func (x *run) value(v any) any {
	if x.conv == nil {
		return v
	}
	return x.conv(v)
}

// values is row converted by value, in a new slice.
func (x *run) values(row []any) []any {
	if x.conv == nil {
		return row
	}
	out := make([]any, len(row))
	for k, v := range row {
		out[k] = x.conv(v)
	}
	return out
}

// errNoRow is a bind of a step whose statement returned no row, used by a later step.
type errNoRow struct{ name string }

func (e *errNoRow) Error() string {
	return fmt.Sprintf("$%s: the step that binds it returned no row", e.name)
}

// row is step i's row j with the bound columns filled in.
func (x *run) row(i, j int) ([]any, error) {
	s, row := x.op.steps[i], x.d.steps[i][j]
	for k, src := range s.srcs {
		if src.kind == srcBind {
			v, ok := x.binds[src.name]
			if !ok {
				return nil, &errNoRow{src.name}
			}
			row[k] = v
		}
	}
	return row, nil
}

func (x *run) statement(i int) (spanner.Statement, error) {
	s := x.op.steps[i]
	row, err := x.row(i, 0)
	if err != nil {
		return spanner.Statement{}, err
	}
	params := make(map[string]any, len(s.params))
	for k, name := range s.params {
		params[name] = x.value(row[k])
	}
	return spanner.Statement{SQL: s.sql, Params: params}, nil
}

func (x *run) mutations(i int, out []*spanner.Mutation) ([]*spanner.Mutation, error) {
	s := x.op.steps[i]
	for j := range x.d.steps[i] {
		row, err := x.row(i, j)
		if err != nil {
			return nil, err
		}
		row = x.values(row)
		var m *spanner.Mutation
		switch s.kind {
		case StepInsert:
			m = spanner.Insert(s.table, s.cols, row)
		case StepUpdate:
			m = spanner.Update(s.table, s.cols, row)
		case StepInsertOrUpdate:
			m = spanner.InsertOrUpdate(s.table, s.cols, row)
		case StepReplace:
			m = spanner.Replace(s.table, s.cols, row)
		case StepDelete:
			m = spanner.Delete(s.table, spanner.Key(row))
		}
		out = append(out, m)
	}
	return out, nil
}

// allMutations are the mutations of every step.
func (x *run) allMutations() ([]*spanner.Mutation, error) {
	var ms []*spanner.Mutation
	for i := range x.op.steps {
		var err error
		if ms, err = x.mutations(i, ms); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// reader is what a snapshot and a read-write transaction share.
type reader interface {
	Query(ctx context.Context, stmt spanner.Statement) *spanner.RowIterator
	ReadWithOptions(ctx context.Context, table string, keys spanner.KeySet, columns []string,
		opts *spanner.ReadOptions) *spanner.RowIterator
}

// read runs step i (a query or a read) in tx, counting its rows and binding its first row.
func (x *run) read(ctx context.Context, tx reader, i int) error {
	s := x.op.steps[i]
	var it *spanner.RowIterator
	if s.kind == StepSQL {
		stmt, err := x.statement(i)
		if err != nil {
			return err
		}
		it = tx.Query(ctx, stmt)
	} else {
		row, err := x.row(i, 0)
		if err != nil {
			return err
		}
		it = tx.ReadWithOptions(ctx, s.table, spanner.Key(x.values(row)).AsPrefix(), s.cols,
			&spanner.ReadOptions{Index: s.index, Limit: int(s.limit)})
	}
	defer it.Stop()
	first := true
	for {
		r, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return err
		}
		x.rows++
		if first && len(s.binds) > 0 {
			for _, b := range s.binds {
				var v spanner.GenericColumnValue
				if err := r.ColumnByName(b.Item, &v); err != nil {
					return fmt.Errorf("bind %s: %w", b.Name, err)
				}
				x.binds[b.Name] = v
			}
		}
		first = false
	}
}

// execute runs one execution with the official client in its transaction kind (workloads/README.md,
// the transactions table); attempts counts the read-write transaction's runs (the client retries
// aborts).
func (x *run) execute(ctx context.Context, client *spanner.Client) (attempts int, err error) {
	op := x.op
	switch op.tx {
	case TxSingleUse:
		if op.mutations {
			ms, err := x.allMutations()
			if err != nil {
				return 1, err
			}
			_, err = client.Apply(ctx, ms, spanner.ApplyAtLeastOnce())
			if err == nil {
				x.rows += int64(len(ms))
				x.written += int64(len(ms))
			}
			return 1, err
		}
		tx := client.Single().WithTimestampBound(op.bound)
		defer tx.Close()
		return 1, x.read(ctx, tx, 0)
	case TxReadOnly:
		tx := client.ReadOnlyTransaction().WithTimestampBound(op.bound)
		defer tx.Close()
		for i := range op.steps {
			if err := x.read(ctx, tx, i); err != nil {
				return 1, err
			}
		}
		return 1, nil
	case TxReadWrite:
		_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			attempts++
			x.rows, x.written = 0, 0
			clear(x.binds)
			for i, s := range op.steps {
				switch {
				case s.kind == StepSQL && s.dml && len(s.binds) == 0:
					stmt, err := x.statement(i)
					if err != nil {
						return err
					}
					n, err := tx.Update(ctx, stmt)
					if err != nil {
						return err
					}
					x.rows += n
					x.written += n
				case s.kind == StepSQL || s.kind == StepRead:
					if err := x.read(ctx, tx, i); err != nil {
						return err
					}
				default:
					ms, err := x.mutations(i, nil)
					if err != nil {
						return err
					}
					if err := tx.BufferWrite(ms); err != nil {
						return err
					}
					x.rows += int64(len(ms))
					x.written += int64(len(ms))
				}
			}
			return nil
		})
		return attempts, err
	case TxBatchWrite:
		ms, err := x.allMutations()
		if err != nil {
			return 1, err
		}
		it := client.BatchWrite(ctx, []*spanner.MutationGroup{{Mutations: ms}})
		err = it.Do(func(r *spannerpb.BatchWriteResponse) error {
			if st := r.GetStatus(); st != nil && codes.Code(st.GetCode()) != codes.OK {
				return status.ErrorProto(st)
			}
			return nil
		})
		if err == nil {
			x.rows += int64(len(ms))
			x.written += int64(len(ms))
		}
		return 1, err
	case TxPartitionedDML:
		stmt, err := x.statement(0)
		if err != nil {
			return 1, err
		}
		n, err := client.PartitionedUpdate(ctx, stmt)
		x.rows += n
		x.written += n
		return 1, err
	}
	return 1, fmt.Errorf("unknown transaction kind %q", op.tx)
}
