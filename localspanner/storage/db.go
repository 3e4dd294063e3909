// Package storage keeps each Spanner database in one SQLite file (WAL,
// synchronous=NORMAL): one table of current rows per Spanner table, with a
// history table of superseded versions (filled by triggers) for reads at past
// timestamps. Strong reads read the current rows only, as fast as a plain table
// read. All writes go through one writer connection under the commit lock; reads
// use a pool of reader connections and never wait for writers.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/sqlfn"
)

const driverName = "sqlite3_spanload"

// commitTSFunc is the SQL function, registered on the writer connection, that
// returns the commit timestamp of the write in progress (Unix microseconds).
const commitTSFunc = "spanload_commit_ts"

// maxReaders bounds the reader connections of a database; a streaming read holds
// one until its client has taken the rows.
const maxReaders = 32

// DefaultRetention is the version_retention_period of a database that sets none
// (Spanner's default).
const DefaultRetention = time.Hour

// RetentionSlack is how much longer than its version_retention_period a database
// keeps superseded versions: reads at timestamps up to the period are guaranteed,
// and versions are pruned once they are older than the period and the slack.
const RetentionSlack = 10 * time.Minute

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: connectHook})
}

// connectHook prepares every SQLite connection: the query layer's functions, and
// memory-mapped reads so that connections share the OS page cache instead of
// each keeping a large private cache.
func connectHook(conn *sqlite3.SQLiteConn) error {
	if err := sqlfn.Register(conn); err != nil {
		return err
	}
	if _, err := conn.Exec("PRAGMA mmap_size = 1073741824", nil); err != nil {
		return fmt.Errorf("set mmap_size: %w", err)
	}
	return nil
}

// DB is one Spanner database.
type DB struct {
	Name    string
	Created time.Time
	path    string

	wdb    *sql.DB
	writer *sql.Conn

	cat atomic.Pointer[schema.Catalog]

	// commitMu serializes commits and DDL statements on the writer connection; ddlMu
	// serializes DDL batches, whose statements each take commitMu in turn, so writes go on
	// between them as in Spanner.
	commitMu sync.Mutex
	ddlMu    sync.Mutex
	ddl      []string // statements applied so far (under commitMu and ddlMu)
	// commitsWaiting counts commits waiting for commitMu, commitsDone those that had it: a
	// DDL batch lets a waiting commit in between its statements (yieldToCommits).
	commitsWaiting atomic.Int32
	commitsDone    atomic.Int64
	lastCommitEnd  atomic.Int64 // when the last commit ended (Unix ns)
	curTS          int64        // commit timestamp of the write in progress (under commitMu)
	curTag         string       // transaction tag of the commit in progress (under commitMu)
	wstmts         map[string]*sql.Stmt

	lastTS    atomic.Int64 // last commit timestamp visible to readers (µs)
	pendingTS atomic.Int64 // commit timestamp about to become visible (µs)
	floorTS   atomic.Int64 // read timestamps handed out: commits must be later
	// visMu makes a commit's becoming visible in SQLite and lastTS one step for
	// strong snapshots (held shortly around COMMIT, read-locked to fix a snapshot).
	visMu sync.RWMutex
	// visSeq is odd while a commit is becoming visible (under visMu), so that a
	// single-statement strong read can tell no commit did while its snapshot was
	// fixed (see StrongRead).
	visSeq atomic.Int64

	// splits are the key-range splits of tables and indexes (see splits.go).
	splits splitMap
	// splitLog is when each split boundary was made (changeparts.go), under splits.mu.
	splitLog []splitDivision
	// commitSig is closed and replaced at each commit while a change stream exists.
	commitSig atomic.Pointer[chan struct{}]
	// optSplitRows and optLatencyModel are the local-server database options
	// (options.go); 0 and "" mean the server's default.
	optSplitRows    atomic.Int64
	optLatencyModel atomic.Pointer[string]
	// optCommitKnee is the synthetic knee while both of its options are set
	// (kneeRate -1 and kneeDelayMs 0 when unset).
	optCommitKnee atomic.Pointer[CommitKnee]
	kneeMu        sync.Mutex
	kneeRate      int64
	kneeDelayMs   int64

	readers *readers
	readGen atomic.Int64 // bumped on DDL: reader statements are prepared again

	// Sys resolves SPANNER_SYS tables; set once before serving.
	Sys SysTables
}

// Open opens (creating if needed) the SQLite file at path.
func Open(name, path string) (*DB, error) {
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_cache_size=-8000"
	wdb, err := sql.Open(driverName, dsn+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	ctx := context.Background()
	writer, err := wdb.Conn(ctx)
	if err != nil {
		_ = wdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	d := &DB{Name: name, path: path, wdb: wdb, writer: writer, wstmts: map[string]*sql.Stmt{}, kneeRate: -1}
	if err := writer.Raw(func(dc any) error {
		conn := dc.(*sqlite3.SQLiteConn)
		if err := conn.RegisterFunc(commitTSFunc, func() int64 { return d.curTS }, false); err != nil {
			return err
		}
		return registerCells(conn, func() string { return d.curTag })
	}); err != nil {
		d.Close()
		return nil, fmt.Errorf("register %s: %w", commitTSFunc, err)
	}
	sig := make(chan struct{})
	d.commitSig.Store(&sig)
	for _, s := range append([]string{
		// Keep the WAL from staying large after a burst of writes.
		"PRAGMA journal_size_limit = 67108864",
		"CREATE TABLE IF NOT EXISTS _spanload_meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS _spanload_ddl (seq INTEGER PRIMARY KEY, stmt TEXT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS _spanload_splits (obj TEXT PRIMARY KEY, splits TEXT NOT NULL)",
	}, changeLogSetup...) {
		if _, err := writer.ExecContext(ctx, s); err != nil {
			d.Close()
			return nil, fmt.Errorf("init %s: %w", path, err)
		}
	}
	if err := d.load(ctx); err != nil {
		d.Close()
		return nil, err
	}
	d.readers = newReaders(dsn+"&_query_only=1", maxReaders)
	return d, nil
}

func (d *DB) load(ctx context.Context) error {
	rows, err := d.writer.QueryContext(ctx, "SELECT stmt FROM _spanload_ddl ORDER BY seq")
	if err != nil {
		return fmt.Errorf("load schema: %w", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			_ = rows.Close()
			return fmt.Errorf("load schema: %w", err)
		}
		d.ddl = append(d.ddl, s)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("load schema: %w", err)
	}
	cat, err := schema.Build(d.ddl)
	if err != nil {
		return fmt.Errorf("load schema: %w", err)
	}
	if cat, err = d.loadDialect(ctx, cat); err != nil {
		return err
	}
	d.cat.Store(cat)
	if err := d.loadSplits(ctx); err != nil {
		return err
	}
	if err := d.loadSplitLog(ctx); err != nil {
		return err
	}
	if err := d.loadOptions(ctx); err != nil {
		return err
	}
	var v string
	err = d.writer.QueryRowContext(ctx, "SELECT v FROM _spanload_meta WHERE k='clock'").Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("load clock: %w", err)
	default:
		ts, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("load clock %q: %w", v, err)
		}
		d.lastTS.Store(ts)
		d.pendingTS.Store(ts)
	}
	err = d.writer.QueryRowContext(ctx, "SELECT v FROM _spanload_meta WHERE k='created'").Scan(&v)
	if err == nil {
		if t, perr := time.Parse(time.RFC3339Nano, v); perr == nil {
			d.Created = t
		}
	} else {
		d.Created = time.Now().UTC()
		if _, err := d.writer.ExecContext(ctx, "INSERT OR REPLACE INTO _spanload_meta VALUES ('created', ?)", d.Created.Format(time.RFC3339Nano)); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	return nil
}

// Close closes the database's connections.
func (d *DB) Close() {
	if d.readers != nil {
		d.readers.close()
	}
	for _, s := range d.wstmts {
		_ = s.Close()
	}
	if d.writer != nil {
		_ = d.writer.Close()
	}
	_ = d.wdb.Close()
}

// Remove closes the database and deletes its files.
func (d *DB) Remove() error {
	d.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(d.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove database file: %w", err)
		}
	}
	return nil
}

// Catalog returns the current schema.
func (d *DB) Catalog() *schema.Catalog { return d.cat.Load() }

// LastCommit returns the timestamp of the last commit visible to readers (µs).
func (d *DB) LastCommit() int64 { return d.lastTS.Load() }

// PendingCommit returns the newest commit timestamp that is, or is about to be,
// visible to readers (µs). A read that started after LastCommit()==x and sees
// PendingCommit()==x afterwards saw no commit later than x.
func (d *DB) PendingCommit() int64 { return d.pendingTS.Load() }

// NowMicros is the wall clock in Unix microseconds.
func NowMicros() int64 { return time.Now().UnixMicro() }

// StrongReadTS returns a timestamp for a strong read that starts now: every commit
// visible so far is at or before it, and every later commit is after it.
func (d *DB) StrongReadTS() int64 {
	ts := d.pendingTS.Load()
	if now := NowMicros(); now > ts {
		ts = now
	}
	d.raiseFloor(ts)
	return ts
}

// raiseFloor makes every later commit take a timestamp above ts.
func (d *DB) raiseFloor(ts int64) {
	for {
		f := d.floorTS.Load()
		if ts <= f || d.floorTS.CompareAndSwap(f, ts) {
			return
		}
	}
}

// writeStmt returns a prepared statement on the writer connection (under commitMu).
func (d *DB) writeStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if s, ok := d.wstmts[q]; ok {
		return s, nil
	}
	s, err := d.writer.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	d.wstmts[q] = s
	return s, nil
}

func (d *DB) resetStmts() {
	for k, s := range d.wstmts {
		_ = s.Close()
		delete(d.wstmts, k)
	}
	d.readGen.Add(1)
}

// pruneBatch is how many old versions one pruning step deletes while it holds
// the commit lock.
const pruneBatch = 2000

// Retention is the database's version_retention_period (DefaultRetention unless
// ALTER DATABASE set one).
func (d *DB) Retention() time.Duration {
	if o, ok := d.Catalog().Option("version_retention_period"); ok {
		if r, err := schema.ParseRetention(o.Value); err == nil {
			return r
		}
	}
	return DefaultRetention
}

// PruneHistory deletes the row versions superseded longer ago than the database's
// version retention period and RetentionSlack, in small batches so that commits
// never wait long behind it.
func (d *DB) PruneHistory(ctx context.Context) error {
	return d.pruneHistory(ctx, time.Now())
}

func (d *DB) pruneHistory(ctx context.Context, now time.Time) error {
	if err := d.pruneChanges(ctx, now.UnixMicro()); err != nil {
		return err
	}
	cutoff := now.Add(-d.Retention() - RetentionSlack).UnixMicro()
	for _, t := range d.Catalog().Tables {
		q := "DELETE FROM " + t.HistoryName() + " WHERE rowid IN (SELECT rowid FROM " + t.HistoryName() + " WHERE _to < ? LIMIT " + strconv.Itoa(pruneBatch) + ")"
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := d.pruneStep(ctx, q, cutoff)
			if err != nil {
				return fmt.Errorf("prune history of %s: %w", t.Name, err)
			}
			if n < pruneBatch {
				break
			}
		}
	}
	return nil
}

func (d *DB) pruneStep(ctx context.Context, q string, cutoff int64) (int64, error) {
	d.commitMu.Lock()
	defer d.commitMu.Unlock()
	res, err := d.writer.ExecContext(ctx, q, cutoff)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
