package interp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/goworker/internal/ledger"
)

// seenLedger is where a watch with versions records what it received (both modes): set by the
// watching worker before Start, read once the final drain is over.
type seenLedger struct {
	seen atomic.Pointer[ledger.SeenLedger]
}

// SetLedger makes the watch record each change's key, version and writer in l.
func (s *seenLedger) SetLedger(l *ledger.SeenLedger) { s.seen.Store(l) }

// Ledger is what the watch received (nil: none set).
func (s *seenLedger) Ledger() *ledger.SeenLedger { return s.seen.Load() }

// sawMod records a change stream mod (keys, new_values, old_values: JSON text) in seen: its key's
// one column, and the version and writer from its new values; a mod without them (a delete) has
// neither, and counts as foreign (SeenLedger.Saw).
func (w *StreamWatcher) sawMod(seen *ledger.SeenLedger, mod []*structpb.Value) error {
	if len(mod) < 2 {
		return errors.New("a change stream mod without keys and new_values")
	}
	var keys, values map[string]any
	if err := decode([]byte(mod[0].GetStringValue()), &keys); err != nil {
		return fmt.Errorf("a mod's keys: %w", err)
	}
	if text := mod[1].GetStringValue(); text != "" {
		if err := decode([]byte(text), &values); err != nil {
			return fmt.Errorf("a mod's new_values: %w", err)
		}
	}
	if len(keys) != 1 {
		return fmt.Errorf("watch.versions: a change of %s has key %v; versions need a key of one INT64 column", w.def.Table, keys)
	}
	var key int64
	for _, v := range keys {
		n, ok := jsonInt(v)
		if !ok {
			return fmt.Errorf("watch.versions: a change of %s has key %v, not an INT64", w.def.Table, v)
		}
		key = n
	}
	var version *int64
	if n, ok := jsonInt(values[w.def.Versions.Version]); ok {
		version = &n
	}
	var writer *string
	if s, ok := values[w.def.Versions.Writer].(string); ok {
		writer = &s
	}
	seen.Saw(key, version, writer)
	return nil
}

// jsonInt reads an INT64 of a change record's JSON: a string of digits, or a number.
func jsonInt(v any) (int64, bool) {
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number:
		text = string(x)
	default:
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// CheckVersionedKey checks that a watch with versions can tell its writes apart: key (the watched
// table's key columns) is one INT64 column (pg: bigint, of a PostgreSQL database).
func CheckVersionedKey(ctx context.Context, client *spanner.Client, w *Watch, key []string, pg bool) error {
	if len(key) != 1 {
		return fmt.Errorf("watch.versions: the versions of %s are told apart by a key of exactly one INT64 column; "+
			"its key is (%s)", w.Table, strings.Join(key, ", "))
	}
	schema, table, column, want := "", "@table", "@column", "INT64"
	params := map[string]any{"table": w.Table, "column": key[0]}
	if pg {
		schema, table, column, want = "public", "$1", "$2", "bigint"
		params = map[string]any{"p1": w.Table, "p2": key[0]}
	}
	var typ string
	err := client.Single().Query(ctx, spanner.Statement{
		SQL: "SELECT SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '" + schema + "' AND " +
			"TABLE_NAME = " + table + " AND COLUMN_NAME = " + column, Params: params,
	}).Do(func(r *spanner.Row) error { return r.Columns(&typ) })
	if err != nil {
		return fmt.Errorf("watch.versions: reading the type of %s.%s: %w", w.Table, key[0], err)
	}
	if typ != want {
		return fmt.Errorf("watch.versions: the versions of %s are told apart by a key of exactly one INT64 column; "+
			"its key %s is %q", w.Table, key[0], typ)
	}
	return nil
}
