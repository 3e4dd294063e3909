package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
)

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
		default:
			return true, spanerr.InvalidArgument("Unknown database option %s: the local Spanner server knows %s and %s.", k, OptSplitRows, OptLatencyModel)
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
	return true, nil
}

// loadOptions reads the options recorded by applyOptions (at open).
func (d *DB) loadOptions(ctx context.Context) error {
	var v string
	err := d.writer.QueryRowContext(ctx, "SELECT v FROM _spanload_meta WHERE k = ?", optionKeyPrefix+OptSplitRows).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("load options: %w", err)
	default:
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil {
			return fmt.Errorf("load option %s=%q: %w", OptSplitRows, v, perr)
		}
		d.optSplitRows.Store(n)
	}
	err = d.writer.QueryRowContext(ctx, "SELECT v FROM _spanload_meta WHERE k = ?", optionKeyPrefix+OptLatencyModel).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("load options: %w", err)
	default:
		d.optLatencyModel.Store(&v)
	}
	return nil
}
