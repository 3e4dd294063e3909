package txn

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

type state int

const (
	active state = iota
	committed
	rolledBack
	aborted
)

// AbortRetryDelay is the retry delay an ABORTED transaction is told to wait.
const AbortRetryDelay = 5 * time.Millisecond

// Txn is a transaction: read-only (reads at ReadTS, or strong) or read-write.
type Txn struct {
	ID       string
	Session  *Session
	DB       *storage.DB
	ReadOnly bool
	// Strong read-only transactions that read the current rows (single use);
	// otherwise ReadTS is the read timestamp (µs) of a read-only transaction.
	Strong bool
	ReadTS int64
	// StrongTS is the exact timestamp of a single-use strong read, once its
	// snapshot is fixed (0 before).
	StrongTS int64
	Begun    time.Time
	// Partitioned is set for a partitioned DML transaction: each statement commits.
	Partitioned bool
	// Tag is the transaction tag from the request options, for statistics.
	Tag string

	precommitSeq atomic.Int32

	mu      sync.Mutex
	state   state
	muts    []*storage.Mutation
	reads   []readItem
	lastUse time.Time
	dmlSeqs map[int64]int64 // DML seqno -> row count, for replays
	// partitions are the partition tokens made in a read-only transaction.
	partitions map[string]partition
	Attempts   int
}

// NextPrecommitSeq returns the sequence number of the next precommit token of a
// read-write transaction on a multiplexed session.
func (t *Txn) NextPrecommitSeq() int32 { return t.precommitSeq.Add(1) }

// LastUse is when the transaction was last used.
func (t *Txn) LastUse() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastUse
}

func (t *Txn) touch() { t.lastUse = time.Now() }

func (t *Txn) discard() {
	t.mu.Lock()
	if t.state == active {
		t.state = rolledBack
	}
	t.muts = nil
	t.mu.Unlock()
}

func (t *Txn) minReadSeq() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var m int64
	for _, r := range t.reads {
		if m == 0 || r.seq < m {
			m = r.seq
		}
	}
	return m
}

// Begin starts a transaction with the given options. A nil or read_only option
// starts a read-only one.
func (m *Manager) Begin(s *Session, opts *spannerpb.TransactionOptions, singleUse bool) (*Txn, error) {
	t := &Txn{ID: randomID(16), Session: s, DB: s.DB, Begun: time.Now()}
	t.lastUse = t.Begun
	switch mode := opts.GetMode().(type) {
	case *spannerpb.TransactionOptions_ReadWrite_:
	case *spannerpb.TransactionOptions_PartitionedDml_:
		t.Partitioned = true
	case *spannerpb.TransactionOptions_ReadOnly_, nil:
		t.ReadOnly = true
		if err := t.pickReadTS(mode, singleUse); err != nil {
			return nil, err
		}
	default:
		return nil, spanerr.InvalidArgument("unsupported transaction mode %T", mode)
	}
	if !singleUse {
		m.mu.Lock()
		m.txns[t.ID] = t
		m.mu.Unlock()
	}
	return t, nil
}

func (t *Txn) pickReadTS(mode any, singleUse bool) error {
	var ro *spannerpb.TransactionOptions_ReadOnly
	if m, ok := mode.(*spannerpb.TransactionOptions_ReadOnly_); ok {
		ro = m.ReadOnly
	}
	d := t.DB
	switch b := ro.GetTimestampBound().(type) {
	case *spannerpb.TransactionOptions_ReadOnly_ExactStaleness:
		if err := b.ExactStaleness.CheckValid(); err != nil || b.ExactStaleness.AsDuration() < 0 {
			return spanerr.InvalidArgument("invalid exact_staleness")
		}
		t.ReadTS = storage.NowMicros() - b.ExactStaleness.AsDuration().Microseconds()
	case *spannerpb.TransactionOptions_ReadOnly_ReadTimestamp:
		if err := b.ReadTimestamp.CheckValid(); err != nil {
			return spanerr.InvalidArgument("invalid read_timestamp: %v", err)
		}
		ts := b.ReadTimestamp.AsTime().UnixMicro()
		if wait := time.Until(time.UnixMicro(ts)); wait > 0 {
			if wait > time.Minute {
				return spanerr.InvalidArgument("read_timestamp is more than a minute in the future")
			}
			time.Sleep(wait)
		}
		t.ReadTS = ts
	default:
		// strong, max_staleness and min_read_timestamp: served as strong reads,
		// which bounded staleness allows.
		if singleUse {
			t.Strong = true
			return nil
		}
		t.ReadTS = d.StrongReadTS()
	}
	if limit := d.Retention() + storage.RetentionSlack - time.Minute; t.ReadTS < storage.NowMicros()-limit.Microseconds() {
		return spanerr.FailedPrecondition("Read timestamp %s is older than the database's version retention period (%s; the local Spanner server keeps versions %s longer).", time.UnixMicro(t.ReadTS).UTC().Format(time.RFC3339Nano), d.Retention(), limit-d.Retention())
	}
	d.WaitVisible(t.ReadTS)
	return nil
}

// Txn returns the active transaction with the given ID on session s.
func (m *Manager) Txn(s *Session, id []byte) (*Txn, error) {
	m.mu.Lock()
	t, ok := m.txns[string(id)]
	m.mu.Unlock()
	if !ok || t.DB != s.DB {
		// Spanner aborts transactions it discarded (idle ones, or after a restart):
		// ABORTED makes the client run the transaction again.
		return nil, abortedErr(fmt.Sprintf("Transaction %x is no longer active: it was committed, rolled back, or discarded after being idle for %s.", id, IdleTimeout))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.state {
	case aborted:
		return nil, abortedErr("Transaction was aborted.")
	case committed:
		if t.Partitioned {
			return nil, spanerr.InvalidArgument("PartitionedDml transaction may only be used to execute one statement")
		}
		return nil, spanerr.FailedPrecondition("Cannot use a transaction that has already committed.")
	case rolledBack:
		return nil, spanerr.FailedPrecondition("Cannot use a transaction that has been rolled back.")
	}
	t.touch()
	return t, nil
}

// TxnToCommit returns the transaction a Commit request names: a read-only or
// partitioned DML transaction is never committed by the client (a partitioned DML
// statement commits itself), so those answer FAILED_PRECONDITION, as in Spanner.
func (m *Manager) TxnToCommit(s *Session, id []byte) (*Txn, error) {
	m.mu.Lock()
	t, ok := m.txns[string(id)]
	m.mu.Unlock()
	if ok && t.DB == s.DB && (t.ReadOnly || t.Partitioned) {
		return nil, spanerr.FailedPrecondition("Cannot commit or rollback a read-only or partitioned-dml transaction.")
	}
	return m.Txn(s, id)
}

// CheckPrecommit checks the precommit token of a Commit: a read-write transaction
// on a multiplexed session that was given tokens must send one back (the client
// keeps the one with the highest sequence number), and it must be this
// transaction's. Spanner answers FAILED_PRECONDITION otherwise. A token with an
// older sequence number is accepted: Spanner uses the token to route the commit,
// and a client that stopped reading a result stream early never saw the newest.
func (t *Txn) CheckPrecommit(tok *spannerpb.MultiplexedSessionPrecommitToken) error {
	if t.ReadOnly || !t.Session.Multiplexed || t.precommitSeq.Load() == 0 {
		return nil
	}
	if len(tok.GetPrecommitToken()) == 0 {
		return spanerr.FailedPrecondition("A read-write transaction on a multiplexed session must send the precommit token with the highest sequence number it received in its Commit request; the request has none.")
	}
	if string(tok.GetPrecommitToken()) != t.ID {
		return spanerr.FailedPrecondition("The precommit token in the Commit request belongs to another transaction.")
	}
	return nil
}

// Source returns the query source of a read in this transaction.
func (t *Txn) Source() *storage.Source {
	if t.ReadOnly && !t.Strong {
		return t.DB.SourceAt(t.ReadTS)
	}
	return t.DB.CurrentSource()
}

// ReadTimestamp returns the timestamp a read in this transaction observed: the
// read timestamp, or for strong reads the newest commit visible after the read.
func (t *Txn) ReadTimestamp() time.Time {
	if t.ReadOnly && !t.Strong {
		return time.UnixMicro(t.ReadTS).UTC()
	}
	if t.StrongTS != 0 {
		return time.UnixMicro(t.StrongTS).UTC()
	}
	ts := t.DB.PendingCommit()
	if ts == 0 {
		ts = storage.NowMicros()
	}
	return time.UnixMicro(ts).UTC()
}

// ReadSeq returns the commit visible before a read starts, to be passed to
// RecordRead* after the read.
func (t *Txn) ReadSeq() int64 { return t.DB.LastCommit() }

// RecordTableRead notes that a read-write transaction read (part of) tables:
// any later write to them aborts it.
func (t *Txn) RecordTableRead(seq int64, tables ...*schema.Table) {
	t.RecordQueryRead(seq, tables, "", nil, 0, 0)
}

// RecordQueryRead notes that a read-write transaction ran a query over tables
// (SQLite text and arguments) whose rows hashed to hash, with the first pending of
// its own buffered writes applied. At commit, if the tables were written since,
// the query runs again (with those writes applied) and the transaction aborts
// only if its result changed: reads conflict on the rows they read, not on the
// whole table. With sql == "" any write to the tables aborts it.
func (t *Txn) RecordQueryRead(seq int64, tables []*schema.Table, sql string, args []any, hash uint64, pending int) {
	if t.ReadOnly || len(tables) == 0 {
		return
	}
	names := make([]string, len(tables))
	for i, tb := range tables {
		names[i] = tb.Name
	}
	t.mu.Lock()
	t.reads = append(t.reads, readItem{table: names[0], tables: names, seq: seq, sql: sql, args: args, hash: hash, pending: pending, at: time.Now()})
	t.mu.Unlock()
}

// Pending returns the writes buffered so far (the caller must not modify them).
func (t *Txn) Pending() []*storage.Mutation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.muts[:len(t.muts):len(t.muts)]
}

// RecordKeyRead notes that a read-write transaction read the rows of table with the
// given keys: columns (names) of them, or rows a query selected by key (cols nil).
func (t *Txn) RecordKeyRead(seq int64, table *schema.Table, keys [][]any, cols []string) {
	if t.ReadOnly {
		return
	}
	now := time.Now()
	t.mu.Lock()
	for _, k := range keys {
		t.reads = append(t.reads, readItem{table: table.Name, key: storage.KeyString(table.Name, k), seq: seq, keyVals: k, cols: cols, at: now})
	}
	t.mu.Unlock()
}

// Buffer adds mutations to a read-write transaction.
func (t *Txn) Buffer(muts ...*storage.Mutation) error {
	if t.ReadOnly {
		return spanerr.FailedPrecondition("Cannot write in a read-only transaction.")
	}
	t.mu.Lock()
	t.muts = append(t.muts, muts...)
	t.mu.Unlock()
	return nil
}

// DMLReplay returns the row count of a DML statement already run with seqno.
func (t *Txn) DMLReplay(seqno int64) (int64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.dmlSeqs[seqno]
	return n, ok
}

// RecordDML remembers the row count of the DML statement with seqno.
func (t *Txn) RecordDML(seqno, rows int64) {
	t.mu.Lock()
	if t.dmlSeqs == nil {
		t.dmlSeqs = map[int64]int64{}
	}
	t.dmlSeqs[seqno] = rows
	t.mu.Unlock()
}

// Rollback ends a transaction without writing.
func (m *Manager) Rollback(t *Txn) {
	t.discard()
	m.mu.Lock()
	delete(m.txns, t.ID)
	m.mu.Unlock()
}

// CommitResult is what a commit returns.
type CommitResult struct {
	TS        time.Time
	Mutations int64
}

// Commit validates the transaction's reads and applies its buffered writes plus
// extra at one new commit timestamp. A read that changed since it was read aborts
// the transaction with ABORTED (retryable).
func (m *Manager) Commit(ctx context.Context, t *Txn, extra []*storage.Mutation) (CommitResult, error) {
	t.mu.Lock()
	if t.state != active {
		st := t.state
		t.mu.Unlock()
		if st == aborted {
			return CommitResult{}, abortedErr("Transaction was aborted.")
		}
		if st == committed {
			return CommitResult{}, spanerr.FailedPrecondition("Transaction has already committed.")
		}
		return CommitResult{}, spanerr.FailedPrecondition("Transaction has been rolled back.")
	}
	if t.ReadOnly {
		t.mu.Unlock()
		return CommitResult{}, spanerr.FailedPrecondition("Cannot commit a read-only transaction.")
	}
	muts := append(t.muts, extra...)
	reads := t.reads
	t.mu.Unlock()

	c := m.conflictsOf(t.DB)
	var count int64
	for _, mu := range muts {
		count += mu.Count()
	}
	start := time.Now()
	var conflict bool
	var lock *LockConflict // the conflict that aborted it, reported after the commit lock is released
	ts, participants, err := t.DB.CommitSplits(storage.WithTransactionTag(ctx, t.Tag), muts, func(q storage.Querier) error {
		changed, recheck := c.changedSince(reads)
		var afterOwn []readItem // reads that saw the transaction's own writes
		for i := 0; changed == nil && i < len(recheck); i++ {
			r := &recheck[i]
			if r.pending > 0 {
				afterOwn = append(afterOwn, *r)
				continue
			}
			h, err := storage.HashQuery(ctx, q, r.sql, r.args)
			if err != nil {
				return err
			}
			if h != r.hash {
				changed = r
			}
		}
		if changed == nil && len(afterOwn) > 0 {
			changed = changedAfterOwnWrites(ctx, t.DB, muts, afterOwn)
		}
		if changed != nil {
			conflict = true
			if m.OnLockConflict != nil {
				lc := c.conflictOf(changed, t.Tag, time.Now())
				lock = &lc
			}
			return abortedErr("Transaction was aborted because data it read in table " + changed.table + " was changed by another transaction that committed first.")
		}
		return nil
	}, func(ts int64) {
		c.record(ts, muts, newCommitWrites(t.Tag, reads, muts), func(table string) []string { return cascadeChildren(t.DB.Catalog(), table) })
	})
	var modelCPU time.Duration
	if err == nil {
		var least time.Duration
		least, modelCPU = ModelCost(t.DB.LatencyModel(), participants)
		wait(ctx, least-time.Since(start))
		if knee := t.DB.CommitKnee(); knee != nil {
			wait(ctx, m.kneeOf(t.DB).delay(knee, time.Now()))
		}
	} else {
		participants = 0
	}
	dur := time.Since(start)
	t.mu.Lock()
	switch {
	case err == nil:
		t.state = committed
	case conflict:
		t.state = aborted
	default:
		// A constraint error ends the transaction as Spanner does.
		t.state = rolledBack
	}
	t.muts = nil
	keep := t.Partitioned && err == nil
	if keep {
		t.reads = nil
	}
	t.mu.Unlock()
	if !keep {
		// A committed partitioned DML transaction stays known until it is idle, so
		// that a second statement in it is told why it cannot run.
		m.mu.Lock()
		delete(m.txns, t.ID)
		m.mu.Unlock()
	}
	if lock != nil {
		m.OnLockConflict(t.DB, *lock)
	}
	if m.OnCommit != nil {
		m.OnCommit(t.DB, CommitStat{
			Shape: shape(reads, muts), Tag: t.Tag, Committed: err == nil, Aborted: conflict,
			Participants: participants, ModelCPU: modelCPU, CommitDur: dur, TotalDur: time.Since(t.Begun),
		})
	}
	if err != nil {
		return CommitResult{}, err
	}
	return CommitResult{TS: time.UnixMicro(ts).UTC(), Mutations: count}, nil
}

// shape describes what a transaction read and wrote (tables and columns), the
// identity of its statistics row (TXN_STATS FPRINT).
func shape(reads []readItem, muts []*storage.Mutation) string {
	set := map[string]bool{}
	for _, r := range reads {
		set["read "+r.table] = true
	}
	for _, m := range muts {
		cols := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			cols[i] = c.Name
		}
		set["write "+m.Table.Name+"("+strings.Join(cols, ",")+")"] = true
	}
	parts := make([]string, 0, len(set))
	for k := range set {
		parts = append(parts, k)
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func cascadeChildren(cat *schema.Catalog, table string) []string {
	var out []string
	for _, t := range cat.Tables {
		if t.Parent != nil && t.Parent.Name == table {
			out = append(out, t.Name)
			out = append(out, cascadeChildren(cat, t.Name)...)
		}
	}
	return out
}

// AbortedError is an ABORTED error that carries a retry delay.
type AbortedError struct {
	Msg   string
	Delay time.Duration
}

func (e *AbortedError) Error() string { return e.Msg }

func abortedErr(msg string) error { return &AbortedError{Msg: msg, Delay: AbortRetryDelay} }
