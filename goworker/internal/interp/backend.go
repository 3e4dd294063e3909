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
	// Poll runs a watch's poll (a strong single-use query) and returns each row's first keys
	// columns as a key and its next column, a commit timestamp.
	Poll(ctx context.Context, stmt spanner.Statement, keys int) ([]change, error)
	// Close lets go of what the backend holds (connections).
	Close()
}

// change is a row a poll returned: its key, as text that tells keys apart, and commit timestamp.
type change struct {
	key string
	ts  time.Time
}

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

func (b *clientBackend) Poll(ctx context.Context, stmt spanner.Statement, keys int) ([]change, error) {
	it := b.conn().Client.Single().Query(ctx, stmt)
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
		var ts time.Time
		if err := r.Column(keys, &ts); err != nil {
			return rows, fmt.Errorf("decode column %d (the commit timestamp): %w", keys, err)
		}
		rows = append(rows, change{clientRowKey(r, keys), ts})
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
