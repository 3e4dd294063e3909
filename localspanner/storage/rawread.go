package storage

/*
// Provided by the SQLite amalgamation that github.com/mattn/go-sqlite3 compiles
// into the same binary.
int sqlite3_stmt_status(void *stmt, int op, int reset);
*/
import "C"

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/mattn/go-sqlite3"

	"github.com/spanload/spanload/localspanner/sqlfn"
)

// sqliteStmtStatusFullscanStep is SQLITE_STMTSTATUS_FULLSCAN_STEP: how many times
// a statement stepped forward in a full table scan.
const sqliteStmtStatusFullscanStep = 1

// readerConn is one reader connection with its prepared statements.
type readerConn struct {
	c     *sqlite3.SQLiteConn
	stmts map[string]*sqlite3.SQLiteStmt
	gen   int64 // DB.readGen the statements were prepared under
}

func rcGen(rc *readerConn) int64       { return rc.gen }
func setGen(rc *readerConn, gen int64) { rc.gen = gen }

// readers is a pool of reader connections used through the driver directly, so
// that a read can tell how many rows SQLite scanned.
type readers struct {
	dsn  string
	pool chan *readerConn
	sem  chan struct{}
}

func newReaders(dsn string, n int) *readers {
	return &readers{dsn: dsn, pool: make(chan *readerConn, n), sem: make(chan struct{}, n)}
}

func (r *readers) get(ctx context.Context) (*readerConn, error) {
	select {
	case rc := <-r.pool:
		return rc, nil
	default:
	}
	select {
	case rc := <-r.pool:
		return rc, nil
	case r.sem <- struct{}{}:
		dc, err := (&sqlite3.SQLiteDriver{ConnectHook: connectHook}).Open(r.dsn)
		if err != nil {
			<-r.sem
			return nil, fmt.Errorf("open reader: %w", err)
		}
		return &readerConn{c: dc.(*sqlite3.SQLiteConn), stmts: map[string]*sqlite3.SQLiteStmt{}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (r *readers) put(rc *readerConn) { r.pool <- rc }

// discard closes a connection that failed.
func (r *readers) discard(rc *readerConn) {
	for _, s := range rc.stmts {
		_ = s.Close()
	}
	_ = rc.c.Close()
	<-r.sem
}

func (r *readers) close() {
	for {
		select {
		case rc := <-r.pool:
			r.discard(rc)
		default:
			return
		}
	}
}

// fullscanSteps reads and resets SQLITE_STMTSTATUS_FULLSCAN_STEP of a statement.
func fullscanSteps(s *sqlite3.SQLiteStmt) int64 {
	f := reflect.ValueOf(s).Elem().FieldByName("s")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return 0
	}
	return int64(C.sqlite3_stmt_status(unsafe.Pointer(f.Pointer()), sqliteStmtStatusFullscanStep, 1))
}

func namedValues(args []any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		if na, ok := a.(sql.NamedArg); ok {
			out[i] = driver.NamedValue{Name: na.Name, Ordinal: i + 1, Value: na.Value}
		} else {
			out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
	}
	return out
}

// Scanned estimates the rows a read visited from the rows it returned and the
// full-scan steps SQLite reported: a full scan visits one row more than it steps.
func Scanned(returned, fullscan int64) int64 {
	if fullscan > 0 && fullscan+1 > returned {
		return fullscan + 1
	}
	return returned
}

// Read runs a read-only statement on a reader connection (one consistent snapshot
// of committed data) and calls fn for every row (cells as the driver returns them;
// fn may keep the slice). It returns how many rows SQLite stepped through in full
// table scans, a measure of the rows the read scanned beyond those it returned.
func (d *DB) Read(ctx context.Context, q string, args []any, fn func(row []any) error) (fullscan int64, err error) {
	rc, err := d.readers.get(ctx)
	if err != nil {
		return 0, err
	}
	fullscan, ok, err := d.readOn(ctx, rc, q, args, fn)
	d.release(rc, ok)
	return fullscan, err
}

func (d *DB) release(rc *readerConn, ok bool) {
	if ok {
		d.readers.put(rc)
	} else {
		d.readers.discard(rc)
	}
}

// stmt returns rc's prepared statement for q.
func (d *DB) stmt(rc *readerConn, q string) (*sqlite3.SQLiteStmt, error) {
	gen := d.readGen.Load()
	if rc.stmts == nil || len(rc.stmts) > 512 || rc.gen != gen {
		for _, s := range rc.stmts {
			_ = s.Close()
		}
		rc.stmts = map[string]*sqlite3.SQLiteStmt{}
		rc.gen = gen
	}
	s, found := rc.stmts[q]
	if !found {
		ds, err := rc.c.Prepare(q)
		if err != nil {
			return nil, sqlfn.RuntimeError(err)
		}
		s = ds.(*sqlite3.SQLiteStmt)
		rc.stmts[q] = s
	}
	return s, nil
}

// exec runs a statement without results on rc.
func (d *DB) execOn(ctx context.Context, rc *readerConn, q string) error {
	s, err := d.stmt(rc, q)
	if err != nil {
		return err
	}
	_, err = s.ExecContext(ctx, nil)
	return err
}

// readOn runs q on rc; ok is false when rc must be discarded.
func (d *DB) readOn(ctx context.Context, rc *readerConn, q string, args []any, fn func(row []any) error) (fullscan int64, ok bool, err error) {
	s, err := d.stmt(rc, q)
	if err != nil {
		return 0, true, err
	}
	rows, err := s.QueryContext(ctx, namedValues(args))
	if err != nil {
		return 0, queryErrorKeepsConn(err), sqlfn.RuntimeError(err)
	}
	fullscan, err = scanRows(s, rows, fn)
	return fullscan, true, err
}

// queryErrorKeepsConn reports whether a reader connection stays usable after a
// query failed with err (not when the query was interrupted).
func queryErrorKeepsConn(err error) bool {
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// scanRows calls fn for every row of rows (a query of s), closes rows and
// returns the full-scan steps of s.
func scanRows(s *sqlite3.SQLiteStmt, rows driver.Rows, fn func(row []any) error) (int64, error) {
	n := len(rows.Columns())
	var ferr error
	for {
		row := make([]any, n)
		dest := make([]driver.Value, n)
		if err := rows.Next(dest); err != nil {
			if !errors.Is(err, io.EOF) {
				ferr = sqlfn.RuntimeError(err)
			}
			break
		}
		for i, v := range dest {
			row[i] = v
		}
		if err := fn(row); err != nil {
			ferr = err
			break
		}
	}
	if err := rows.Close(); err != nil && ferr == nil {
		ferr = err
	}
	return fullscanSteps(s), ferr
}

// Snapshot is a strong read pinned to the commit timestamp TS: it sees exactly
// the commits at or before TS (later ones get later timestamps).
type Snapshot struct {
	d  *DB
	rc *readerConn
	// TS is the read timestamp (µs).
	TS int64
	// started, when set, is the one statement the snapshot consists of, already
	// stepped once (see StrongRead); rc then holds no explicit transaction.
	started *startedRead
}

// startedRead is a statement whose first step fixed a snapshot's WAL snapshot.
type startedRead struct {
	q    string
	args []any
	s    *sqlite3.SQLiteStmt
	rows driver.Rows
}

// StrongSnapshot starts a read transaction on a reader connection and returns
// it with its exact timestamp. Close it when done.
func (d *DB) StrongSnapshot(ctx context.Context) (*Snapshot, error) {
	rc, err := d.readers.get(ctx)
	if err != nil {
		return nil, err
	}
	return d.beginSnapshot(ctx, rc)
}

func (d *DB) beginSnapshot(ctx context.Context, rc *readerConn) (*Snapshot, error) {
	if err := d.execOn(ctx, rc, "BEGIN"); err != nil {
		d.release(rc, false)
		return nil, fmt.Errorf("begin read: %w", err)
	}
	// The first read of the transaction fixes its WAL snapshot; no commit can
	// become visible between it and reading lastTS.
	d.visMu.RLock()
	_, ok, err := d.readOn(ctx, rc, "SELECT 1 FROM sqlite_master LIMIT 1", nil, func([]any) error { return nil })
	ts := d.lastTS.Load()
	d.visMu.RUnlock()
	if err != nil {
		_ = d.execOn(context.Background(), rc, "ROLLBACK")
		d.release(rc, ok)
		return nil, fmt.Errorf("start read: %w", err)
	}
	return &Snapshot{d: d, rc: rc, TS: ts}, nil
}

// StrongRead is StrongSnapshot for a snapshot that runs exactly one statement,
// q with args: its one Read must be of q with args. It needs no explicit
// transaction: q runs on its own (SQLite fixes the statement's WAL snapshot at
// its first step), and TS is exact when no commit became visible while that step
// ran (visSeq did not move); otherwise it falls back to StrongSnapshot.
func (d *DB) StrongRead(ctx context.Context, q string, args []any) (*Snapshot, error) {
	rc, err := d.readers.get(ctx)
	if err != nil {
		return nil, err
	}
	seq := d.visSeq.Load()
	if seq%2 != 0 { // a commit is becoming visible
		return d.beginSnapshot(ctx, rc)
	}
	ts := d.lastTS.Load()
	s, err := d.stmt(rc, q)
	if err != nil {
		return d.beginSnapshot(ctx, rc) // its Read reports the error
	}
	rows, err := s.QueryContext(ctx, namedValues(args))
	if err != nil {
		if !queryErrorKeepsConn(err) {
			d.release(rc, false)
			return nil, fmt.Errorf("start read: %w", sqlfn.RuntimeError(err))
		}
		return d.beginSnapshot(ctx, rc) // its Read reports the error
	}
	if d.visSeq.Load() != seq {
		if err := rows.Close(); err != nil {
			d.release(rc, false)
			return nil, fmt.Errorf("start read: %w", err)
		}
		// The first step may have run a whole full scan (a sort needs every row): the
		// snapshot's Read runs q again, so that scan must not be counted with its own.
		fullscanSteps(s)
		return d.beginSnapshot(ctx, rc)
	}
	return &Snapshot{d: d, rc: rc, TS: ts, started: &startedRead{q: q, args: args, s: s, rows: rows}}, nil
}

// Read runs q in the snapshot (see DB.Read).
func (s *Snapshot) Read(ctx context.Context, q string, args []any, fn func(row []any) error) (int64, error) {
	if st := s.started; st != nil {
		if st.q != q || !reflect.DeepEqual(st.args, args) {
			return 0, errors.New("internal: a snapshot started for one statement was asked to run another")
		}
		s.started = nil
		fullscan, err := scanRows(st.s, st.rows, fn)
		// The statement was the snapshot: nothing more can read in it.
		s.d.release(s.rc, true)
		s.rc = nil
		return fullscan, err
	}
	if s.rc == nil {
		return 0, errors.New("internal: read in a closed snapshot")
	}
	fullscan, ok, err := s.d.readOn(ctx, s.rc, q, args, fn)
	if !ok {
		s.d.release(s.rc, false)
		s.rc = nil
	}
	return fullscan, err
}

// Close ends the snapshot's read transaction.
func (s *Snapshot) Close() {
	if s.rc == nil {
		return
	}
	if st := s.started; st != nil {
		s.started = nil
		ok := st.rows.Close() == nil
		s.d.release(s.rc, ok)
		s.rc = nil
		return
	}
	ok := s.d.execOn(context.Background(), s.rc, "ROLLBACK") == nil
	s.d.release(s.rc, ok)
	s.rc = nil
}
