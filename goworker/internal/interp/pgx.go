package interp

// The pgadapter interface: pgx through PGAdapter, the Go twin of
// backend/spanload/workers/interp/pg_driver.py, with PostgreSQL's own $1 placeholders in
// server-side prepared statements (NewPgxBackend). What PostgreSQL has no statement for is DML: a
// mutation step is an INSERT (ON CONFLICT (key) DO UPDATE for insert_or_update), UPDATE or DELETE by primary key
// (read once per table from information_schema), a commit timestamp
// spanner.pending_commit_timestamp(), a read by key a SELECT; a step's rows go as one pgx batch. A read-only transaction is BEGIN
// READ ONLY, its staleness PGAdapter's spanner.read_only_staleness. A read-write transaction that
// Spanner aborts (SQLSTATE 40001) is run again until the operation's deadline.
//
// Tags go as the Python path sends them: each statement leads with PGAdapter's statement hint
// /*@STATEMENT_TAG='…'*/ (SET spanner.statement_tag before it for a tag the hint cannot carry), and
// each read-write transaction sends SET spanner.transaction_tag right after BEGIN.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const (
	pgConnectTimeout     = 10 * time.Second
	pgMaxConns           = 256 // a worker holds as many as it has executions in flight at once
	pgRetryBackoff       = 2 * time.Millisecond
	pgRetryBackoffMax    = 100 * time.Millisecond
	pgPendingCommitTS    = "spanner.pending_commit_timestamp()"
	pgPrimaryKey         = "PRIMARY_KEY"
	pgSerializationError = "40001"
	pgKeySQL             = "SELECT column_name FROM information_schema.index_columns WHERE table_schema = 'public' " +
		"AND table_name = $1 AND index_name = $2 AND ordinal_position IS NOT NULL ORDER BY ordinal_position"
)

// ErrPgUnsupported is a transaction kind that PostgreSQL drivers cannot ask of PGAdapter.
var ErrPgUnsupported = errors.New("not run through PGAdapter")

type pgxBackend struct {
	pool      *pgxpool.Pool
	mu        sync.Mutex
	keys      map[[2]string][]string    // (table, index) -> key columns
	staleness map[*pgconn.PgConn]string // each connection's spanner.read_only_staleness
}

// NewPgxBackend speaks to PGAdapter at address (host:port), database database; connections open
// as executions need them. Statements are named server-side prepared ones, kept per connection
// (pgx's statement cache), as the report's JDBC driver used them: PGAdapter types their
// parameters by asking Spanner to plan them (an ExecuteSql in PLAN mode). The local Spanner
// cannot yet type the parameters of a statement planned without their values ("No parameter
// found for binding: p1"), so against it this interface fails each statement so far.
func NewPgxBackend(address, database string) (Backend, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("client.pgadapter_host %q is not host:port: %w", address, err)
	}
	cfg, err := pgxpool.ParseConfig("sslmode=disable")
	if err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("client.pgadapter_host %q: port %q is not a number", address, port)
	}
	cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database = host, uint16(n), database
	cfg.ConnConfig.ConnectTimeout = pgConnectTimeout
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	cfg.MaxConns = pgMaxConns
	// An aborted transaction comes back at once as 40001 and Execute runs it again, as the official
	// client does (PGAdapter's own replay fails anyway when a read's result changed).
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SET spanner.retry_aborts_internally = false")
		return err
	}
	b := &pgxBackend{keys: map[[2]string][]string{}, staleness: map[*pgconn.PgConn]string{}}
	cfg.BeforeClose = func(c *pgx.Conn) {
		b.mu.Lock()
		delete(b.staleness, c.PgConn())
		b.mu.Unlock()
	}
	if b.pool, err = pgxpool.NewWithConfig(context.Background(), cfg); err != nil {
		return nil, fmt.Errorf("PGAdapter at %s: %w", address, err)
	}
	return b, nil
}

func (b *pgxBackend) Close() { b.pool.Close() }

// Warm opens one connection now, so that the first execution does not wait for it.
func (b *pgxBackend) Warm(ctx context.Context) error {
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	c.Release()
	return nil
}

// pgQuerier is a connection or a transaction on one.
type pgQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

func (b *pgxBackend) Execute(ctx context.Context, x *run) (int, error) {
	x.conv = pgxValue
	op := x.op
	switch op.tx {
	case TxBatchWrite:
		return 1, fmt.Errorf("transaction: batch_write has no PostgreSQL statement; use read_write or single_use: %w",
			ErrPgUnsupported)
	case TxPartitionedDML:
		return 1, fmt.Errorf("transaction: partitioned_dml is %w; use read_write", ErrPgUnsupported)
	}
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return 1, err
	}
	defer c.Release()
	switch {
	case op.tx == TxSingleUse && !op.mutations: // autocommit: PGAdapter runs it as a single-use read
		if err := b.setStaleness(ctx, c.Conn(), op.staleness); err != nil {
			return 1, err
		}
		return 1, b.step(ctx, c, x, 0)
	case op.tx == TxReadOnly:
		if err := b.setStaleness(ctx, c.Conn(), staleness{exactMs: op.staleness.exactMs}); err != nil {
			return 1, err
		}
		return 1, b.transaction(ctx, c, x, pgx.TxOptions{AccessMode: pgx.ReadOnly}, false)
	case op.tx == TxSingleUse: // mutations: one commit
		return 1, b.transaction(ctx, c, x, pgx.TxOptions{}, true)
	}
	backoff := pgRetryBackoff
	for attempts := 1; ; attempts++ {
		x.rows, x.written = 0, 0
		clear(x.binds)
		err := b.transaction(ctx, c, x, pgx.TxOptions{}, true)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != pgSerializationError {
			return attempts, err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Now().Add(backoff).After(deadline) {
			return attempts, err
		}
		time.Sleep(backoff)
		backoff = min(backoff*2, pgRetryBackoffMax)
	}
}

// transaction runs every step of x in one transaction on c (tagged: a read-write one).
func (b *pgxBackend) transaction(ctx context.Context, c *pgxpool.Conn, x *run, opts pgx.TxOptions, tagged bool) error {
	tx, err := c.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after the commit
	if tag := spanclient.TagOf(ctx); tagged && tag != "" {
		if _, err := tx.Exec(ctx, "set spanner.transaction_tag='"+pgQuoted(tag)+"'"); err != nil {
			return err
		}
	}
	for i := range x.op.steps {
		if err := b.step(ctx, tx, x, i); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// setStaleness sets the connection's spanner.read_only_staleness when it differs from s.
func (b *pgxBackend) setStaleness(ctx context.Context, c *pgx.Conn, s staleness) error {
	wanted := "STRONG"
	switch {
	case !s.at.IsZero():
		wanted = "READ_TIMESTAMP " + s.at.UTC().Format("2006-01-02T15:04:05.000000Z")
	case s.exactMs > 0:
		wanted = fmt.Sprintf("EXACT_STALENESS %dms", int64(s.exactMs))
	case s.maxMs > 0:
		wanted = fmt.Sprintf("MAX_STALENESS %dms", int64(s.maxMs))
	}
	b.mu.Lock()
	had, ok := b.staleness[c.PgConn()]
	b.mu.Unlock()
	if (ok && had == wanted) || (!ok && wanted == "STRONG") { // a session setting: sent only when it changes
		return nil
	}
	if _, err := c.Exec(ctx, "SET spanner.read_only_staleness = '"+wanted+"'"); err != nil {
		return err
	}
	b.mu.Lock()
	b.staleness[c.PgConn()] = wanted
	b.mu.Unlock()
	return nil
}

// run sends sql with the operation's statement tag: PGAdapter's statement hint at its head, or a
// SET before it for a tag the hint cannot carry.
func pgRun(ctx context.Context, q pgQuerier, sql string, args []any, query bool) (pgx.Rows, pgconn.CommandTag, error) {
	tag := spanclient.TagOf(ctx)
	if tag != "" && (strings.Contains(tag, "'") || strings.Contains(tag, "*/")) {
		if _, err := q.Exec(ctx, "set spanner.statement_tag='"+pgQuoted(tag)+"'"); err != nil {
			return nil, pgconn.CommandTag{}, err
		}
	} else if tag != "" {
		sql = "/*@STATEMENT_TAG='" + tag + "'*/ " + sql
	}
	if query {
		rows, err := q.Query(ctx, sql, args...)
		return rows, pgconn.CommandTag{}, err
	}
	ct, err := q.Exec(ctx, sql, args...)
	return nil, ct, err
}

func pgQuoted(s string) string { return strings.ReplaceAll(s, "'", "''") }

// positional is a statement's p1, p2 ... parameters as $1, $2 ... arguments (a number not given
// is NULL).
func positional(params map[string]any) []any {
	top := 0
	for name := range params {
		if n, err := strconv.Atoi(strings.TrimPrefix(name, "p")); err == nil && n > top {
			top = n
		}
	}
	args := make([]any, top)
	for i := range args {
		args[i] = params["p"+strconv.Itoa(i+1)]
	}
	return args
}

// step runs step i of x on q, counting its rows and binding a query's first row.
func (b *pgxBackend) step(ctx context.Context, q pgQuerier, x *run, i int) error {
	s := x.op.steps[i]
	switch s.kind {
	case StepSQL:
		stmt, err := x.statement(i)
		if err != nil {
			return err
		}
		if s.dml && len(s.binds) == 0 {
			_, ct, err := pgRun(ctx, q, s.sql, positional(stmt.Params), false)
			x.rows += ct.RowsAffected()
			x.written += ct.RowsAffected()
			return err
		}
		return b.query(ctx, q, x, i, s.sql, positional(stmt.Params))
	case StepRead:
		row, err := x.row(i, 0)
		if err != nil {
			return err
		}
		index := s.index
		if index == "" {
			index = pgPrimaryKey
		}
		key, err := b.keyColumns(ctx, s.table, index)
		if err != nil {
			return err
		}
		sql := "SELECT " + strings.Join(s.cols, ", ") + " FROM " + s.table + " WHERE " + pgEquals(key[:min(len(row), len(key))], 1, " AND ")
		if s.limit > 0 {
			sql += " LIMIT " + strconv.FormatInt(s.limit, 10)
		}
		return b.query(ctx, q, x, i, sql, x.values(row))
	}
	return b.write(ctx, q, x, i)
}

// query runs sql, counting its rows and binding the first one's columns by name.
func (b *pgxBackend) query(ctx context.Context, q pgQuerier, x *run, i int, sql string, args []any) error {
	s := x.op.steps[i]
	rows, _, err := pgRun(ctx, q, sql, args, true)
	if err != nil {
		return err
	}
	defer rows.Close()
	first := true
	for rows.Next() {
		x.rows++
		if first && len(s.binds) > 0 {
			values, err := rows.Values()
			if err != nil {
				return err
			}
			fields := rows.FieldDescriptions()
			for _, bind := range s.binds {
				at := -1
				for k, f := range fields {
					if f.Name == bind.Item {
						at = k
					}
				}
				if at < 0 {
					return fmt.Errorf("bind %s: the result has no column %q", bind.Name, bind.Item)
				}
				x.binds[bind.Name] = values[at]
			}
		}
		first = false
	}
	return rows.Err()
}

// pgEquals is "a = $from AND b = $from+1 ..." (joined by sep).
func pgEquals(cols []string, from int, sep string) string {
	parts := make([]string, len(cols))
	for k, c := range cols {
		parts[k] = c + " = $" + strconv.Itoa(from+k)
	}
	return strings.Join(parts, sep)
}

// write runs a mutation step's rows as DML, one statement a row, sent as one batch (pgRows).
func (b *pgxBackend) write(ctx context.Context, q pgQuerier, x *run, i int) error {
	s := x.op.steps[i]
	key, err := b.keyColumns(ctx, s.table, pgPrimaryKey)
	if err != nil {
		return err
	}
	var dels, rows []pgStatement
	for j := range x.d.steps[i] {
		row, err := x.row(i, j)
		if err != nil {
			return err
		}
		if s.kind == StepReplace { // every row's delete first, then the inserts, as the Python path
			del, delArgs := pgMutation(StepDelete, s.table, s.cols, key, x.values(row))
			dels = append(dels, pgStatement{del, delArgs})
		}
		sql, args := pgMutation(s.kind, s.table, s.cols, key, x.values(row))
		rows = append(rows, pgStatement{sql, args})
	}
	if err := pgRows(ctx, q, dels); err != nil {
		return err
	}
	if err := pgRows(ctx, q, rows); err != nil {
		return err
	}
	x.rows += int64(len(rows))
	x.written += int64(len(rows))
	return nil
}

type pgStatement struct {
	sql  string
	args []any
}

// pgRows runs statements in order as one pgx batch (a pipeline: PGAdapter runs its DML as one batch,
// one round trip to Spanner for a step's rows, as the official client sends its mutations with the
// commit, not one a row); one by one when the tag needs a SET before each statement.
func pgRows(ctx context.Context, q pgQuerier, statements []pgStatement) error {
	if len(statements) == 0 {
		return nil
	}
	tag := spanclient.TagOf(ctx)
	if len(statements) == 1 || strings.Contains(tag, "'") || strings.Contains(tag, "*/") {
		for _, st := range statements {
			if _, _, err := pgRun(ctx, q, st.sql, st.args, false); err != nil {
				return err
			}
		}
		return nil
	}
	hint := ""
	if tag != "" {
		hint = "/*@STATEMENT_TAG='" + tag + "'*/ "
	}
	batch := &pgx.Batch{}
	for _, st := range statements {
		batch.Queue(hint+st.sql, st.args...)
	}
	results := q.SendBatch(ctx, batch)
	for range statements {
		if _, err := results.Exec(); err != nil {
			_ = results.Close()
			return err
		}
	}
	return results.Close()
}

// pgMutation is one row's mutation as DML and its arguments: cols are the step's columns (a
// delete's: the key's parts), key the table's primary key; a commit timestamp goes in the text.
func pgMutation(kind, table string, cols, key []string, row []any) (string, []any) {
	var args []any
	mark := func(v any) string {
		if t, ok := v.(time.Time); ok && t.Equal(spanner.CommitTimestamp) {
			return pgPendingCommitTS
		}
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	at := map[string]int{}
	for k, c := range cols {
		at[c] = k
	}
	isKey := map[string]bool{}
	for _, c := range key {
		isKey[c] = true
	}
	where := func() string {
		var parts []string
		for _, c := range key {
			if k, ok := at[c]; ok {
				parts = append(parts, c+" = "+mark(row[k]))
			}
		}
		return strings.Join(parts, " AND ")
	}
	switch kind {
	case StepDelete:
		return "DELETE FROM " + table + " WHERE " + where(), args
	case StepUpdate:
		var sets []string
		for k, c := range cols {
			if !isKey[c] {
				sets = append(sets, c+" = "+mark(row[k]))
			}
		}
		return "UPDATE " + table + " SET " + strings.Join(sets, ", ") + " WHERE " + where(), args
	}
	marks := make([]string, len(cols))
	for k, v := range row {
		marks[k] = mark(v)
	}
	sql := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	if kind == StepInsertOrUpdate {
		var sets []string
		for _, c := range cols {
			if !isKey[c] {
				sets = append(sets, c+" = excluded."+c)
			}
		}
		if len(sets) == 0 {
			sql += " ON CONFLICT (" + strings.Join(key, ", ") + ") DO NOTHING"
		} else {
			sql += " ON CONFLICT (" + strings.Join(key, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ")
		}
	}
	return sql, args
}

// keyColumns are the key columns of table's primary key or of its index, in key order: read once,
// on a connection of its own (Spanner answers no INFORMATION_SCHEMA query in a read-write
// transaction).
func (b *pgxBackend) keyColumns(ctx context.Context, table, index string) ([]string, error) {
	b.mu.Lock()
	found, ok := b.keys[[2]string{table, index}]
	b.mu.Unlock()
	if ok {
		return found, nil
	}
	rows, err := b.pool.Query(ctx, pgKeySQL, table, index)
	if err != nil {
		return nil, err
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		what := "primary key"
		if index != pgPrimaryKey {
			what = "index " + index
		}
		return nil, fmt.Errorf("table %s has no %s", table, what)
	}
	b.mu.Lock()
	b.keys[[2]string{table, index}] = cols
	b.mu.Unlock()
	return cols, nil
}

func (b *pgxBackend) Poll(ctx context.Context, stmt spanner.Statement, keys int, extra pollColumns, at time.Time) ([]change, error) {
	args := positional(stmt.Params)
	for k, v := range args {
		args[k] = pgxValue(v)
	}
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	if err := b.setStaleness(ctx, c.Conn(), staleness{at: at}); err != nil {
		return nil, err
	}
	rows, _, err := pgRun(ctx, c, stmt.SQL, args, true)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []change
	for rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return out, err
		}
		ts, ok := values[keys].(time.Time)
		if !ok {
			return out, fmt.Errorf("column %d (the commit timestamp) is %T, not a timestamp", keys, values[keys])
		}
		var key strings.Builder
		for _, v := range values[:keys] {
			fmt.Fprint(&key, v)
			key.WriteByte(0)
		}
		c := change{key: key.String(), ts: ts}
		if err := c.pgxExtra(values, keys, extra); err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// pgxExtra reads the columns after the timestamp that extra names.
func (c *change) pgxExtra(values []any, keys int, extra pollColumns) error {
	at := keys + 1
	if extra.versions {
		id, ok := values[0].(int64)
		if !ok {
			return fmt.Errorf("watch.versions: the key is %T, not one bigint column", values[0])
		}
		c.id = id
		if v, ok := values[at].(int64); ok {
			c.version = &v
		}
		if w, ok := values[at+1].(string); ok {
			c.writer = &w
		}
		at += 2
	}
	if extra.shard {
		if v, ok := values[at].(int64); ok {
			c.shard = &v
		}
	}
	return nil
}

// pgxValue is a drawn value as pgx sends it: NUMERIC as its decimal text, DATE as a pgtype.Date,
// a typed NULL as nil.
func pgxValue(v any) any {
	switch x := v.(type) {
	case Decimal:
		var n pgtype.Numeric
		if err := n.Scan(x.Rat.FloatString(x.Scale)); err != nil {
			return x.Rat.FloatString(x.Scale)
		}
		return n
	case civil.Date:
		return pgtype.Date{Time: x.In(time.UTC), Valid: true}
	case spanner.NullInt64:
		return nullable(x.Valid, x.Int64)
	case spanner.NullString:
		return nullable(x.Valid, x.StringVal)
	case spanner.NullFloat64:
		return nullable(x.Valid, x.Float64)
	case spanner.NullBool:
		return nullable(x.Valid, x.Bool)
	case spanner.NullTime:
		return nullable(x.Valid, x.Time)
	case spanner.NullDate:
		return nullable(x.Valid, x.Date.In(time.UTC))
	case spanner.NullNumeric:
		if !x.Valid {
			return nil
		}
		return x.Numeric.FloatString(spanner.NumericScaleDigits)
	}
	return v
}

func nullable[T any](valid bool, v T) any {
	if !valid {
		return nil
	}
	return v
}
