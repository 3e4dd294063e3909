package exec

// Reading a change stream: the initial query answers the partitions in effect at its
// start; a partition's query streams its data change records as commits make them,
// a heartbeat when it has had nothing to say for heartbeat_milliseconds, and ends at
// its end timestamp or, when a commit divides its split, with a child partitions
// record that names the pieces.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/value"
)

// Flusher is a Sink that can send the rows it holds at once (a long-running change
// stream query must not wait for a full chunk).
type Flusher interface{ Flush() error }

// readChangeStream runs a change stream read function call, writing ChangeRecord rows to sink.
func (e *Engine) readChangeStream(ctx context.Context, db *storage.DB, call *csCall, sink Sink) error {
	created, err := db.StreamCreated(ctx, call.stream.Name)
	if err != nil {
		return err
	}
	if err := call.checkStart(time.Now(), created); err != nil {
		return err
	}
	if call.pgJSON {
		sink.Start([]*spannerpb.StructType_Field{pgRecordField(call.stream.Name)})
	} else {
		sink.Start([]*spannerpb.StructType_Field{field("ChangeRecord", changeRecordType())})
	}
	r := &csReader{db: db, call: call, sink: sink}
	start := call.start.UnixMicro()
	if call.token == "" {
		return r.initial(start)
	}
	p, err := storage.ParsePartitionToken(strings.ToLower(call.stream.Name), call.token)
	if err != nil {
		return err
	}
	r.p, r.token = p, call.token
	return r.follow(ctx, max(start, p.Start))
}

type csReader struct {
	db    *storage.DB
	call  *csCall
	sink  Sink
	p     storage.Partition
	token string
}

func (r *csReader) emit(rec *structpb.Value) error {
	cell := list(rec)
	if r.call.pgJSON {
		var err error
		if cell, err = pgRecordJSON(rec); err != nil {
			return err
		}
	}
	if err := r.sink.Row([]*structpb.Value{cell}); err != nil {
		return err
	}
	if f, ok := r.sink.(Flusher); ok {
		return f.Flush()
	}
	return nil
}

func list(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}

func empty() *structpb.Value { return list() }

func tsValue(us int64) *structpb.Value {
	return structpb.NewStringValue(time.UnixMicro(us).UTC().Format(time.RFC3339Nano))
}

func seq(n int) *structpb.Value { return structpb.NewStringValue(fmt.Sprintf("%08d", n)) }

// changeRecord is one ChangeRecord struct with one of its three arrays filled.
func changeRecord(data, heartbeat, children *structpb.Value) *structpb.Value {
	return list(data, heartbeat, children)
}

func (r *csReader) childRecord(start int64, sequence int, children []storage.Partition, parents []string) *structpb.Value {
	parentVals := make([]*structpb.Value, len(parents))
	for i, p := range parents {
		parentVals[i] = structpb.NewStringValue(p)
	}
	kids := make([]*structpb.Value, len(children))
	for i, c := range children {
		kids[i] = list(structpb.NewStringValue(c.Token()), list(parentVals...))
	}
	return changeRecord(empty(), empty(), list(list(tsValue(start), seq(sequence), list(kids...))))
}

// objects are the split objects of the tables the stream watches.
func (r *csReader) objects() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range r.db.Catalog().Tables {
		if _, ok := r.call.stream.Tracks(t); ok {
			if o := storage.TableObject(t); !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (r *csReader) initial(start int64) error {
	parts := r.db.InitialPartitions(strings.ToLower(r.call.stream.Name), r.objects(), start)
	return r.emit(r.childRecord(start, 0, parts, nil))
}

// follow streams the partition's records from cur on.
func (r *csReader) follow(ctx context.Context, cur int64) error {
	end := int64(-1)
	if r.call.end != nil {
		end = r.call.end.UnixMicro()
	}
	lastSent := time.Now()
	for {
		sig := r.db.CommitSignal()
		beat := time.Since(lastSent) >= r.call.heartbeat
		limit := r.db.LastCommit()
		if beat || (end >= 0 && end < storage.NowMicros()) {
			// a heartbeat is due, or the end has passed: read up to a timestamp no later commit can take
			limit = r.db.SafeTS()
		}
		divTS, children, divided := r.db.NextDivision(r.p)
		upto := limit
		if end >= 0 && upto > end {
			upto = end
		}
		if divided && upto >= divTS {
			upto = divTS
		}
		if upto >= cur {
			n, err := r.sendChanges(ctx, cur, upto)
			if err != nil {
				return err
			}
			if n > 0 {
				lastSent = time.Now()
			}
			cur = upto + 1
		}
		if divided && cur > divTS {
			return r.emit(r.childRecord(divTS+1, 0, children, []string{r.token}))
		}
		if end >= 0 && cur > end {
			return nil
		}
		if beat && time.Since(lastSent) >= r.call.heartbeat {
			if err := r.emit(changeRecord(empty(), list(list(tsValue(cur-1))), empty())); err != nil {
				return err
			}
			lastSent = time.Now()
		}
		wait := r.call.heartbeat - time.Since(lastSent)
		if end >= 0 {
			if untilEnd := time.Until(time.UnixMicro(end)) + time.Millisecond; untilEnd < wait {
				wait = max(untilEnd, time.Millisecond)
			}
		}
		timer := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-sig:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// csMod is the net effect of one transaction on one row.
type csMod struct {
	t        *schema.Table
	ct       *schema.ChangeStreamTable
	key      []any
	modType  string
	old, new map[string]any
}

// sendChanges sends the data change records of the commits in [from, to] that fall
// in the partition, and returns how many it sent.
func (r *csReader) sendChanges(ctx context.Context, from, to int64) (int, error) {
	rows, err := r.db.Changes(ctx, from, to)
	if err != nil {
		return 0, err
	}
	sent := 0
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].TS == rows[i].TS {
			j++
		}
		n, err := r.sendTxn(rows[i].TS, rows[i:j])
		if err != nil {
			return sent, err
		}
		sent += n
		i = j
	}
	return sent, nil
}

// netMods folds one transaction's writes into one mod per row, in the order rows
// were first written, leaving out what the stream does not watch.
func (r *csReader) netMods(rows []storage.ChangeRow) []*csMod {
	cat := r.db.Catalog()
	type acc struct {
		m              *csMod
		existed, lives bool
	}
	var order []string
	byKey := map[string]*acc{}
	for _, cr := range rows {
		t, ok := cat.Table(cr.Table)
		if !ok {
			continue
		}
		ct, ok := r.call.stream.Tracks(t)
		if !ok {
			continue
		}
		cells := cr.New
		if cells == nil {
			cells = cr.Old
		}
		key := make([]any, len(t.PrimaryKey))
		for i, k := range t.PrimaryKey {
			key[i] = cells[k.Column.Name]
		}
		id := t.Name + "\x00" + fmt.Sprint(key)
		a, seen := byKey[id]
		if !seen {
			a = &acc{m: &csMod{t: t, ct: ct, key: key, old: cr.Old}, existed: cr.Op != 'I'}
			byKey[id] = a
			order = append(order, id)
		}
		a.m.new, a.lives = cr.New, cr.Op != 'D'
	}
	var out []*csMod
	for _, id := range order {
		a := byKey[id]
		switch {
		case !a.existed && a.lives:
			a.m.modType, a.m.old = "INSERT", nil
		case a.existed && a.lives:
			a.m.modType = "UPDATE"
		case a.existed:
			a.m.modType, a.m.new = "DELETE", nil
		default:
			continue
		}
		if r.call.stream.Excludes(a.m.modType) {
			continue
		}
		if a.m.modType == "UPDATE" && !a.m.ct.AllColumns && len(a.m.changed()) == 0 {
			continue
		}
		out = append(out, a.m)
	}
	return out
}

// tracked is the mod's non-key columns the stream watches, in table order.
func (m *csMod) tracked() []*schema.Column {
	var out []*schema.Column
	for _, c := range m.t.Columns {
		if !m.t.IsKey(c) && m.ct.TracksColumn(m.t, c) {
			out = append(out, c)
		}
	}
	return out
}

// changed is the watched non-key columns whose value the update changed.
func (m *csMod) changed() []*schema.Column {
	var out []*schema.Column
	for _, c := range m.tracked() {
		if fmt.Sprint(m.old[c.Name]) != fmt.Sprint(m.new[c.Name]) {
			out = append(out, c)
		}
	}
	return out
}

// values returns the new and old value columns of the mod per value capture type.
func (m *csMod) values(capture string) (newCols, oldCols []*schema.Column) {
	switch m.modType {
	case "INSERT":
		return m.tracked(), nil
	case "DELETE":
		if capture == schema.CaptureOldAndNew || capture == schema.CaptureNewRowAndOldVals {
			return nil, m.tracked()
		}
		return nil, nil
	}
	switch capture {
	case schema.CaptureNewRow:
		return m.tracked(), nil
	case schema.CaptureNewValues:
		return m.changed(), nil
	case schema.CaptureNewRowAndOldVals:
		return m.tracked(), m.changed()
	}
	return m.changed(), m.changed()
}

func jsonObject(cols []*schema.Column, cells map[string]any) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range cols {
		v, err := value.FromSQLite(cells[c.Name], c.Type)
		if err != nil {
			return "", err
		}
		name, _ := json.Marshal(c.Name)
		val, err := json.Marshal(v.AsInterface())
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.String(), nil
}

type csGroup struct {
	tag     string
	part    string
	mine    bool
	t       *schema.Table
	modType string
	mods    []*csMod
}

// sendTxn sends the partition's records of the commit at ts.
func (r *csReader) sendTxn(ts int64, rows []storage.ChangeRow) (int, error) {
	stream := strings.ToLower(r.call.stream.Name)
	var groups []*csGroup
	parts := map[string]bool{}
	for _, m := range r.netMods(rows) {
		part := r.db.PartitionOf(stream, m.t, m.key, ts)
		parts[part] = true
		var g *csGroup
		for _, x := range groups {
			if x.part == part && x.t == m.t && x.modType == m.modType {
				g = x
			}
		}
		if g == nil {
			g = &csGroup{tag: rows[0].Tag, part: part, mine: r.db.Holds(r.p, m.t, m.key), t: m.t, modType: m.modType}
			groups = append(groups, g)
		}
		g.mods = append(g.mods, m)
	}
	var mine []*csGroup
	for _, g := range groups {
		if g.mine {
			mine = append(mine, g)
		}
	}
	capture := r.call.stream.CaptureType()
	for i, g := range mine {
		rec, err := r.dataRecord(ts, i, i == len(mine)-1, g, capture, len(groups), len(parts))
		if err != nil {
			return i, err
		}
		if err := r.emit(changeRecord(list(rec), empty(), empty())); err != nil {
			return i, err
		}
	}
	return len(mine), nil
}

func (r *csReader) dataRecord(ts int64, sequence int, last bool, g *csGroup, capture string, records, partitions int) (*structpb.Value, error) {
	used := map[*schema.Column]bool{}
	for _, k := range g.t.PrimaryKey {
		used[k.Column] = true
	}
	var mods []*structpb.Value
	for _, m := range g.mods {
		keyCols := make([]*schema.Column, len(g.t.PrimaryKey))
		for i, k := range g.t.PrimaryKey {
			keyCols[i] = k.Column
		}
		cells := m.new
		if cells == nil {
			cells = m.old
		}
		keys, err := jsonObject(keyCols, cells)
		if err != nil {
			return nil, err
		}
		newCols, oldCols := m.values(capture)
		newJS, err := jsonObject(newCols, m.new)
		if err != nil {
			return nil, err
		}
		oldJS, err := jsonObject(oldCols, m.old)
		if err != nil {
			return nil, err
		}
		for _, c := range append(newCols, oldCols...) {
			used[c] = true
		}
		mods = append(mods, list(structpb.NewStringValue(keys), structpb.NewStringValue(newJS), structpb.NewStringValue(oldJS)))
	}
	var colTypes []*structpb.Value
	for _, c := range g.t.Columns {
		if !used[c] {
			continue
		}
		tj, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(c.Type)
		if err != nil {
			return nil, err
		}
		var compact strings.Builder
		var v any
		if err := json.Unmarshal(tj, &v); err != nil {
			return nil, err
		}
		cj, _ := json.Marshal(v)
		compact.Write(cj)
		colTypes = append(colTypes, list(structpb.NewStringValue(c.Name), structpb.NewStringValue(compact.String()),
			structpb.NewBoolValue(g.t.IsKey(c)), structpb.NewStringValue(strconv.Itoa(c.Position+1))))
	}
	return list(
		tsValue(ts),
		seq(sequence),
		structpb.NewStringValue(strconv.FormatInt(ts, 10)),
		structpb.NewBoolValue(last),
		structpb.NewStringValue(g.t.Name),
		list(colTypes...),
		list(mods...),
		structpb.NewStringValue(g.modType),
		structpb.NewStringValue(capture),
		structpb.NewStringValue(strconv.Itoa(records)),
		structpb.NewStringValue(strconv.Itoa(partitions)),
		structpb.NewStringValue(g.tag),
		structpb.NewBoolValue(false),
	), nil
}
