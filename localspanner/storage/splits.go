package storage

// Splits: key ranges of a table hierarchy or an index, as Spanner divides its
// data. They are metadata only (the rows stay where SQLite keeps them): a list of
// boundary keys per object, persisted in _spanload_splits so that a restart keeps
// them. An object is a top-level table together with the tables and indexes
// interleaved in it (their rows sort under a key of the top-level table), or an
// index that is not interleaved (its entries sort by index key, then primary key).
//
// A commit's participants are the distinct splits its writes touch: the row's
// split and, for every index the write changes, the splits of the old and the new
// index entry. At commit, a split whose estimated row count passes the database's
// threshold is counted exactly and divided at its median key.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/spanload/spanload/localspanner/schema"
)

// DefaultSplitRows is the split threshold (rows) of a database that does not set
// spanload_split_rows: the server's --split-rows flag, set once before serving.
// At 50,000 a table of 1 M rows has tens of splits.
var DefaultSplitRows int64 = 50_000

// MinSplitRows is the smallest threshold a database may set.
const MinSplitRows = 2

// maxDivisionsPerCommit bounds the splits one commit divides (a large batch into
// a database with a tiny threshold divides over several commits).
const maxDivisionsPerCommit = 64

// indexScanLimit bounds the rows a range delete reads to find the index entries
// it removes; beyond it every split of the index counts as a participant.
const indexScanLimit = 1000

// unknownRows marks a split whose row count has not been measured yet.
const unknownRows = -1

type splitRef struct {
	obj string
	i   int
}

// splitSet holds the splits of one object: split i is bounds[i-1] <= key < bounds[i].
type splitSet struct {
	bounds [][]any
	rows   []int64 // estimated rows per split, or unknownRows
}

func (s *splitSet) clone() *splitSet {
	return &splitSet{bounds: append([][]any(nil), s.bounds...), rows: append([]int64(nil), s.rows...)}
}

// splitMap is the splits of one database. Commits change it under the commit
// lock and also take mu, which readers outside the commit lock (Splits) take.
type splitMap struct {
	mu   sync.Mutex
	objs map[string]*splitSet
}

// get returns the object's splits, creating one split of unknown size (under the commit lock).
func (m *splitMap) get(obj string) *splitSet {
	s, ok := m.objs[obj]
	if !ok {
		s = &splitSet{rows: []int64{unknownRows}}
		m.mu.Lock()
		m.objs[obj] = s
		m.mu.Unlock()
	}
	return s
}

// commitTrack collects what one commit touches.
type commitTrack struct {
	touched map[splitRef]struct{}
	grew    map[splitRef]int64
	changed map[string]*splitSet // objects divided by this commit, installed once it commits
	// divisions are the boundaries this commit made (for change stream partitions).
	divisions []splitDivision
}

func newCommitTrack() *commitTrack {
	return &commitTrack{touched: map[splitRef]struct{}{}, grew: map[splitRef]int64{}}
}

// Splits returns the number of splits of each object of the database
// ("table NAME" for a table hierarchy, "index NAME" for an index with its own splits).
func (d *DB) Splits() map[string]int {
	d.splits.mu.Lock()
	defer d.splits.mu.Unlock()
	out := make(map[string]int, len(d.splits.objs))
	for obj, s := range d.splits.objs {
		kind, name, _ := strings.Cut(obj, ":")
		if kind == "t" {
			kind = "table"
		} else {
			kind = "index"
		}
		out[kind+" "+name] = len(s.bounds) + 1
	}
	return out
}

// SplitCount is the total number of splits of the database's tables and indexes.
func (d *DB) SplitCount() int {
	n := 0
	for _, c := range d.Splits() {
		n += c
	}
	return n
}

func rootOf(t *schema.Table) *schema.Table {
	for t.Parent != nil {
		t = t.Parent
	}
	return t
}

func tableObject(t *schema.Table) (string, []schema.KeyPart) {
	root := rootOf(t)
	return "t:" + strings.ToLower(root.Name), root.PrimaryKey
}

// indexParts is the key order of an index's entries: index key, then primary key.
func indexParts(ix *schema.Index) []schema.KeyPart {
	return append(append([]schema.KeyPart(nil), ix.Keys...), ix.Table.PrimaryKey...)
}

// indexObject returns the object that holds an index's entries and the length of
// the entry key prefix that places them in it.
func indexObject(ix *schema.Index) (obj string, parts []schema.KeyPart) {
	if ix.Interleave != nil {
		return tableObject(ix.Interleave)
	}
	return "i:" + strings.ToLower(ix.Name), indexParts(ix)
}

// cellRank orders values of different storage classes as SQLite does.
func cellRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64, float64, bool:
		return 1
	case string:
		return 2
	case []byte:
		return 3
	}
	return 4
}

func num(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// cmpCell compares two key cells in SQLite's order of stored values.
func cmpCell(a, b any) int {
	if ra, rb := cellRank(a), cellRank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(num(a), num(b))
	case float64, bool:
		return cmp.Compare(num(a), num(b))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	return 0
}

// cmpKey compares keys over their common length in key order (DESC parts
// reversed); keys equal on it compare 0.
func cmpKey(a, b []any, parts []schema.KeyPart) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		c := cmpCell(a[i], b[i])
		if i < len(parts) && parts[i].Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// splitOf returns the index of the split that holds key.
func (s *splitSet) splitOf(key []any, parts []schema.KeyPart) int {
	return sort.Search(len(s.bounds), func(j int) bool { return cmpKey(s.bounds[j], key, parts) > 0 })
}

// splitsBetween returns the first and last split that may hold keys with a
// prefix from start to end (either may be empty: unbounded).
func (s *splitSet) splitsBetween(start, end []any, parts []schema.KeyPart) (int, int) {
	lo := sort.Search(len(s.bounds), func(j int) bool { return cmpKey(s.bounds[j], start, parts) >= 0 })
	hi := sort.Search(len(s.bounds), func(j int) bool { return cmpKey(s.bounds[j], end, parts) > 0 })
	return lo, max(lo, hi)
}

// touch records that the commit writes key of obj (inserted: a new row or entry).
func (w *writer) touch(obj string, parts []schema.KeyPart, key []any, inserted bool) {
	s := w.d.splits.get(obj)
	if len(key) > len(parts) {
		key = key[:len(parts)]
	}
	ref := splitRef{obj, s.splitOf(key, parts)}
	w.track.touched[ref] = struct{}{}
	if inserted {
		w.track.grew[ref]++
	}
}

func (w *writer) touchAll(obj string) {
	s := w.d.splits.get(obj)
	for i := 0; i <= len(s.bounds); i++ {
		w.track.touched[splitRef{obj, i}] = struct{}{}
	}
}

// indexColumns is every column an index of t keys on, without repeats.
func indexColumns(t *schema.Table) []*schema.Column {
	var out []*schema.Column
	seen := map[*schema.Column]bool{}
	for _, ix := range t.Indexes {
		for _, k := range ix.Keys {
			if !seen[k.Column] {
				seen[k.Column] = true
				out = append(out, k.Column)
			}
		}
	}
	return out
}

// writtenIndexes are the indexes whose entries a write of cols changes.
func writtenIndexes(t *schema.Table, op Op, cols []*schema.Column) []*schema.Index {
	if op != OpUpdate {
		return t.Indexes
	}
	var out []*schema.Index
	for _, ix := range t.Indexes {
		if indexUses(ix, cols) {
			out = append(out, ix)
		}
	}
	return out
}

func indexUses(ix *schema.Index, cols []*schema.Column) bool {
	for _, c := range cols {
		for _, k := range ix.Keys {
			if k.Column == c {
				return true
			}
		}
		for _, s := range ix.Storing {
			if s == c {
				return true
			}
		}
	}
	return false
}

// touchEntry records a write of ix's entry for a row whose cells val returns.
func (w *writer) touchEntry(ix *schema.Index, val func(*schema.Column) any, pk []any, inserted bool) {
	entry := make([]any, 0, len(ix.Keys)+len(pk))
	for _, k := range ix.Keys {
		v := val(k.Column)
		if v == nil && ix.NullFiltered {
			return // the row has no entry in a NULL_FILTERED index
		}
		entry = append(entry, v)
	}
	entry = append(entry, pk...)
	obj, parts := indexObject(ix)
	w.touch(obj, parts, entry, inserted)
}

// currentIndexed reads the indexed cells of t's row with key as it is now; ok is
// false when the row does not exist.
func (w *writer) currentIndexed(t *schema.Table, key []any) (map[*schema.Column]any, bool, error) {
	cols := indexColumns(t)
	if len(cols) == 0 {
		return nil, false, nil
	}
	q := "SELECT " + colNames(cols, "", "") + " FROM " + t.SQLName + " WHERE " + pointWhere(t.PrimaryKey, len(t.PrimaryKey), "")
	s, err := w.d.writeStmt(w.ctx, q)
	if err != nil {
		return nil, false, fmt.Errorf("read index entries of %s: %w", t.Name, err)
	}
	rows, err := s.QueryContext(context.WithoutCancel(w.ctx), key...)
	if err != nil {
		return nil, false, fmt.Errorf("read index entries of %s: %w", t.Name, err)
	}
	var out map[*schema.Column]any
	err = ScanRows(rows, func(row []any) error {
		out = make(map[*schema.Column]any, len(cols))
		for i, c := range cols {
			out[c] = row[i]
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("read index entries of %s: %w", t.Name, err)
	}
	return out, out != nil, nil
}

// trackBefore records, before a write or delete of t's row with key, the index
// entries the row has now (which the write removes or moves). An index with one
// split needs no read: any entry of it is in that split.
func (w *writer) trackBefore(op Op, t *schema.Table, cols []*schema.Column, key []any) error {
	if w.track == nil || op == OpInsert || len(t.Indexes) == 0 {
		return nil
	}
	ixs := t.Indexes
	if op != OpDelete {
		ixs = writtenIndexes(t, op, cols)
	}
	var divided []*schema.Index
	for _, ix := range ixs {
		obj, _ := indexObject(ix)
		if !w.singleSplit(obj) {
			divided = append(divided, ix)
		} else if op == OpDelete {
			w.touch(obj, nil, nil, false) // its one split
		}
	}
	if len(divided) == 0 {
		return nil
	}
	cur, ok, err := w.currentIndexed(t, key)
	if err != nil || !ok {
		return err
	}
	for _, ix := range divided {
		w.touchEntry(ix, func(c *schema.Column) any { return cur[c] }, key, false)
	}
	return nil
}

// singleSplit reports whether obj has one split, which then holds any key of it.
func (w *writer) singleSplit(obj string) bool { return len(w.d.splits.get(obj).bounds) == 0 }

// rowTracker records the splits one write mutation touches: each row's split and
// the splits of the index entries it adds, moves or removes. Indexes with one split
// need no values (any entry is in it); for divided ones the entries' keys come from
// the written values or, where the write does not give every indexed column (a
// generated column, a partial update), from the table, read in batches per mutation.
type rowTracker struct {
	w        *writer
	t        *schema.Table
	cols     []*schema.Column
	single   []*schema.Index
	divided  []*schema.Index
	pos      map[*schema.Column]int // column -> position in cols
	needRead bool                   // some divided index keys on a column the write does not give
	pending  []pendingRow
}

type pendingRow struct {
	row, key []any
	inserted bool
}

// newRowTracker returns the tracker of mutation m (nil outside commits) and records
// the index entries its rows have before it (those it may move or remove).
func (w *writer) newRowTracker(m *Mutation, keyPos []int) (*rowTracker, error) {
	if w.track == nil {
		return nil, nil
	}
	rt := &rowTracker{w: w, t: m.Table, cols: m.Columns, pos: make(map[*schema.Column]int, len(m.Columns))}
	for i, c := range m.Columns {
		rt.pos[c] = i
	}
	for _, ix := range writtenIndexes(m.Table, m.Op, m.Columns) {
		if obj, _ := indexObject(ix); w.singleSplit(obj) {
			rt.single = append(rt.single, ix)
			continue
		}
		rt.divided = append(rt.divided, ix)
		for _, k := range ix.Keys {
			if _, ok := rt.pos[k.Column]; !ok {
				rt.needRead = true
			}
		}
	}
	if len(rt.divided) == 0 || m.Op == OpInsert || m.Op == OpInsertOrIgnore {
		return rt, nil
	}
	keys := make([][]any, len(m.Rows))
	for i, row := range m.Rows {
		keys[i] = make([]any, len(keyPos))
		for j, p := range keyPos {
			keys[i][j] = row[p]
		}
	}
	cur, err := w.readIndexed(m.Table, keys)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		if vals, ok := cur[KeyString(m.Table.Name, key)]; ok {
			for _, ix := range rt.divided {
				w.touchEntry(ix, func(c *schema.Column) any { return vals[c] }, key, false)
			}
		}
	}
	return rt, nil
}

// after records a written row (call it after writeRow, which tells whether the row is new).
func (rt *rowTracker) after(row, key []any) {
	if rt == nil {
		return
	}
	w := rt.w
	inserted := !w.updated // a new row: the split's row count grows
	obj, parts := tableObject(rt.t)
	w.touch(obj, parts, key, inserted)
	for _, ix := range rt.single {
		if !rt.givenNull(ix, row) {
			io, _ := indexObject(ix)
			w.touch(io, nil, nil, inserted) // its one split
		}
	}
	if len(rt.divided) == 0 {
		return
	}
	if rt.needRead {
		rt.pending = append(rt.pending, pendingRow{row: row, key: append([]any(nil), key...), inserted: inserted})
		return
	}
	for _, ix := range rt.divided {
		w.touchEntry(ix, func(c *schema.Column) any { return row[rt.pos[c]] }, key, inserted)
	}
}

// finish records the entries of the rows whose indexed values had to be read.
func (rt *rowTracker) finish() error {
	if rt == nil || len(rt.pending) == 0 {
		return nil
	}
	keys := make([][]any, len(rt.pending))
	for i, p := range rt.pending {
		keys[i] = p.key
	}
	cur, err := rt.w.readIndexed(rt.t, keys)
	if err != nil {
		return err
	}
	for _, p := range rt.pending {
		vals := cur[KeyString(rt.t.Name, p.key)]
		for _, ix := range rt.divided {
			rt.w.touchEntry(ix, func(c *schema.Column) any {
				if i, ok := rt.pos[c]; ok {
					return p.row[i]
				}
				return vals[c]
			}, p.key, p.inserted)
		}
	}
	return nil
}

func (rt *rowTracker) givenNull(ix *schema.Index, row []any) bool {
	if !ix.NullFiltered {
		return false
	}
	for _, k := range ix.Keys {
		if i, ok := rt.pos[k.Column]; ok && row[i] == nil {
			return true
		}
	}
	return false
}

// readBatch is the most keys one read of indexed values looks up; batches are
// padded to a power of two so that few statements are prepared.
const readBatch = 256

// readIndexed reads the indexed cells of t's rows with the given keys, by
// KeyString; rows that do not exist are absent.
func (w *writer) readIndexed(t *schema.Table, keys [][]any) (map[string]map[*schema.Column]any, error) {
	cols := indexColumns(t)
	pk := make([]*schema.Column, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		pk[i] = k.Column
	}
	tuple := "(" + placeholders(len(pk)) + ")"
	out := make(map[string]map[*schema.Column]any, len(keys))
	for lo := 0; lo < len(keys); lo += readBatch {
		batch := keys[lo:min(lo+readBatch, len(keys))]
		n := 1
		for n < len(batch) {
			n *= 2
		}
		args := make([]any, 0, n*len(pk))
		for i := 0; i < n; i++ {
			args = append(args, batch[min(i, len(batch)-1)]...) // padded with the last key
		}
		q := "SELECT " + colNames(append(append([]*schema.Column(nil), pk...), cols...), "", "") + " FROM " + t.SQLName +
			" WHERE (" + colNames(pk, "", "") + ") IN (VALUES " + strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ") + ")"
		s, err := w.d.writeStmt(w.ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read index entries of %s: %w", t.Name, err)
		}
		rows, err := s.QueryContext(context.WithoutCancel(w.ctx), args...)
		if err != nil {
			return nil, fmt.Errorf("read index entries of %s: %w", t.Name, err)
		}
		err = ScanRows(rows, func(row []any) error {
			vals := make(map[*schema.Column]any, len(cols))
			for i, c := range cols {
				vals[c] = row[len(pk)+i]
			}
			out[KeyString(t.Name, row[:len(pk)])] = vals
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read index entries of %s: %w", t.Name, err)
		}
	}
	return out, nil
}

// trackDelete records a delete of t's rows selected by ks (before it runs).
func (w *writer) trackDelete(t *schema.Table, ks KeySet) error {
	if w.track == nil {
		return nil
	}
	obj, parts := tableObject(t)
	if ks.All {
		w.touchAll(obj)
		for _, ix := range t.Indexes {
			io, _ := indexObject(ix)
			w.touchAll(io)
		}
		return nil
	}
	for _, k := range ks.Keys {
		if len(k) != len(t.PrimaryKey) {
			continue // delete reports the error
		}
		w.touch(obj, parts, k, false)
		if err := w.trackBefore(OpDelete, t, nil, k); err != nil {
			return err
		}
	}
	for _, r := range ks.Ranges {
		s := w.d.splits.get(obj)
		lo, hi := s.splitsBetween(r.Start, r.End, parts)
		for i := lo; i <= hi; i++ {
			w.track.touched[splitRef{obj, i}] = struct{}{}
		}
		if len(t.Indexes) > 0 {
			if err := w.trackRangeEntries(t, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// trackRangeEntries records the index entries of the rows a range delete removes.
func (w *writer) trackRangeEntries(t *schema.Table, r KeyRange) error {
	if len(r.Start) > len(t.PrimaryKey) || len(r.End) > len(t.PrimaryKey) {
		return nil // delete reports the error
	}
	cols := indexColumns(t)
	pkCols := make([]*schema.Column, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		pkCols[i] = k.Column
	}
	cond, args := RangeWhere(t.PrimaryKey, r, "")
	q := "SELECT " + colNames(append(pkCols, cols...), "", "") + " FROM " + t.SQLName + " WHERE " + cond + " LIMIT " + strconv.Itoa(indexScanLimit+1)
	s, err := w.d.writeStmt(w.ctx, q)
	if err != nil {
		return fmt.Errorf("read index entries of %s: %w", t.Name, err)
	}
	rows, err := s.QueryContext(w.ctx, args...)
	if err != nil {
		return fmt.Errorf("read index entries of %s: %w", t.Name, err)
	}
	var found [][]any
	if err := ScanRows(rows, func(row []any) error { found = append(found, row); return nil }); err != nil {
		return fmt.Errorf("read index entries of %s: %w", t.Name, err)
	}
	if len(found) > indexScanLimit {
		for _, ix := range t.Indexes {
			io, _ := indexObject(ix)
			w.touchAll(io)
		}
		return nil
	}
	n := len(pkCols)
	for _, row := range found {
		for _, ix := range t.Indexes {
			w.touchEntry(ix, func(c *schema.Column) any {
				for i, x := range cols {
					if x == c {
						return row[n+i]
					}
				}
				return nil
			}, row[:n], false)
		}
	}
	return nil
}

// splitRows is the database's split threshold.
func (d *DB) splitRows() int64 {
	if n := d.optSplitRows.Load(); n > 0 {
		return n
	}
	return DefaultSplitRows
}

// divideSplits counts the splits this commit grew past the threshold and divides
// them at their median key (inside the commit's SQLite transaction, which also
// persists the new boundaries). The divided objects are installed after COMMIT.
func (w *writer) divideSplits() error {
	limit := w.d.splitRows()
	refs := make([]splitRef, 0, len(w.track.grew))
	for ref := range w.track.grew {
		refs = append(refs, ref)
	}
	// Divide from the last split down so that a division keeps the indices of the
	// splits still to check.
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].obj != refs[j].obj {
			return refs[i].obj < refs[j].obj
		}
		return refs[i].i > refs[j].i
	})
	divisions := 0
	for _, ref := range refs {
		cur := w.d.splits.get(ref.obj)
		s := w.track.changed[ref.obj]
		if s == nil {
			s = cur
		}
		if s.rows[ref.i] != unknownRows {
			s.rows[ref.i] += w.track.grew[ref]
			if s.rows[ref.i] < limit {
				continue
			}
		}
		if s == cur {
			s = cur.clone()
		}
		n, err := w.divideAt(ref.obj, s, ref.i, limit, &divisions)
		if err != nil {
			return err
		}
		if n > 0 || s.rows[ref.i] != cur.rows[ref.i] {
			if w.track.changed == nil {
				w.track.changed = map[string]*splitSet{}
			}
			w.track.changed[ref.obj] = s
		}
	}
	for obj, s := range w.track.changed {
		if err := w.saveSplits(obj, s); err != nil {
			return err
		}
	}
	return w.logDivisions()
}

// divideAt counts split i of s and, while it holds limit rows or more, divides
// it; it returns how many divisions it made.
func (w *writer) divideAt(obj string, s *splitSet, i int, limit int64, divisions *int) (int, error) {
	made := 0
	for *divisions < maxDivisionsPerCommit {
		var lo, hi []any
		if i > 0 {
			lo = s.bounds[i-1]
		}
		if i < len(s.bounds) {
			hi = s.bounds[i]
		}
		count, med, err := w.countSplit(obj, lo, hi)
		if err != nil {
			return made, err
		}
		s.rows[i] = count
		if count < limit || med == nil || (lo != nil && cmpKey(med, lo, w.objParts(obj)) <= 0) {
			if count >= limit {
				s.rows[i] = limit / 2 // cannot divide (one key prefix): look again later
			}
			return made, nil
		}
		s.bounds = append(s.bounds[:i], append([][]any{med}, s.bounds[i:]...)...)
		w.track.divisions = append(w.track.divisions, splitDivision{ts: w.ts, obj: obj, bound: med})
		left := count / 2
		s.rows = append(s.rows[:i], append([]int64{left, count - left}, s.rows[i+1:]...)...)
		*divisions++
		made++
		if left < limit {
			if count-left < limit {
				return made, nil
			}
			i++
		}
	}
	return made, nil
}

func (w *writer) objParts(obj string) []schema.KeyPart {
	kind, name, _ := strings.Cut(obj, ":")
	cat := w.d.Catalog()
	if kind == "t" {
		if t, ok := cat.Table(name); ok {
			return t.PrimaryKey
		}
		return nil
	}
	if ix, ok := cat.Index(name); ok {
		return indexParts(ix)
	}
	return nil
}

// countSplit counts the rows of obj between lo (inclusive) and hi (exclusive)
// and returns the median key (nil when the object is gone or empty).
func (w *writer) countSplit(obj string, lo, hi []any) (int64, []any, error) {
	kind, name, _ := strings.Cut(obj, ":")
	cat := w.d.Catalog()
	r := KeyRange{Start: lo, StartClosed: true, End: hi, EndClosed: hi == nil}
	if kind == "i" {
		ix, ok := cat.Index(name)
		if !ok {
			return 0, nil, nil
		}
		parts := indexParts(ix)
		cond, args := RangeWhere(parts, r, "")
		if nf := ix.NullFilterSQL(""); nf != "" {
			cond += " AND " + nf
		}
		return w.countAndMedian(ix.Table, cond, args, parts, len(parts))
	}
	root, ok := cat.Table(name)
	if !ok {
		return 0, nil, nil
	}
	// The hierarchy's rows: the median of its largest table, cut to the root's key.
	var total, best int64
	var bestTable *schema.Table
	for _, t := range cat.Tables {
		if rootOf(t) != root {
			continue
		}
		cond, args := RangeWhere(t.PrimaryKey, r, "")
		n, err := w.count(t, cond, args)
		if err != nil {
			return 0, nil, err
		}
		total += n
		if bestTable == nil || n > best {
			best, bestTable = n, t
		}
	}
	if bestTable == nil || best == 0 {
		return total, nil, nil
	}
	cond, args := RangeWhere(bestTable.PrimaryKey, r, "")
	_, med, err := w.countAndMedian(bestTable, cond, args, bestTable.PrimaryKey, len(root.PrimaryKey))
	return total, med, err
}

func (w *writer) count(t *schema.Table, cond string, args []any) (int64, error) {
	s, err := w.d.writeStmt(w.ctx, "SELECT COUNT(*) FROM "+t.SQLName+" WHERE "+cond)
	if err != nil {
		return 0, fmt.Errorf("count split rows of %s: %w", t.Name, err)
	}
	var n int64
	if err := s.QueryRowContext(w.ctx, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count split rows of %s: %w", t.Name, err)
	}
	return n, nil
}

// countAndMedian counts t's rows matching cond and returns the first keyLen
// parts of the median row in the order of parts.
func (w *writer) countAndMedian(t *schema.Table, cond string, args []any, parts []schema.KeyPart, keyLen int) (int64, []any, error) {
	n, err := w.count(t, cond, args)
	if err != nil || n < 2 {
		return n, nil, err
	}
	cols := make([]*schema.Column, keyLen)
	order := make([]string, len(parts))
	for i, p := range parts {
		if i < keyLen {
			cols[i] = p.Column
		}
		order[i] = p.Column.SQLName
		if p.Desc {
			order[i] += " DESC"
		}
	}
	q := "SELECT " + colNames(cols, "", "") + " FROM " + t.SQLName + " WHERE " + cond + " ORDER BY " + strings.Join(order, ", ") + " LIMIT 1 OFFSET ?"
	s, err := w.d.writeStmt(w.ctx, q)
	if err != nil {
		return 0, nil, fmt.Errorf("median of %s: %w", t.Name, err)
	}
	rows, err := s.QueryContext(w.ctx, append(append([]any(nil), args...), n/2)...)
	if err != nil {
		return 0, nil, fmt.Errorf("median of %s: %w", t.Name, err)
	}
	var med []any
	if err := ScanRows(rows, func(row []any) error { med = row; return nil }); err != nil {
		return 0, nil, fmt.Errorf("median of %s: %w", t.Name, err)
	}
	return n, med, nil
}

// installSplits makes a committed commit's divisions current (under the commit lock).
func (d *DB) installSplits(tr *commitTrack) {
	if tr == nil || len(tr.changed) == 0 {
		return
	}
	d.splits.mu.Lock()
	for obj, s := range tr.changed {
		d.splits.objs[obj] = s
	}
	d.splitLog = append(d.splitLog, tr.divisions...)
	d.splits.mu.Unlock()
}

// jsonCell encodes a key cell with its storage class: ["i","42"], ["s","x"], ...
func jsonCell(v any) []string {
	switch x := v.(type) {
	case nil:
		return []string{"n"}
	case int64:
		return []string{"i", strconv.FormatInt(x, 10)}
	case float64:
		return []string{"f", strconv.FormatFloat(x, 'g', -1, 64)}
	case bool:
		if x {
			return []string{"i", "1"}
		}
		return []string{"i", "0"}
	case string:
		return []string{"s", x}
	case []byte:
		return []string{"b", base64.StdEncoding.EncodeToString(x)}
	}
	return []string{"s", fmt.Sprint(v)}
}

func cellFromJSON(c []string) (any, error) {
	if len(c) == 0 {
		return nil, fmt.Errorf("empty cell")
	}
	if c[0] == "n" {
		return nil, nil
	}
	if len(c) != 2 {
		return nil, fmt.Errorf("bad cell %v", c)
	}
	switch c[0] {
	case "i":
		return strconv.ParseInt(c[1], 10, 64)
	case "f":
		f, err := strconv.ParseFloat(c[1], 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, err
		}
		return f, nil
	case "s":
		return c[1], nil
	case "b":
		return base64.StdEncoding.DecodeString(c[1])
	}
	return nil, fmt.Errorf("bad cell kind %q", c[0])
}

type savedSplits struct {
	Bounds [][][]string `json:"bounds"`
	Rows   []int64      `json:"rows"`
}

func (w *writer) saveSplits(obj string, s *splitSet) error {
	sv := savedSplits{Rows: s.rows, Bounds: make([][][]string, len(s.bounds))}
	for i, b := range s.bounds {
		for _, c := range b {
			sv.Bounds[i] = append(sv.Bounds[i], jsonCell(c))
		}
	}
	js, err := json.Marshal(sv)
	if err != nil {
		return fmt.Errorf("save splits of %s: %w", obj, err)
	}
	if _, err := w.exec("INSERT OR REPLACE INTO _spanload_splits (obj, splits) VALUES (?, ?)", obj, string(js)); err != nil {
		return fmt.Errorf("save splits of %s: %w", obj, err)
	}
	return nil
}

// loadSplits reads the persisted splits (at open).
func (d *DB) loadSplits(ctx context.Context) error {
	d.splits.objs = map[string]*splitSet{}
	rows, err := d.writer.QueryContext(ctx, "SELECT obj, splits FROM _spanload_splits")
	if err != nil {
		return fmt.Errorf("load splits: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var obj, js string
		if err := rows.Scan(&obj, &js); err != nil {
			return fmt.Errorf("load splits: %w", err)
		}
		var sv savedSplits
		if err := json.Unmarshal([]byte(js), &sv); err != nil {
			return fmt.Errorf("load splits of %s: %w", obj, err)
		}
		s := &splitSet{rows: sv.Rows}
		for _, b := range sv.Bounds {
			key := make([]any, len(b))
			for i, c := range b {
				if key[i], err = cellFromJSON(c); err != nil {
					return fmt.Errorf("load splits of %s: %w", obj, err)
				}
			}
			s.bounds = append(s.bounds, key)
		}
		if len(s.rows) != len(s.bounds)+1 {
			s.rows = make([]int64, len(s.bounds)+1)
			for i := range s.rows {
				s.rows[i] = unknownRows
			}
		}
		d.splits.objs[obj] = s
	}
	return rows.Err()
}

// droppedSplits names the split objects a DDL change drops.
func droppedSplits(ch *schema.Change) []string {
	var objs []string
	if t := ch.DroppedTable; t != nil {
		if t.Parent == nil {
			o, _ := tableObject(t)
			objs = append(objs, o)
		}
		for _, ix := range t.Indexes {
			objs = append(objs, "i:"+strings.ToLower(ix.Name))
		}
	}
	if ix := ch.DroppedIndex; ix != nil {
		objs = append(objs, "i:"+strings.ToLower(ix.Name))
	}
	return objs
}

// forgetSplits drops objects from the current splits (after their DDL committed).
func (d *DB) forgetSplits(objs []string) {
	d.splits.mu.Lock()
	for _, o := range objs {
		delete(d.splits.objs, o)
		d.splitLog = slices.DeleteFunc(d.splitLog, func(x splitDivision) bool { return x.obj == o })
	}
	d.splits.mu.Unlock()
}
