package storage

// Change stream partitions follow the splits of the watched tables: a partition is
// one split of a table hierarchy (a key range of its root key) from a start
// timestamp on. When a commit divides the split, the partition ends with that commit
// and its children (the split's pieces) start right after it. Splits only divide
// (they never merge), so every child has one parent.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// splitDivision is one boundary a commit made in a split object.
type splitDivision struct {
	ts    int64
	obj   string
	bound []any
}

func (w *writer) logDivisions() error {
	for _, dv := range w.track.divisions {
		cells := make([][]string, len(dv.bound))
		for i, c := range dv.bound {
			cells[i] = jsonCell(c)
		}
		js, err := json.Marshal(cells)
		if err != nil {
			return fmt.Errorf("log division of %s: %w", dv.obj, err)
		}
		if _, err := w.exec("INSERT INTO _spanload_split_log (ts, obj, bound) VALUES (?, ?, ?)", dv.ts, dv.obj, string(js)); err != nil {
			return fmt.Errorf("log division of %s: %w", dv.obj, err)
		}
	}
	return nil
}

func (d *DB) loadSplitLog(ctx context.Context) error {
	rows, err := d.writer.QueryContext(ctx, "SELECT ts, obj, bound FROM _spanload_split_log ORDER BY ts")
	if err != nil {
		return fmt.Errorf("load split log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var dv splitDivision
		var js string
		if err := rows.Scan(&dv.ts, &dv.obj, &js); err != nil {
			return fmt.Errorf("load split log: %w", err)
		}
		if dv.bound, err = boundFromJSON(js); err != nil {
			return fmt.Errorf("load split log: %w", err)
		}
		d.splitLog = append(d.splitLog, dv)
	}
	return rows.Err()
}

func boundFromJSON(js string) ([]any, error) {
	var cells [][]string
	if err := json.Unmarshal([]byte(js), &cells); err != nil {
		return nil, err
	}
	key := make([]any, len(cells))
	for i, c := range cells {
		var err error
		if key[i], err = cellFromJSON(c); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// Partition is one change stream partition: the root keys lo <= key < hi (nil: no
// bound) of a table hierarchy, from Start (µs) on.
type Partition struct {
	Stream string
	Obj    string
	Lo, Hi []any
	Start  int64
}

type partitionToken struct {
	S  string     `json:"s"`
	O  string     `json:"o"`
	Lo [][]string `json:"lo,omitempty"`
	Hi [][]string `json:"hi,omitempty"`
	T  int64      `json:"t"`
}

func cellsOf(key []any) [][]string {
	if key == nil {
		return nil
	}
	out := make([][]string, len(key))
	for i, c := range key {
		out[i] = jsonCell(c)
	}
	return out
}

func keyOf(cells [][]string) ([]any, error) {
	if cells == nil {
		return nil, nil
	}
	out := make([]any, len(cells))
	for i, c := range cells {
		var err error
		if out[i], err = cellFromJSON(c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Token is the partition's partition_token.
func (p Partition) Token() string {
	js, _ := json.Marshal(partitionToken{S: p.Stream, O: p.Obj, Lo: cellsOf(p.Lo), Hi: cellsOf(p.Hi), T: p.Start})
	return base64.RawURLEncoding.EncodeToString(js)
}

// ParsePartitionToken reads a partition_token of the change stream stream.
func ParsePartitionToken(stream, token string) (Partition, error) {
	bad := spanerr.InvalidArgument("Invalid partition_token: %s", token)
	js, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return Partition{}, bad
	}
	var pt partitionToken
	if err := json.Unmarshal(js, &pt); err != nil || pt.O == "" {
		return Partition{}, bad
	}
	if pt.S != stream {
		return Partition{}, spanerr.InvalidArgument("partition_token %s belongs to another change stream", token)
	}
	p := Partition{Stream: pt.S, Obj: pt.O, Start: pt.T}
	if p.Lo, err = keyOf(pt.Lo); err != nil {
		return Partition{}, bad
	}
	if p.Hi, err = keyOf(pt.Hi); err != nil {
		return Partition{}, bad
	}
	return p, nil
}

// TableObject names the split object of t's hierarchy (partitions are per object).
func TableObject(t *schema.Table) string {
	o, _ := tableObject(t)
	return o
}

// rootParts is the root key of the hierarchy obj ("t:name").
func (d *DB) rootParts(obj string) []schema.KeyPart {
	cat := d.Catalog()
	for _, t := range cat.Tables {
		if t.Parent == nil {
			if o, parts := tableObject(t); o == obj {
				return parts
			}
		}
	}
	return nil
}

// boundsAt returns obj's boundaries in effect for commits after ts: those made by a
// commit at or before ts, or before the split log began. Sorted in key order.
func (d *DB) boundsAt(obj string, ts int64) [][]any {
	d.splits.mu.Lock()
	defer d.splits.mu.Unlock()
	s, ok := d.splits.objs[obj]
	if !ok {
		return nil
	}
	made := map[string]int64{}
	for _, dv := range d.splitLog {
		if dv.obj == obj {
			made[fmt.Sprint(cellsOf(dv.bound))] = dv.ts
		}
	}
	var out [][]any
	for _, b := range s.bounds {
		if t, ok := made[fmt.Sprint(cellsOf(b))]; !ok || t < ts {
			out = append(out, b)
		}
	}
	return out
}

// InitialPartitions returns the partitions of stream over the split objects objs at
// start: one per split in effect then.
func (d *DB) InitialPartitions(stream string, objs []string, start int64) []Partition {
	var out []Partition
	for _, obj := range objs {
		var lo []any
		for _, b := range d.boundsAt(obj, start) {
			out = append(out, Partition{Stream: stream, Obj: obj, Lo: lo, Hi: b, Start: start})
			lo = b
		}
		out = append(out, Partition{Stream: stream, Obj: obj, Lo: lo, Start: start})
	}
	return out
}

// NextDivision returns the first commit at or after p.Start that divided p's key
// range, and p's children after it (ok false while none has).
func (d *DB) NextDivision(p Partition) (ts int64, children []Partition, ok bool) {
	parts := d.rootParts(p.Obj)
	d.splits.mu.Lock()
	var bounds [][]any
	for _, dv := range d.splitLog {
		if dv.obj != p.Obj || dv.ts < p.Start || !p.inside(dv.bound, parts) {
			continue
		}
		if !ok || dv.ts < ts {
			ts, ok, bounds = dv.ts, true, nil
		}
		if dv.ts == ts {
			bounds = append(bounds, dv.bound)
		}
	}
	d.splits.mu.Unlock()
	if !ok {
		return 0, nil, false
	}
	sort.Slice(bounds, func(i, j int) bool { return cmpKey(bounds[i], bounds[j], parts) < 0 })
	lo := p.Lo
	for _, b := range bounds {
		children = append(children, Partition{Stream: p.Stream, Obj: p.Obj, Lo: lo, Hi: b, Start: ts + 1})
		lo = b
	}
	children = append(children, Partition{Stream: p.Stream, Obj: p.Obj, Lo: lo, Hi: p.Hi, Start: ts + 1})
	return ts, children, true
}

// inside reports whether key lies strictly inside p's range.
func (p Partition) inside(key []any, parts []schema.KeyPart) bool {
	return (p.Lo == nil || cmpKey(key, p.Lo, parts) > 0) && (p.Hi == nil || cmpKey(key, p.Hi, parts) < 0)
}

// Holds reports whether a row of t whose key cells are key belongs to p's range.
func (d *DB) Holds(p Partition, t *schema.Table, key []any) bool {
	if TableObject(t) != p.Obj {
		return false
	}
	parts := d.rootParts(p.Obj)
	if len(key) > len(parts) {
		key = key[:len(parts)]
	}
	return (p.Lo == nil || cmpKey(key, p.Lo, parts) >= 0) && (p.Hi == nil || cmpKey(key, p.Hi, parts) < 0)
}

// PartitionOf returns the partition of stream that held a row of t with key at
// commit ts, as a token (used to count a transaction's partitions).
func (d *DB) PartitionOf(stream string, t *schema.Table, key []any, ts int64) string {
	obj := TableObject(t)
	parts := d.rootParts(obj)
	if len(key) > len(parts) {
		key = key[:len(parts)]
	}
	bounds := d.boundsAt(obj, ts)
	i := sort.Search(len(bounds), func(j int) bool { return cmpKey(bounds[j], key, parts) > 0 })
	return fmt.Sprintf("%s/%d", obj, i)
}
