package storage

// The change log behind change streams: a table that SQLite triggers fill, in the
// commit's own transaction, with the old and new row of every write to a table that
// some change stream watches. Tables no stream watches have no such triggers, so a
// database without change streams commits exactly as before. Each log row holds the
// full rows (column name -> storage cell); the read function (exec) picks the
// watched columns and shapes the records per value capture type.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"
	"github.com/mattn/go-sqlite3"

	"github.com/spanload/spanload/localspanner/schema"
)

// cellsFunc is the SQL function, registered on the writer connection, that encodes
// alternating (name, cell) arguments as a JSON object of jsonCell encodings.
const cellsFunc = "spanload_cells"

// tagFunc is the SQL function, registered on the writer connection, that returns the
// transaction tag of the commit in progress.
const tagFunc = "spanload_commit_tag"

const changeLogDDL = "CREATE TABLE IF NOT EXISTS _spanload_changes (ts INTEGER NOT NULL, tbl TEXT NOT NULL, op TEXT NOT NULL, old TEXT, new TEXT, tag TEXT)"

var changeLogSetup = []string{
	changeLogDDL,
	"CREATE INDEX IF NOT EXISTS _spanload_changes_ts ON _spanload_changes (ts)",
	"CREATE TABLE IF NOT EXISTS _spanload_split_log (ts INTEGER NOT NULL, obj TEXT NOT NULL, bound TEXT NOT NULL)",
}

func registerCells(conn *sqlite3.SQLiteConn, tag func() string) error {
	if err := conn.RegisterFunc(tagFunc, tag, false); err != nil {
		return err
	}
	return conn.RegisterFunc(cellsFunc, encodeCells, true)
}

type tagKey struct{}

// WithTransactionTag carries a commit's transaction tag (RequestOptions.transaction_tag) to
// the change log.
func WithTransactionTag(ctx context.Context, tag string) context.Context {
	if tag == "" {
		return ctx
	}
	return context.WithValue(ctx, tagKey{}, tag)
}

func transactionTag(ctx context.Context) string {
	tag, _ := ctx.Value(tagKey{}).(string)
	return tag
}

// encodeCells writes alternating (name, cell) arguments as one JSON object of jsonCell
// encodings (by hand: it runs once per row written to a watched table).
func encodeCells(args ...any) string {
	b := make([]byte, 0, 64*len(args))
	b = append(b, '{')
	for i := 0; i+1 < len(args); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		name, _ := args[i].(string)
		b = appendJSONString(b, name)
		b = append(b, ':', '[')
		cell := args[i+1]
		if blob, ok := cell.([]byte); ok && blob == nil {
			cell = nil // go-sqlite3 passes SQL NULL to a Go function as a nil []byte
		}
		for j, part := range jsonCell(cell) {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, part)
		}
		b = append(b, ']')
	}
	return string(append(b, '}'))
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	js, _ := json.Marshal(s)
	return append(b, js...)
}

// changeTriggers returns the statements that drop the change triggers of every table
// of old and create those of every table of cat that a change stream watches.
func changeTriggers(old, cat *schema.Catalog) (drops, creates []string) {
	if old != nil {
		for _, t := range old.Tables {
			if old.Tracked(t) {
				for _, ev := range []string{"insert", "update", "delete"} {
					drops = append(drops, "DROP TRIGGER IF EXISTS "+changeTriggerName(t, ev))
				}
			}
		}
	}
	for _, t := range cat.Tables {
		if !cat.Tracked(t) {
			continue
		}
		for _, ev := range []string{"insert", "update", "delete"} {
			oldRow, newRow := "NULL", "NULL"
			if ev != "insert" {
				oldRow = cellsCall(t, "OLD.")
			}
			if ev != "delete" {
				newRow = cellsCall(t, "NEW.")
			}
			creates = append(creates, "CREATE TRIGGER "+changeTriggerName(t, ev)+" AFTER "+strings.ToUpper(ev)+" ON "+t.SQLName+
				" BEGIN INSERT INTO _spanload_changes (ts, tbl, op, old, new, tag) VALUES ("+commitTSFunc+"(), "+sqlString(t.Name)+", '"+
				strings.ToUpper(ev[:1])+"', "+oldRow+", "+newRow+", "+tagFunc+"()); END")
		}
	}
	return drops, creates
}

func changeTriggerName(t *schema.Table, ev string) string {
	return `"` + strings.ReplaceAll("_cs_"+t.Name+"_"+ev, `"`, `""`) + `"`
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func cellsCall(t *schema.Table, prefix string) string {
	parts := make([]string, 0, 2*len(t.Columns))
	for _, c := range t.Columns {
		parts = append(parts, sqlString(c.Name), prefix+c.SQLName)
	}
	return cellsFunc + "(" + strings.Join(parts, ", ") + ")"
}

// ChangeRow is one write the change log holds: its commit timestamp, table, kind
// ('I', 'U' or 'D') and the row before and after (column name -> storage cell; nil
// for an insert's old row and a delete's new row).
type ChangeRow struct {
	TS       int64
	Tag      string // the transaction tag
	Table    string
	Op       byte
	Old, New map[string]any
}

// Changes returns the logged writes with commit timestamps in [from, to], in commit
// order and, within a commit, in the order they were made.
func (d *DB) Changes(ctx context.Context, from, to int64) ([]ChangeRow, error) {
	var out []ChangeRow
	_, err := d.Read(ctx, "SELECT ts, tbl, op, old, new, tag FROM _spanload_changes WHERE ts >= ? AND ts <= ? ORDER BY ts, rowid", []any{from, to}, func(row []any) error {
		cr := ChangeRow{TS: row[0].(int64), Table: asString(row[1]), Tag: asString(row[5])}
		if op := asString(row[2]); op != "" {
			cr.Op = op[0]
		}
		var err error
		if cr.Old, err = decodeCells(row[3]); err != nil {
			return err
		}
		if cr.New, err = decodeCells(row[4]); err != nil {
			return err
		}
		out = append(out, cr)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	return out, nil
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

func decodeCells(v any) (map[string]any, error) {
	s := asString(v)
	if s == "" {
		return nil, nil
	}
	var enc map[string][]string
	if err := json.Unmarshal([]byte(s), &enc); err != nil {
		return nil, fmt.Errorf("decode change log row: %w", err)
	}
	out := make(map[string]any, len(enc))
	for k, c := range enc {
		cell, err := cellFromJSON(c)
		if err != nil {
			return nil, fmt.Errorf("decode change log row: %w", err)
		}
		out[k] = cell
	}
	return out, nil
}

// CommitSignal returns a channel that is closed at the next commit (while a change
// stream exists: readers of change streams wait on it).
func (d *DB) CommitSignal() <-chan struct{} {
	return *d.commitSig.Load()
}

// signalCommit wakes the change stream readers (under the commit lock, after a commit).
func (d *DB) signalCommit() {
	if len(d.Catalog().ChangeStreams) == 0 {
		return
	}
	next := make(chan struct{})
	close(*d.commitSig.Swap(&next))
}

// SafeTS returns a timestamp at or after every commit so far, that every later commit
// exceeds: a change stream reader has seen everything up to it once it read the log
// up to it.
func (d *DB) SafeTS() int64 {
	d.commitMu.Lock()
	defer d.commitMu.Unlock()
	ts := d.lastTS.Load()
	if now := NowMicros(); now > ts {
		ts = now
	}
	d.raiseFloor(ts)
	return ts
}

// pruneChanges deletes log rows older than the longest retention of the database's
// change streams (all of them when there is none).
func (d *DB) pruneChanges(ctx context.Context, nowMicros int64) error {
	var keep int64 = -1
	for _, s := range d.Catalog().ChangeStreams {
		keep = max(keep, s.Retention().Microseconds())
	}
	cutoff := nowMicros
	if keep >= 0 {
		cutoff = nowMicros - keep - RetentionSlack.Microseconds()
	}
	q := "DELETE FROM _spanload_changes WHERE rowid IN (SELECT rowid FROM _spanload_changes WHERE ts < ? LIMIT " + fmt.Sprint(pruneBatch) + ")"
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := d.pruneStep(ctx, q, cutoff)
		if err != nil {
			return fmt.Errorf("prune change log: %w", err)
		}
		if n < pruneBatch {
			return nil
		}
	}
}

// createdTS is the timestamp a change stream created now starts at: later than every
// commit so far and every read timestamp handed out (under the commit lock).
func (d *DB) createdTS() int64 {
	ts := NowMicros()
	if last := d.lastTS.Load(); ts <= last {
		ts = last + 1
	}
	if f := d.floorTS.Load(); ts <= f {
		ts = f + 1
	}
	d.raiseFloor(ts)
	return ts
}

// recordStreamCreated keeps the creation time of a change stream that the DDL
// change ch creates (reads may not start before it).
func recordStreamCreated(ctx context.Context, tx *sql.Tx, ch *schema.Change, ts int64) error {
	s, ok := ch.Stmt.(*ast.CreateChangeStream)
	if !ok {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO _spanload_meta (k, v) VALUES (?, ?)", streamCreatedKey(s.Name.Name), strconv.FormatInt(ts, 10)); err != nil {
		return fmt.Errorf("record change stream: %w", err)
	}
	return nil
}

func streamCreatedKey(name string) string { return "change_stream_created:" + strings.ToLower(name) }

// StreamCreated returns when the change stream name was created (µs).
func (d *DB) StreamCreated(ctx context.Context, name string) (int64, error) {
	var ts int64
	_, err := d.Read(ctx, "SELECT v FROM _spanload_meta WHERE k = ?", []any{streamCreatedKey(name)}, func(row []any) error {
		n, err := strconv.ParseInt(asString(row[0]), 10, 64)
		ts = n
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("change stream %s: %w", name, err)
	}
	return ts, nil
}
