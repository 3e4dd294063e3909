package worker

import (
	"context"
	"fmt"
	"math"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spanload/spanload/goworker/internal/admin"
	"github.com/spanload/spanload/goworker/internal/interp"
	"github.com/spanload/spanload/goworker/internal/ledger"
	"github.com/spanload/spanload/goworker/internal/loadphase"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/serverstats"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// watchDrainGiveUp bounds the definition watcher's final drain, as the built-in watcher's.
const watchDrainGiveUp = 20 * time.Second

// setupTimeout is the least a setup query may take (the Python worker's load-phase count has 60 s).
const setupTimeout = 60 * time.Second

// streamDDLTimeout bounds creating the change stream a watch reads (at the start, or at a switch).
const streamDDLTimeout = 5 * time.Minute

// setupDefinition: worker 0 counts the load's rows when there is one, and sets up the watcher (the
// definition compiled in New; its schema is there: the control plane ran its DDL).
func (w *Worker) setupDefinition(parent context.Context) error {
	cfg := w.config
	// its queries (the load's count, the watched table's key) end, as the Python worker's do: the
	// run's operation timeout, at least setupTimeout for a big table's count
	ctx, cancel := context.WithTimeout(parent, max(spanclient.OperationTimeout(cfg.Client), setupTimeout))
	defer cancel()
	rt := w.interp
	_, knobs, err := interp.Decode(cfg)
	if err != nil {
		return err
	}
	client := w.conn.Client
	if w.start.SetupSchema && len(rt.Def.Load) > 0 {
		plan, err := interp.LoadPlan(rt.Def, knobs, interp.Seed(cfg))
		if err != nil {
			return err
		}
		if interp.Wanted(plan) > 0 { // as the Python worker: no load asked, nothing to count
			n, err := interp.Loaded(ctx, client, plan)
			if err != nil {
				return err
			}
			w.TableRows = &n
		}
	}
	if w.index != 0 {
		return nil
	}
	if warm, ok := rt.Backend().(interface{ Warm(context.Context) error }); ok { // PGAdapter's first connection
		if err := warm.Warm(ctx); err != nil {
			return fmt.Errorf("PGAdapter (client.pgadapter_host): %w", err)
		}
	}
	prefix := ""
	pg := rt.Def.PG()
	watch := rt.Def.Watch
	var key []string
	switchable := watch != nil && watch.ModeKnob() != ""
	if watch != nil && (!watch.StreamMode(knobs) || watch.Versions != nil || switchable) {
		if key = watch.Key; len(key) == 0 {
			if key, err = interp.PrimaryKey(ctx, client, watch.Table, pg); err != nil {
				return fmt.Errorf("watch: %w", err)
			}
		}
		if watch.Versions != nil {
			if err := interp.CheckVersionedKey(ctx, client, watch, key, pg); err != nil {
				return err
			}
		}
	}
	if watch != nil {
		// the watcher of a mode: a stream's is created (when missing) first and read from then on
		build := func(stream bool, knobs interp.Knobs, start time.Time) (interp.DefinitionWatcher, time.Time, error) {
			if !stream {
				return interp.NewWatcher(watch, key, pg, knobs, w.Conn, rt.Backend(), w.stats, start), time.Time{}, nil
			}
			if pg {
				return nil, time.Time{}, fmt.Errorf("watch: mode change_stream runs on GoogleSQL definitions only; use mode poll")
			}
			ctx, cancel := context.WithTimeout(context.Background(), streamDDLTimeout)
			defer cancel()
			client := w.Conn().Client
			created, err := w.ensureStream(ctx, client, watch)
			if err != nil {
				return nil, time.Time{}, fmt.Errorf("watch: %w", err)
			}
			var createdAt time.Time
			if created {
				createdAt = startTimestamp(ctx, client)
				start = createdAt
			}
			return interp.NewStreamWatcher(watch, knobs, w.Conn, w.stats, start), createdAt, nil
		}
		start := definitionStart(ctx, client, pg)
		if switchable {
			now := func() time.Time { return startTimestamp(context.Background(), w.Conn().Client) }
			w.defWatch, err = interp.NewSwitchingWatch(watch, build, knobs, start, now, w.watchSwitched, w.index,
				watchDrainGiveUp)
		} else {
			w.defWatch, _, err = build(watch.StreamMode(knobs), knobs, start)
		}
		if err != nil {
			return err
		}
	}
	if w.defWatch != nil {
		prefix = w.defWatch.SQL()[:min(len(w.defWatch.SQL()), pollPrefixLen)]
		if watch.Versions != nil { // the exact reconciliation: what this run's writers wrote, received
			seen := ledger.NewSeenLedger(ledger.WriterIDs(w.start.RunID, w.start.Workers))
			seen.SetFresh(ledger.NewFreshKeys(w.start.RunID, w.start.Workers))
			w.defWatch.SetLedger(seen)
		}
	}
	w.serverStats = serverstats.NewReader(prefix, w.start.RunTag)
	return nil
}

func (w *Worker) runDefinition() {
	if w.defWatch != nil {
		if w.preloaded { // the loaded rows are not changes: watch from the run's begin (watchStart)
			now := definitionStart(context.Background(), w.Conn().Client, w.interp.Def.PG())
			w.defWatch.SetStart(watchStart(now, w.startedAt))
		}
		w.defWatch.Start()
	}
	w.interp.Start()
}

// watchStart is where a preloaded run's watch starts: the Begin's time (every loaded row committed
// before it was sent), or the server's time if earlier. The server's time alone came after the other
// workers' first writes, which Begin reached at once: their changes were missed. Python's watch_start.
func watchStart(serverNow time.Time, begun float64) time.Time {
	sec := math.Floor(begun)
	b := time.Unix(int64(sec), int64(math.Round((begun-sec)*1e9))).UTC()
	if serverNow.Before(b) {
		return serverNow
	}
	return b
}

// definitionStart is the server's time for a definition's watch (a PostgreSQL database's now()).
func definitionStart(ctx context.Context, client *spanner.Client, pg bool) time.Time {
	if pg {
		return serverTime(ctx, client, "SELECT now()")
	}
	return startTimestamp(ctx, client)
}

// loadDefinition writes this worker's share of the definition's load: m.Start and m.Count index
// the concatenated rows of every load table, in the order written.
func (w *Worker) loadDefinition(ctx context.Context, m *protocol.Preload, progress *loadphase.Progress) error {
	cfg := w.Config()
	_, knobs, err := interp.Decode(cfg)
	if err != nil {
		return err
	}
	plan, err := interp.LoadPlan(w.interp.Def, knobs, interp.Seed(cfg))
	if err != nil {
		return err
	}
	return interp.Load(ctx, w.Conn().Client, plan, m.Start, m.Count, m.Resume,
		spanclient.OperationTimeout(cfg.Client), progress)
}

func (w *Worker) applyDefinition(cfg protocol.RunConfig) {
	if err := w.interp.Apply(cfg); err != nil {
		w.stats.Error(err)
		_ = w.channel.Send(&protocol.Error{Worker: w.index, Message: fmt.Sprintf("patch: %v", err)})
		return
	}
	if w.defWatch != nil {
		if _, knobs, err := interp.Decode(cfg); err == nil {
			w.defWatch.Apply(knobs)
			if w.serverStats != nil { // the hint may have changed the poll's text
				w.serverStats.SetPrefix(w.defWatch.SQL()[:min(len(w.defWatch.SQL()), pollPrefixLen)])
			}
		}
	}
}

// stopDefinition stops the operations, then drains the watcher and, with versions, sends what it
// received (watcher_ledger).
func (w *Worker) stopDefinition() error {
	if w.interp == nil {
		return nil
	}
	w.interp.Stop()
	if w.defWatch == nil {
		return nil
	}
	if err := w.defWatch.StopAndDrain(watchDrainGiveUp); err != nil {
		return err
	}
	if seen := w.defWatch.Ledger(); seen != nil {
		return w.channel.Send(seen.Message(w.index))
	}
	return nil
}

// ensureStream creates the change stream a change_stream watch reads when the database has none
// of that name, with the statement the start message carries (the model's, in the definition's
// dialect; with versions it captures NEW_ROW).
func (w *Worker) ensureStream(ctx context.Context, client *spanner.Client, watch *interp.Watch) (created bool, err error) {
	found, err := interp.StreamExists(ctx, client, watch.StreamName())
	if err != nil || found {
		return false, err
	}
	if w.start.WatchStreamDDL == "" {
		return false, fmt.Errorf("start message: no watch_stream_ddl for the change stream %s", watch.StreamName())
	}
	conn := w.Conn()
	return true, admin.ApplyDDL(ctx, conn.Paths, []string{w.start.WatchStreamDDL}, conn.Opts...)
}

// watchSwitched: a switch of the watch's mode ended; the server statistics follow the new query.
func (w *Worker) watchSwitched(m *protocol.WatchSwitched) {
	if w.serverStats != nil && w.defWatch != nil {
		w.serverStats.SetPrefix(w.defWatch.SQL()[:min(len(w.defWatch.SQL()), pollPrefixLen)])
	}
	_ = w.channel.Send(m)
}
