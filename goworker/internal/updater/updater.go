// Package updater writes transactions on the open-loop Poisson schedule (workers/updater.py):
// mutations (one single-use commit upserting 1..2m random keys), dml (a read-write transaction
// of UPDATE-then-INSERT statements) and batch_insert (batch_rows new rows per single-use commit).
package updater

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/pacing"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/schema"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

const (
	usPerS = 1_000_000
)

// Updater is the write workload of one worker.
type Updater struct {
	*pacing.Load
	conn     func() *spanclient.Conn
	spec     *schema.Spec
	stats    *metrics.Stats
	worker   int
	workers  int
	WriterID string
	Ledger   *ledger.WriteLedger
	mu       sync.Mutex
	config   protocol.UpdaterConfig
	update   string
	insert   string
	rngPool  sync.Pool
}

func New(conn func() *spanclient.Conn, spec *schema.Spec, cfg protocol.UpdaterConfig, stats *metrics.Stats,
	worker, workers int, writerID string) *Updater {
	u := &Updater{conn: conn, spec: spec, stats: stats, worker: worker, workers: workers, WriterID: writerID,
		Ledger: ledger.NewWriteLedger(worker, workers, cfg.KeySpace, nil), config: cfg}
	u.rngPool.New = func() any { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
	u.update, u.insert = spec.DMLStatements()
	p := pacing.New("updater", u.transaction, pacing.Share(cfg.TransactionsPerSecond, workers),
		pacing.ShareThreads(cfg.Parallelism, worker, workers), 0, nil)
	u.Load = pacing.NewLoad(p, cfg.Enabled)
	return u
}

// Apply takes a patched config.
func (u *Updater) Apply(cfg protocol.UpdaterConfig) {
	u.mu.Lock()
	u.config = cfg
	u.mu.Unlock()
	u.Pacer.SetRate(pacing.Share(cfg.TransactionsPerSecond, u.workers))
	u.Pacer.SetParallelism(pacing.ShareThreads(cfg.Parallelism, u.worker, u.workers))
	u.Ledger.SetKeySpace(cfg.KeySpace)
	u.SetEnabled(cfg.Enabled)
}

func (u *Updater) Gauges(out map[string]float64) {
	out[protocol.GaugeUpdaterTargetTPS] = u.Pacer.Rate()
	out[protocol.GaugeUpdaterBehind] = float64(u.Pacer.Behind())
}

func (u *Updater) rows(rng *rand.Rand, writes []ledger.Write, commitTS bool) [][]any {
	out := make([][]any, len(writes))
	for i, w := range writes {
		row := make([]any, 0, len(u.spec.PayloadColumns)+4)
		row = append(row, w.Key)
		row = append(row, u.spec.Payload(rng, w.Key)...)
		row = append(row, w.Version, u.WriterID)
		if commitTS {
			row = append(row, spanner.CommitTimestamp)
		}
		out[i] = row
	}
	return out
}

func (u *Updater) transaction(intended, actual float64) {
	u.mu.Lock()
	cfg := u.config
	u.mu.Unlock()
	rng := u.rngPool.Get().(*rand.Rand)
	defer u.rngPool.Put(rng)
	var writes []ledger.Write
	var err error
	if cfg.Mode == protocol.ModeBatchInsert {
		writes, err = u.Ledger.Reserve(cfg.BatchRows, true)
	} else {
		writes, err = u.Ledger.Reserve(1+rng.IntN(2*cfg.MutationsPerTransaction), false)
	}
	if err != nil {
		u.stats.Error(err)
		slog.Debug("updater could not pick keys", "err", err)
		return
	}
	conn := u.conn()
	ctx, timing, done, err := conn.Begin(spanclient.Tagged(context.Background(), protocol.TagOpUpdater))
	if err != nil { // no session in time: not an operation that reached the server
		u.Ledger.Failed(writes, false)
		u.stats.Failed(protocol.OpUpdaterTxn, err, (pacing.Now()-actual)*usPerS, codes.OK)
		return
	}
	err = u.write(ctx, conn.Client, cfg.Mode, rng, writes)
	done()
	if err != nil {
		u.Ledger.Failed(writes, metrics.OutcomeUnknown(err))
		u.stats.Failed(protocol.OpUpdaterTxn, err, (pacing.Now()-actual)*usPerS, timing.LastFailure())
		slog.Debug("updater transaction failed", "err", err)
		return
	}
	u.stats.Succeeded(protocol.OpUpdaterTxn, intended, actual, pacing.Now(), timing.Parts())
	u.Ledger.Committed(writes)
	u.stats.Count(protocol.CounterTransactions, 1)
	u.stats.Count(protocol.CounterMutations, int64(len(writes)))
}

func (u *Updater) write(ctx context.Context, client *spanner.Client, mode string, rng *rand.Rand, writes []ledger.Write) error {
	cols := u.spec.WriteColumns()
	switch mode {
	case protocol.ModeMutations, protocol.ModeBatchInsert:
		op := spanner.InsertOrUpdate
		if mode == protocol.ModeBatchInsert {
			op = spanner.Insert
		}
		rows := u.rows(rng, writes, true)
		ms := make([]*spanner.Mutation, len(rows))
		for i, row := range rows {
			ms[i] = op(u.spec.Table, cols, row)
		}
		_, err := client.Apply(ctx, ms, spanner.ApplyAtLeastOnce())
		return err
	case protocol.ModeDML:
		return u.dml(ctx, client, u.rows(rng, writes, false))
	}
	return fmt.Errorf("unknown updater mode %q", mode)
}

// dml upserts by DML in one read-write transaction: an UPDATE per row, then an INSERT for the rows
// the UPDATE did not find. Attempts after the first count as retries.
func (u *Updater) dml(ctx context.Context, client *spanner.Client, rows [][]any) error {
	attempts := 0
	statements := func(sql string, batch [][]any) []spanner.Statement {
		out := make([]spanner.Statement, len(batch))
		for i, row := range batch {
			params := make(map[string]any, len(row))
			for j, v := range row {
				params[fmt.Sprintf("p%d", j)] = v
			}
			out[i] = spanner.Statement{SQL: sql, Params: params}
		}
		return out
	}
	_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, txn *spanner.ReadWriteTransaction) error {
		attempts++
		counts, err := txn.BatchUpdate(ctx, statements(u.update, rows))
		if err != nil {
			return err
		}
		var missing [][]any
		for i, n := range counts {
			if n == 0 {
				missing = append(missing, rows[i])
			}
		}
		if len(missing) > 0 {
			if _, err := txn.BatchUpdate(ctx, statements(u.insert, missing)); err != nil {
				return err
			}
		}
		return nil
	})
	if attempts > 1 {
		u.stats.Count(protocol.CounterRetries, int64(attempts-1))
	}
	return err
}
