package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
)

// ReadTSParam is the named SQLite parameter that holds the read timestamp (µs) in
// the FROM fragments of a stale read.
const ReadTSParam = "spanload_read_ts"

// SysTables resolves SPANNER_SYS tables for the query layer (implemented by stats).
type SysTables interface {
	SysTable(name string) (*schema.Table, schema.From, bool)
	// SysArgs returns the named arguments that the fragments of the SPANNER_SYS
	// tables used by sqlText need.
	SysArgs(sqlText string) []any
}

// Source is the query.Source of a read: current rows (strong) or the rows as of a
// read timestamp (from current rows and history).
type Source struct {
	d     *DB
	stale bool
	ts    int64
}

// CurrentSource reads the current rows.
func (d *DB) CurrentSource() *Source { return &Source{d: d} }

// SourceAt reads the rows as of ts (µs).
func (d *DB) SourceAt(ts int64) *Source { return &Source{d: d, stale: true, ts: ts} }

// Table implements query.Source.
func (s *Source) Table(t *schema.Table) (schema.From, error) {
	if !s.stale {
		return schema.From{SQL: t.SQLName, Indexable: true}, nil
	}
	cols := colNames(t.Columns, "", "")
	p := ":" + ReadTSParam
	return schema.From{SQL: "(SELECT " + cols + " FROM " + t.SQLName + " WHERE " + schema.HiddenTS + " <= " + p +
		" UNION ALL SELECT " + cols + " FROM " + t.HistoryName() + " WHERE _to > " + p + " AND _from <= " + p + ")"}, nil
}

// SysTable implements query.Source.
func (s *Source) SysTable(name string) (*schema.Table, schema.From, bool) {
	if s.d.Sys == nil {
		return nil, schema.From{}, false
	}
	return s.d.Sys.SysTable(name)
}

// Key implements query.Source.
func (s *Source) Key() string {
	if s.stale {
		return "stale"
	}
	return "current"
}

// Args returns the named arguments the fragments of this source need for sqlText.
func (s *Source) Args(sqlText string) []any {
	var args []any
	if s.stale {
		args = append(args, sql.Named(ReadTSParam, s.ts))
	}
	if s.d.Sys != nil && strings.Contains(sqlText, ":sys_") {
		args = append(args, s.d.Sys.SysArgs(sqlText)...)
	}
	return args
}

// ReadSpec is a Read RPC: rows of Table (through Index when set) whose keys are in
// KeySet, the given Columns, at most Limit rows (0: no limit).
type ReadSpec struct {
	Table   *schema.Table
	Index   *schema.Index
	Columns []*schema.Column
	KeySet  KeySet
	Limit   int64
}

// KeyParts are the key parts that KeySet entries address: the primary key, or
// the index keys followed by the primary key columns not among them.
func (r *ReadSpec) KeyParts() []schema.KeyPart {
	if r.Index == nil {
		return r.Table.PrimaryKey
	}
	parts := append([]schema.KeyPart(nil), r.Index.Keys...)
	for _, pk := range r.Table.PrimaryKey {
		dup := false
		for _, k := range r.Index.Keys {
			if k.Column == pk.Column {
				dup = true
			}
		}
		if !dup {
			parts = append(parts, pk)
		}
	}
	return parts
}

// SQL builds the SELECT of a read over src.
func (r *ReadSpec) SQL(src *Source) (string, []any, error) {
	parts := r.KeyParts()
	from, err := src.Table(r.Table)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	b.WriteString("SELECT " + colNames(r.Columns, "", "") + " FROM " + from.SQL + " AS t")
	if r.Index != nil && from.Indexable {
		b.WriteString(" INDEXED BY " + r.Index.SQLName)
	}
	var conds []string
	var args []any
	if !r.KeySet.All {
		for _, k := range r.KeySet.Keys {
			if len(k) > len(parts) || (r.Index == nil && len(k) != len(parts)) {
				return "", nil, spanerr.InvalidArgument("Wrong number of key parts in %s for %s: %d", FormatKey(k), r.target(), len(k))
			}
			conds = append(conds, pointWhere(parts, len(k), "t."))
			args = append(args, k...)
		}
		for _, kr := range r.KeySet.Ranges {
			if len(kr.Start) > len(parts) || len(kr.End) > len(parts) {
				return "", nil, spanerr.InvalidArgument("Key range for %s has too many key parts", r.target())
			}
			c, a := RangeWhere(parts, kr, "t.")
			conds = append(conds, c)
			args = append(args, a...)
		}
		if len(conds) == 0 {
			conds = []string{"0"}
		}
	}
	var where []string
	if len(conds) == 1 {
		where = append(where, conds[0])
	} else if len(conds) > 1 {
		where = append(where, "(("+strings.Join(conds, ") OR (")+"))")
	}
	if r.Index != nil {
		if nf := r.Index.NullFilterSQL("t."); nf != "" {
			where = append(where, nf)
		}
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	b.WriteString(" ORDER BY ")
	for i, p := range parts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("t." + p.Column.SQLName)
		if p.Desc {
			b.WriteString(" DESC")
		}
	}
	if r.Limit > 0 {
		b.WriteString(" LIMIT " + strconv.FormatInt(r.Limit, 10))
	}
	q, named := nameParams(b.String(), args)
	return q, append(named, src.Args("")...), nil
}

// nameParams turns the positional "?" placeholders of SQL built here (which has
// no string literals) into named ones, so that they can be mixed with the named
// parameters of FROM fragments.
func nameParams(q string, args []any) (string, []any) {
	var b strings.Builder
	named := make([]any, 0, len(args))
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		name := "k" + strconv.Itoa(n)
		b.WriteString(":" + name)
		named = append(named, sql.Named(name, args[n]))
		n++
	}
	return b.String(), named
}

func (r *ReadSpec) target() string {
	if r.Index != nil {
		return "index " + r.Index.Name
	}
	return "table " + r.Table.Name
}

// ScanRows calls fn for each row of rows (cells as the driver returns them) and
// closes rows. fn may keep the slice.
func ScanRows(rows *sql.Rows, fn func(row []any) error) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	n := len(cols)
	ptrs := make([]any, n)
	for rows.Next() {
		row := make([]any, n)
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return sqlfn.RuntimeError(rows.Err())
}

// RowHash accumulates a hash of result rows, to tell whether a read would
// return the same result again.
type RowHash struct{ h hash.Hash64 }

// NewRowHash returns an empty hash.
func NewRowHash() *RowHash { return &RowHash{h: fnv.New64a()} }

// Add adds one row (cells as the driver returns them).
func (r *RowHash) Add(row []any) {
	var buf [9]byte
	for _, x := range row {
		switch v := x.(type) {
		case nil:
			buf[0] = 0
			r.h.Write(buf[:1])
		case int64:
			buf[0] = 1
			binary.LittleEndian.PutUint64(buf[1:], uint64(v))
			r.h.Write(buf[:])
		case float64:
			buf[0] = 2
			binary.LittleEndian.PutUint64(buf[1:], math.Float64bits(v))
			r.h.Write(buf[:])
		case string:
			buf[0] = 3
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(v)))
			r.h.Write(buf[:])
			r.h.Write([]byte(v))
		case []byte:
			buf[0] = 4
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(v)))
			r.h.Write(buf[:])
			r.h.Write(v)
		default:
			r.h.Write([]byte(fmt.Sprint(v)))
		}
	}
	buf[0] = 0xff
	r.h.Write(buf[:1])
}

// Sum returns the hash.
func (r *RowHash) Sum() uint64 { return r.h.Sum64() }

// HashQuery runs q with q and returns the hash of its rows.
func HashQuery(ctx context.Context, query Querier, q string, args []any) (uint64, error) {
	rows, err := query(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	h := NewRowHash()
	if err := ScanRows(rows, func(row []any) error { h.Add(row); return nil }); err != nil {
		return 0, err
	}
	return h.Sum(), nil
}

// WaitVisible makes every commit with a timestamp at or before ts visible and
// every later commit take a timestamp after ts, so a read at ts is repeatable.
func (d *DB) WaitVisible(ts int64) {
	if ts <= d.lastTS.Load() {
		return
	}
	d.raiseFloor(ts)
	d.commitMu.Lock()
	//nolint:staticcheck // an empty critical section waits for the commit in flight
	d.commitMu.Unlock()
}
