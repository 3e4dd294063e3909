package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"

	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// Backend is where a definition's executions and its watch's polls run: client.interface's one
// seam. The official client serves googlesql and postgresql (NewClientBackend); pgx through
// PGAdapter serves pgadapter (NewPgxBackend).
type Backend interface {
	// Execute runs one execution in its operation's transaction kind; attempts counts the runs of
	// a read-write transaction that Spanner aborted and that was run again.
	Execute(ctx context.Context, x *run) (attempts int, err error)
	// Poll runs a watch's poll (a single-use query: strong, or at `at` when it is set, as a
	// hand-over's drain reads) and returns each row's first keys columns as a key and its next
	// column, a commit timestamp, then the columns extra names.
	Poll(ctx context.Context, stmt spanner.Statement, keys int, extra pollColumns, at time.Time) ([]change, error)
	// Close lets go of what the backend holds (connections).
	Close()
}

// change is a row a poll returned: its key, as text that tells keys apart, and commit timestamp;
// with pollColumns, its key as a number, its version and writer, and its shard (nil: NULL).
type change struct {
	key     string
	ts      time.Time
	id      int64
	version *int64
	writer  *string
	shard   *int64
}

// pollColumns are the columns a poll reads after the timestamp: the version and the writer
// (versions; the key is then one INT64), then the shard.
type pollColumns struct{ versions, shard bool }

// NewBackend is the backend of cfg's client.interface for a definition of dialect pg.
func NewBackend(cfg protocol.RunConfig, pg bool, conn func() *spanclient.Conn) (Backend, error) {
	switch cfg.Client.Interface {
	case protocol.InterfacePgadapter:
		if cfg.Client.PgadapterHost == nil || *cfg.Client.PgadapterHost == "" {
			return nil, fmt.Errorf("client.interface %q needs client.pgadapter_host (the engine sets it)",
				protocol.InterfacePgadapter)
		}
		return NewPgxBackend(*cfg.Client.PgadapterHost, cfg.Target.Database)
	case "", protocol.InterfaceGooglesql, protocol.InterfacePostgresql:
		return &clientBackend{conn: conn, pg: pg}, nil
	}
	return nil, fmt.Errorf("client.interface %q: the Go worker speaks %s, %s and %s", cfg.Client.Interface,
		protocol.InterfaceGooglesql, protocol.InterfacePostgresql, protocol.InterfacePgadapter)
}

// clientBackend is the official client, on a GoogleSQL or (pg) a PostgreSQL database.
type clientBackend struct {
	conn func() *spanclient.Conn
	pg   bool
}

func (b *clientBackend) Execute(ctx context.Context, x *run) (int, error) {
	if b.pg {
		x.conv = pgClientValue
	}
	return x.execute(ctx, b.conn().Client)
}

func (b *clientBackend) Poll(ctx context.Context, stmt spanner.Statement, keys int, extra pollColumns, at time.Time) ([]change, error) {
	tx := b.conn().Client.Single()
	if !at.IsZero() {
		tx = tx.WithTimestampBound(spanner.ReadTimestamp(at))
	}
	it := tx.Query(ctx, stmt)
	defer it.Stop()
	var rows []change
	for {
		r, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		c := change{key: clientRowKey(r, keys)}
		if err := r.Column(keys, &c.ts); err != nil {
			return rows, fmt.Errorf("decode column %d (the commit timestamp): %w", keys, err)
		}
		if err := c.clientExtra(r, keys, extra); err != nil {
			return rows, err
		}
		rows = append(rows, c)
	}
}

func (b *clientBackend) Close() {}

// clientRowKey is a row's first n columns, as text that tells keys apart.
func clientRowKey(r *spanner.Row, n int) string {
	var s strings.Builder
	for i := range n {
		var v spanner.GenericColumnValue
		if err := r.Column(i, &v); err == nil {
			s.WriteString(v.Value.String())
		}
		s.WriteByte(0)
	}
	return s.String()
}

// clientExtra decodes the columns after the timestamp that extra names.
func (c *change) clientExtra(r *spanner.Row, keys int, extra pollColumns) error {
	at := keys + 1
	if extra.versions {
		var version, id spanner.NullInt64
		var writer spanner.NullString
		if err := r.Column(0, &id); err != nil {
			return fmt.Errorf("watch.versions: the key is not one INT64 column: %w", err)
		}
		if err := r.Column(at, &version); err != nil {
			return fmt.Errorf("watch.versions.version: %w", err)
		}
		if err := r.Column(at+1, &writer); err != nil {
			return fmt.Errorf("watch.versions.writer: %w", err)
		}
		c.id = id.Int64
		if version.Valid {
			c.version = &version.Int64
		}
		if writer.Valid {
			c.writer = &writer.StringVal
		}
		at += 2
	}
	if extra.shard {
		var shard spanner.NullInt64
		if err := r.Column(at, &shard); err != nil {
			return fmt.Errorf("watch.shards.column: %w", err)
		}
		if shard.Valid {
			c.shard = &shard.Int64
		}
	}
	return nil
}
