package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// The local-server database options (schema.DatabaseOptions), kept in
// _spanload_meta under "option.NAME". They are not in the DDL history: Spanner
// has no such options, and GetDatabaseDdl lists only the schema.
const (
	// OptSplitRows is the split threshold in rows (default: DefaultSplitRows).
	OptSplitRows = "spanload_split_rows"
	// OptLatencyModel selects the commit latency model (LatencyNone by default).
	OptLatencyModel = "spanload_latency_model"
	// OptCommitKneeRate and OptCommitKneeDelayMs, set together, make a synthetic
	// knee: a commit that finds more than the rate's commits in the last second
	// of the database takes the delay longer (the txn package applies it).
	OptCommitKneeRate    = "spanload_commit_knee_rate"
	OptCommitKneeDelayMs = "spanload_commit_knee_delay_ms"
	// MaxCommitKneeRate and MaxCommitKneeDelayMs bound the knee's options.
	MaxCommitKneeRate    = 1_000_000
	MaxCommitKneeDelayMs = 60_000
)

// CommitKnee is the synthetic knee of OptCommitKneeRate and OptCommitKneeDelayMs.
type CommitKnee struct {
	Rate  int64         // commits in the last second above which a commit is delayed
	Delay time.Duration // how much longer such a commit takes
}

// options names every option, for messages and for loadOptions.
var options = []string{OptSplitRows, OptLatencyModel, OptCommitKneeRate, OptCommitKneeDelayMs}

// Latency models (see the txn package, which applies them).
const (
	LatencyNone           = "none"
	LatencyProductionLike = "production_like"
)

const optionKeyPrefix = "option."

// LatencyModel returns the database's commit latency model.
func (d *DB) LatencyModel() string {
	if p := d.optLatencyModel.Load(); p != nil && *p != "" {
		return *p
	}
	return LatencyNone
}

// CommitKnee returns the database's synthetic commit knee, or nil when it has none.
func (d *DB) CommitKnee() *CommitKnee { return d.optCommitKnee.Load() }

// SplitRows returns the database's split threshold.
func (d *DB) SplitRows() int64 { return d.splitRows() }

// applyOptions applies stmt if it sets local-server options (handled is false
// for every other statement).
func (d *DB) applyOptions(ctx context.Context, stmt string) (handled bool, err error) {
	name, opts, ok, err := schema.DatabaseOptions(stmt)
	if !ok {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if _, id, _ := strings.Cut(d.Name, "/databases/"); !strings.EqualFold(name, id) {
		return true, spanerr.InvalidArgument("ALTER DATABASE names database %s, but this is database %s.", name, id)
	}
	var splitRows *int64
	var model *string
	knee := map[string]*int64{}
	for k, v := range opts {
		switch k {
		case OptSplitRows:
			n := int64(0)
			if v != nil {
				iv, isInt := v.(int64)
				if !isInt || iv < MinSplitRows {
					return true, spanerr.InvalidArgument("Option %s must be an integer of at least %d (or NULL for the server's default), got %v.", k, MinSplitRows, v)
				}
				n = iv
			}
			splitRows = &n
		case OptLatencyModel:
			s := ""
			if v != nil {
				sv, isStr := v.(string)
				if !isStr || (sv != LatencyNone && sv != LatencyProductionLike) {
					return true, spanerr.InvalidArgument("Option %s must be '%s' or '%s' (or NULL), got %v.", k, LatencyNone, LatencyProductionLike, v)
				}
				s = sv
			}
			model = &s
		case OptCommitKneeRate, OptCommitKneeDelayMs:
			n := int64(-1)
			if v != nil {
				least, most := int64(0), int64(MaxCommitKneeRate)
				if k == OptCommitKneeDelayMs {
					least, most = 1, MaxCommitKneeDelayMs
				}
				iv, isInt := v.(int64)
				if !isInt || iv < least || iv > most {
					return true, spanerr.InvalidArgument("Option %s must be an integer from %d to %d (or NULL), got %v.", k, least, most, v)
				}
				n = iv
			}
			knee[k] = &n
		default:
			return true, spanerr.InvalidArgument("Unknown database option %s: the local Spanner server knows %s.", k, strings.Join(options, ", "))
		}
	}
	tx, err := d.writer.BeginTx(ctx, nil)
	if err != nil {
		return true, fmt.Errorf("begin: %w", err)
	}
	for k, v := range opts {
		if v == nil {
			_, err = tx.ExecContext(ctx, "DELETE FROM _spanload_meta WHERE k = ?", optionKeyPrefix+k)
		} else {
			_, err = tx.ExecContext(ctx, "INSERT OR REPLACE INTO _spanload_meta (k, v) VALUES (?, ?)", optionKeyPrefix+k, fmt.Sprint(v))
		}
		if err != nil {
			_ = tx.Rollback()
			return true, fmt.Errorf("record option %s: %w", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return true, fmt.Errorf("record options: %w", err)
	}
	if splitRows != nil {
		d.optSplitRows.Store(*splitRows)
	}
	if model != nil {
		d.optLatencyModel.Store(model)
	}
	if len(knee) > 0 {
		d.setKnee(knee[OptCommitKneeRate], knee[OptCommitKneeDelayMs])
	}
	return true, nil
}

// setKnee changes the knee's rate or delay (nil: unchanged, -1: unset); the knee
// holds while both are set.
func (d *DB) setKnee(rate, delayMs *int64) {
	d.kneeMu.Lock()
	defer d.kneeMu.Unlock()
	if rate != nil {
		d.kneeRate = *rate
	}
	if delayMs != nil {
		d.kneeDelayMs = *delayMs
	}
	if d.kneeRate < 0 || d.kneeDelayMs <= 0 {
		d.optCommitKnee.Store(nil)
		return
	}
	d.optCommitKnee.Store(&CommitKnee{Rate: d.kneeRate, Delay: time.Duration(d.kneeDelayMs) * time.Millisecond})
}

// loadOptions reads the options recorded by applyOptions (at open).
func (d *DB) loadOptions(ctx context.Context) error {
	for _, k := range options {
		var v string
		err := d.writer.QueryRowContext(ctx, "SELECT v FROM _spanload_meta WHERE k = ?", optionKeyPrefix+k).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("load options: %w", err)
		}
		if k == OptLatencyModel {
			d.optLatencyModel.Store(&v)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("load option %s=%q: %w", k, v, err)
		}
		switch k {
		case OptSplitRows:
			d.optSplitRows.Store(n)
		case OptCommitKneeRate:
			d.setKnee(&n, nil)
		case OptCommitKneeDelayMs:
			d.setKnee(nil, &n)
		}
	}
	return nil
}
