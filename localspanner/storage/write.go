package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/mattn/go-sqlite3"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/value"
)

// Op is the kind of a mutation.
type Op int

// Op values, as in Spanner's Mutation.
const (
	OpInsert Op = iota + 1
	OpUpdate
	OpInsertOrUpdate
	OpReplace
	OpDelete
	// OpInsertOrIgnore inserts rows whose key does not exist and skips the others
	// (DML INSERT OR IGNORE).
	OpInsertOrIgnore
)

// Mutation is a write in the storage encoding. Cells equal to
// value.CommitTimestamp are replaced by the commit timestamp.
type Mutation struct {
	Op      Op
	Table   *schema.Table
	Columns []*schema.Column // for writes
	Rows    [][]any          // for writes: one cell per column
	KeySet  KeySet           // for deletes

	// Ignored counts the rows an OpInsertOrIgnore skipped when it was last applied.
	Ignored int
}

// Count is the number of mutations this write counts as in commit stats:
// one per column written per row (plus one per affected index), one per deleted key.
func (m *Mutation) Count() int64 {
	if m.Op == OpDelete {
		return int64(len(m.KeySet.Keys) + len(m.KeySet.Ranges))
	}
	return int64(len(m.Rows) * (len(m.Columns) + len(m.Table.Indexes)))
}

// FormatTS renders a timestamp in µs as the TIMESTAMP storage encoding.
func FormatTS(us int64) string {
	return time.UnixMicro(us).UTC().Format(value.StorageTimestampLayout)
}

// Commit applies mutations atomically at a new commit timestamp, strictly greater
// than every earlier commit and every read timestamp handed out. validate runs
// under the commit lock before anything is written (the transaction layer checks
// conflicts there); its error aborts the commit. The commit becomes visible to
// readers atomically with its timestamp. committed, if set, runs under the commit
// lock after a successful commit (the transaction layer records its writes there).
func (d *DB) Commit(ctx context.Context, muts []*Mutation, validate func(q Querier) error, committed func(ts int64)) (int64, error) {
	ts, _, err := d.CommitSplits(ctx, muts, validate, committed)
	return ts, err
}

// CommitSplits is Commit that also returns the commit's participants: the
// distinct splits its writes touched, index entries included (at least 1).
func (d *DB) CommitSplits(ctx context.Context, muts []*Mutation, validate func(q Querier) error, committed func(ts int64)) (int64, int, error) {
	d.commitsWaiting.Add(1)
	d.commitMu.Lock()
	d.commitsWaiting.Add(-1)
	defer func() {
		d.commitMu.Unlock()
		d.lastCommitEnd.Store(time.Now().UnixNano())
		d.commitsDone.Add(1)
	}()
	if validate != nil {
		if err := validate(d.writerQuery); err != nil {
			return 0, 0, err
		}
	}
	ts := NowMicros()
	if last := d.lastTS.Load(); ts <= last {
		ts = last + 1
	}
	if f := d.floorTS.Load(); ts <= f {
		ts = f + 1
	}
	d.curTS = ts
	d.curTag = transactionTag(ctx)
	tsText := FormatTS(ts)
	w := &writer{d: d, ctx: ctx, ts: ts, tsText: tsText, track: newCommitTrack()}
	if _, err := w.exec("BEGIN IMMEDIATE"); err != nil {
		return 0, 0, fmt.Errorf("begin commit: %w", err)
	}
	for _, m := range muts {
		if err := w.apply(m); err != nil {
			w.rollback()
			return 0, 0, err
		}
	}
	if err := w.checkForeignKeys(); err != nil {
		w.rollback()
		return 0, 0, err
	}
	if err := w.divideSplits(); err != nil {
		w.rollback()
		return 0, 0, fmt.Errorf("divide splits: %w", err)
	}
	if _, err := w.exec("INSERT OR REPLACE INTO _spanload_meta (k, v) VALUES ('clock', ?)", strconv.FormatInt(ts, 10)); err != nil {
		w.rollback()
		return 0, 0, fmt.Errorf("record clock: %w", err)
	}
	d.pendingTS.Store(ts)
	d.visMu.Lock()
	d.visSeq.Add(1)
	if _, err := w.exec("COMMIT"); err != nil {
		d.visSeq.Add(1)
		d.visMu.Unlock()
		w.rollback()
		d.pendingTS.Store(d.lastTS.Load())
		return 0, 0, fmt.Errorf("commit: %w", err)
	}
	d.lastTS.Store(ts)
	d.visSeq.Add(1)
	d.visMu.Unlock()
	d.installSplits(w.track)
	d.signalCommit()
	if committed != nil {
		committed(ts)
	}
	return ts, max(1, len(w.track.touched)), nil
}

// Querier runs a read-only statement.
type Querier func(ctx context.Context, q string, args ...any) (*sql.Rows, error)

// writerQuery runs a query on the writer connection (under commitMu): it sees
// the latest commit and the write transaction in progress, if any.
func (d *DB) writerQuery(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := d.writeStmt(ctx, q)
	if err != nil {
		return nil, sqlfn.RuntimeError(err)
	}
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return nil, sqlfn.RuntimeError(err)
	}
	return rows, nil
}

// WithPending runs fn on the writer connection inside a write transaction in
// which muts are applied, then rolls it back: fn sees the committed data plus the
// writes of a read-write transaction (read-your-writes), and apply applies one
// more mutation (so a DML statement's constraint errors show at the statement).
// It holds the commit lock while fn runs.
func (d *DB) WithPending(ctx context.Context, muts []*Mutation, fn func(q Querier, apply func(*Mutation) error) error) error {
	d.commitMu.Lock()
	defer d.commitMu.Unlock()
	return d.withPendingLocked(ctx, muts, fn)
}

// withPendingLocked is WithPending for a caller that holds the commit lock.
func (d *DB) withPendingLocked(ctx context.Context, muts []*Mutation, fn func(q Querier, apply func(*Mutation) error) error) error {
	ts := NowMicros()
	if last := d.lastTS.Load(); ts <= last {
		ts = last + 1
	}
	d.curTS = ts
	d.curTag = ""
	w := &writer{d: d, ctx: ctx, ts: ts, tsText: FormatTS(ts)}
	if _, err := w.exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer w.rollback()
	for _, m := range muts {
		if err := w.apply(m); err != nil {
			return err
		}
	}
	// A DML statement's foreign keys are checked at the end of the statement, as
	// Spanner does (buffered mutations wait for the commit).
	applyChecked := func(m *Mutation) error {
		w.fk = fkWrites{}
		if err := w.apply(m); err != nil {
			return err
		}
		return w.checkForeignKeys()
	}
	return fn(d.writerQuery, applyChecked)
}

type writer struct {
	d      *DB
	ctx    context.Context
	ts     int64
	tsText string
	// track collects the splits a commit touches (nil outside commits).
	track *commitTrack
	fk    fkWrites
	// updated is set by writeRow when the row it wrote existed already (no new row).
	updated bool
}

// rollback ends the open write transaction; it uses a background context so that
// a cancelled request still releases the writer.
func (w *writer) rollback() {
	if _, err := w.d.writer.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		slog.Warn("rollback failed", "db", w.d.Name, "err", err)
	}
}

// exec runs a statement that touches a bounded number of rows (one key, BEGIN,
// COMMIT) on the writer. A cancelled request stops before the statement, not in
// it: with a context that cannot be cancelled, neither database/sql nor the
// driver starts a goroutine per statement to watch for the cancellation.
func (w *writer) exec(q string, args ...any) (sql.Result, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	return w.execCtx(context.WithoutCancel(w.ctx), q, args...)
}

// execScan runs a statement that may visit many rows; a cancelled request
// interrupts it.
func (w *writer) execScan(q string, args ...any) (sql.Result, error) {
	return w.execCtx(w.ctx, q, args...)
}

func (w *writer) execCtx(ctx context.Context, q string, args ...any) (sql.Result, error) {
	s, err := w.d.writeStmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// exists reports whether a query that looks up one key returns a row (see exec).
func (w *writer) exists(q string, args ...any) (bool, error) {
	if err := w.ctx.Err(); err != nil {
		return false, err
	}
	return w.existsCtx(context.WithoutCancel(w.ctx), q, args...)
}

// existsScan is exists for a query that may visit many rows (see execScan).
func (w *writer) existsScan(q string, args ...any) (bool, error) {
	return w.existsCtx(w.ctx, q, args...)
}

func (w *writer) existsCtx(ctx context.Context, q string, args ...any) (bool, error) {
	s, err := w.d.writeStmt(ctx, q)
	if err != nil {
		return false, err
	}
	var one int
	err = s.QueryRowContext(ctx, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (w *writer) apply(m *Mutation) error {
	w.noteWrite(m)
	if m.Op == OpDelete {
		return w.delete(m.Table, m.KeySet)
	}
	m.Ignored = 0
	t := m.Table
	keyPos := keyPositions(t, m.Columns)
	for _, k := range keyPos {
		if k < 0 {
			return spanerr.FailedPrecondition("Mutation for table %s does not specify all primary key columns.", t.Name)
		}
	}
	if m.Op == OpInsert || m.Op == OpReplace || m.Op == OpInsertOrIgnore {
		if err := checkNotNull(t, m.Columns); err != nil {
			return err
		}
	}
	rt, err := w.newRowTracker(m, keyPos)
	if err != nil {
		return err
	}
	key := make([]any, len(keyPos))
	for _, row := range m.Rows {
		copied := false
		if len(row) != len(m.Columns) {
			return spanerr.InvalidArgument("Mutation for table %s has %d values for %d columns.", t.Name, len(row), len(m.Columns))
		}
		for i, c := range m.Columns {
			if s, ok := row[i].(string); ok && s == value.CommitTimestamp {
				if !c.AllowCommitTimestamp {
					return spanerr.FailedPrecondition("Cannot write commit timestamp because the allow_commit_timestamp column option is not set to true for column %s, or for all corresponding shared key columns in this table's interleaved table hierarchy.", t.Name+"."+c.Name)
				}
				if !copied {
					// Never change the caller's mutation: it may be applied again.
					row = append([]any(nil), row...)
					copied = true
				}
				row[i] = w.tsText
			} else if s, ok := row[i].(string); ok && c.AllowCommitTimestamp && c.Type.Code == spannerpb.TypeCode_TIMESTAMP && s > w.tsText {
				return spanerr.FailedPrecondition("Cannot write timestamps in the future: %s is after the commit timestamp %s for column %s.%s, which allows commit timestamps.", s, w.tsText, t.Name, c.Name)
			} else if row[i] == nil && c.NotNull {
				return spanerr.FailedPrecondition("%s must not be NULL in table %s.", c.Name, t.Name)
			} else if (c.Type.ProtoTypeFqn != "" || c.Type.GetArrayElementType().GetProtoTypeFqn() != "") && row[i] != nil {
				if err := w.checkEnum(t, c, row, keyPos, row[i]); err != nil {
					return err
				}
			}
		}
		for i, p := range keyPos {
			key[i] = row[p]
		}
		if m.Op == OpInsertOrIgnore {
			exists, err := w.rowExists(t, key)
			if err != nil {
				return fmt.Errorf("check row: %w", err)
			}
			if exists {
				m.Ignored++
				continue
			}
			if err := w.writeRow(OpInsert, t, m.Columns, row, key); err != nil {
				return err
			}
			rt.after(row, key)
			continue
		}
		if err := w.writeRow(m.Op, t, m.Columns, row, key); err != nil {
			return err
		}
		rt.after(row, key)
	}
	return rt.finish()
}

func keyPositions(t *schema.Table, cols []*schema.Column) []int {
	pos := make([]int, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		pos[i] = -1
		for j, c := range cols {
			if c == k.Column {
				pos[i] = j
				break
			}
		}
	}
	return pos
}

func checkNotNull(t *schema.Table, cols []*schema.Column) error {
	for _, c := range t.Columns {
		if !c.NotNull || c.Default != "" || c.Generated != "" {
			continue
		}
		found := false
		for _, x := range cols {
			if x == c {
				found = true
				break
			}
		}
		if !found {
			return spanerr.FailedPrecondition("A new row in table %s does not specify a non-null value for these NOT NULL columns: %s", t.Name, c.Name)
		}
	}
	return nil
}

func colNames(cols []*schema.Column, prefix, suffix string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(prefix + c.SQLName + suffix)
	}
	return b.String()
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func (w *writer) checkParent(t *schema.Table, key []any) error {
	p := t.Parent
	if p == nil {
		return nil
	}
	ok, err := w.exists("SELECT 1 FROM "+p.SQLName+" WHERE "+pointWhere(p.PrimaryKey, len(p.PrimaryKey), ""), key[:len(p.PrimaryKey)]...)
	if err != nil {
		return fmt.Errorf("check parent row: %w", err)
	}
	if !ok {
		return spanerr.NotFound("Parent row for row %s in table %s is missing. Row cannot be written.", FormatKey(key), t.Name)
	}
	return nil
}

func (w *writer) rowExists(t *schema.Table, key []any) (bool, error) {
	return w.exists("SELECT 1 FROM "+t.SQLName+" WHERE "+pointWhere(t.PrimaryKey, len(t.PrimaryKey), ""), key...)
}

func (w *writer) writeRow(op Op, t *schema.Table, cols []*schema.Column, row, key []any) error {
	w.updated = op == OpUpdate
	args := make([]any, 0, len(row)+1)
	args = append(args, row...)
	args = append(args, w.ts)
	insertSQL := "INSERT INTO " + t.SQLName + " (" + colNames(cols, "", "") + ", " + schema.HiddenTS + ") VALUES (" + placeholders(len(cols)+1) + ")"
	switch op {
	case OpInsert:
		if err := w.checkParent(t, key); err != nil {
			return err
		}
		_, err := w.exec(insertSQL, args...)
		return w.writeErr(err, t, key)
	case OpUpdate:
		res, err := w.exec(updateSQL(t, cols), updateArgs(t, cols, row, key, w.ts)...)
		if err != nil {
			return w.writeErr(err, t, key)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return spanerr.NotFound("Row %s in table %s is missing. Row cannot be updated.", FormatKey(key), t.Name)
		}
		return nil
	case OpInsertOrUpdate:
		if upsertable(t, cols) {
			// One statement instead of a lookup and then an insert or an update: with every NOT NULL
			// column given and no parent row to check, both branches below write the same. (About a
			// tenth of the server's CPU in a bulk load was that lookup.)
			_, err := w.exec(upsertSQL(t, cols), args...)
			return w.writeErr(err, t, key)
		}
		exists, err := w.rowExists(t, key)
		if err != nil {
			return fmt.Errorf("check row: %w", err)
		}
		w.updated = exists
		if exists {
			_, err = w.exec(updateSQL(t, cols), updateArgs(t, cols, row, key, w.ts)...)
			return w.writeErr(err, t, key)
		}
		if err := checkNotNull(t, cols); err != nil {
			return err
		}
		if err := w.checkParent(t, key); err != nil {
			return err
		}
		_, err = w.exec(insertSQL, args...)
		return w.writeErr(err, t, key)
	case OpReplace:
		if err := w.checkParent(t, key); err != nil {
			return err
		}
		// Replacing a row deletes it first: ON DELETE CASCADE children go with it,
		// NO ACTION children make it fail, as in Spanner.
		if err := w.deleteWhere(t, pointWhere(t.PrimaryKey, len(t.PrimaryKey), ""), key); err != nil {
			return err
		}
		_, err := w.exec(insertSQL, args...)
		return w.writeErr(err, t, key)
	}
	return fmt.Errorf("unknown mutation op %d", op)
}

// upsertable: an insert-or-update of cols into t can be SQLite's upsert (INSERT ... ON CONFLICT
// DO UPDATE, which fires the same UPDATE triggers as an UPDATE): t has no parent row to check, its
// key is all ascending (the conflict target names the key's columns), and cols hold every NOT NULL
// column a new row needs.
func upsertable(t *schema.Table, cols []*schema.Column) bool {
	if t.Parent != nil || checkNotNull(t, cols) != nil {
		return false
	}
	for _, k := range t.PrimaryKey {
		if k.Desc {
			return false
		}
	}
	return true
}

func upsertSQL(t *schema.Table, cols []*schema.Column) string {
	keys := make([]string, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		keys[i] = k.Column.SQLName
	}
	var sets []string
	for _, c := range cols {
		if !t.IsKey(c) {
			sets = append(sets, c.SQLName+" = excluded."+c.SQLName)
		}
	}
	sets = append(sets, schema.HiddenTS+" = excluded."+schema.HiddenTS)
	return "INSERT INTO " + t.SQLName + " (" + colNames(cols, "", "") + ", " + schema.HiddenTS + ") VALUES (" +
		placeholders(len(cols)+1) + ") ON CONFLICT (" + strings.Join(keys, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ")
}

func updateSQL(t *schema.Table, cols []*schema.Column) string {
	var sets []string
	for _, c := range cols {
		if !t.IsKey(c) {
			sets = append(sets, c.SQLName+" = ?")
		}
	}
	sets = append(sets, schema.HiddenTS+" = ?")
	return "UPDATE " + t.SQLName + " SET " + strings.Join(sets, ", ") + " WHERE " + pointWhere(t.PrimaryKey, len(t.PrimaryKey), "")
}

func updateArgs(t *schema.Table, cols []*schema.Column, row, key []any, ts int64) []any {
	args := make([]any, 0, len(row)+1+len(key))
	for i, c := range cols {
		if !t.IsKey(c) {
			args = append(args, row[i])
		}
	}
	args = append(args, ts)
	return append(args, key...)
}

// writeErr turns a SQLite constraint error into Spanner's status.
func (w *writer) writeErr(err error, t *schema.Table, key []any) error {
	if err == nil {
		return nil
	}
	if cerr, ok := checkError(err, t, key); ok {
		return cerr
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.ExtendedCode {
		case sqlite3.ErrConstraintPrimaryKey:
			return spanerr.AlreadyExists("Row %s in table %s already exists", FormatKey(key), t.Name)
		case sqlite3.ErrConstraintUnique:
			ix := ""
			for _, i := range t.Indexes {
				if i.Unique {
					ix = i.Name
				}
			}
			return spanerr.AlreadyExists("Unique index violation on index %s at index key for row %s in table %s: %v", ix, FormatKey(key), t.Name, se)
		case sqlite3.ErrConstraintNotNull:
			return spanerr.FailedPrecondition("%v in table %s", se, t.Name)
		}
	}
	return fmt.Errorf("write row %s of %s: %w", FormatKey(key), t.Name, sqlfn.RuntimeError(err))
}

func isUniqueErr(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey)
}

// delete removes the selected rows of t, cascading to interleaved children.
func (w *writer) delete(t *schema.Table, ks KeySet) error {
	if err := w.trackDelete(t, ks); err != nil {
		return err
	}
	if ks.All {
		return w.deleteWhere(t, "1", nil)
	}
	for _, k := range ks.Keys {
		if len(k) != len(t.PrimaryKey) {
			return spanerr.InvalidArgument("Wrong number of key parts in %s for table %s: %d, want %d", FormatKey(k), t.Name, len(k), len(t.PrimaryKey))
		}
		if err := w.deleteWhere(t, pointWhere(t.PrimaryKey, len(k), ""), k); err != nil {
			return err
		}
	}
	for _, r := range ks.Ranges {
		if len(r.Start) > len(t.PrimaryKey) || len(r.End) > len(t.PrimaryKey) {
			return spanerr.InvalidArgument("Key range of table %s has too many key parts", t.Name)
		}
		cond, args := RangeWhere(t.PrimaryKey, r, "")
		if err := w.deleteWhere(t, cond, args); err != nil {
			return err
		}
	}
	return nil
}

// deleteWhere deletes rows of t matching cond (over t's key columns, which are
// also the leading key columns of every interleaved child).
func (w *writer) deleteWhere(t *schema.Table, cond string, args []any) error {
	if err := w.cascadeForeignKeys(t, cond, args); err != nil {
		return err
	}
	for _, child := range w.d.Catalog().Tables {
		if child.Parent == nil || !strings.EqualFold(child.Parent.Name, t.Name) {
			continue
		}
		if child.OnDelete == schema.Cascade {
			if err := w.deleteWhere(child, cond, args); err != nil {
				return err
			}
			continue
		}
		ok, err := w.existsScan("SELECT 1 FROM "+child.SQLName+" WHERE "+cond+" LIMIT 1", args...)
		if err != nil {
			return fmt.Errorf("check child rows: %w", err)
		}
		if ok {
			return spanerr.FailedPrecondition("Delete from table %s would violate the ON DELETE NO ACTION of interleaved table %s: child rows exist.", t.Name, child.Name)
		}
	}
	if _, err := w.execScan("DELETE FROM "+t.SQLName+" WHERE "+cond, args...); err != nil {
		return fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	return nil
}
