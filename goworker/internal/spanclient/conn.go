// Package spanclient builds the official Go Spanner client for a run's target, with a gRPC
// interceptor that reads each RPC's server-timing header, and the session gauges.
package spanclient

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/option"
	"google.golang.org/grpc"

	"github.com/spanload/spanload/goworker/internal/admin"
	"github.com/spanload/spanload/goworker/internal/protocol"
)

// Conn is a client for the run's database, the per-operation deadline and, without multiplexed
// sessions, the emulated fixed-size pool.
type Conn struct {
	Client *spanner.Client
	Paths  admin.Paths
	Opts   []option.ClientOption
	mu     sync.Mutex
	pool   *Pool
	// timeout is the per-operation deadline (0: none).
	timeout time.Duration
}

// Options are the client options of a target: the emulator host goes through
// SPANNER_EMULATOR_HOST (plain text, no credentials), the cloud uses Application Default
// Credentials. Every data RPC passes the tag and server-timing interceptors.
func Options(target protocol.Target, emulatorHost *string) ([]option.ClientOption, error) {
	if target.Kind != protocol.TargetCloud {
		host := emulatorHost
		if host == nil || *host == "" {
			host = target.EmulatorHost
		}
		if host == nil || *host == "" {
			return nil, fmt.Errorf("target.emulator_host is required for a %s target", target.Kind)
		}
		if err := os.Setenv("SPANNER_EMULATOR_HOST", *host); err != nil {
			return nil, fmt.Errorf("set SPANNER_EMULATOR_HOST: %w", err)
		}
	}
	return []option.ClientOption{
		option.WithGRPCDialOption(grpc.WithChainUnaryInterceptor(unaryTags, unaryTiming)),
		option.WithGRPCDialOption(grpc.WithChainStreamInterceptor(streamTags, streamTiming)),
	}, nil
}

// PathsOf names the run's database.
func PathsOf(target protocol.Target) admin.Paths {
	return admin.Paths{Project: target.Project, Instance: target.Instance, Database: target.Database,
		Cloud: target.Kind == protocol.TargetCloud}
}

// Connect opens the client. The database must exist (admin.Ensure).
func Connect(ctx context.Context, target protocol.Target, cfg protocol.ClientConfig, emulatorHost *string) (*Conn, error) {
	opts, err := Options(target, emulatorHost)
	if err != nil {
		return nil, err
	}
	paths := PathsOf(target)
	client, err := spanner.NewClientWithConfig(ctx, paths.DatabasePath(), spanner.ClientConfig{
		DisableNativeMetrics: true,
		Logger:               log.New(os.Stderr, "spanner: ", log.LstdFlags),
	}, opts...)
	if err != nil {
		return nil, fmt.Errorf("could not create the Spanner client: %w", err)
	}
	c := &Conn{Client: client, Paths: paths, Opts: opts}
	c.Apply(cfg)
	return c, nil
}

// Apply changes the client knobs live: the pool (multiplexed_sessions, session_pool_size) and
// the per-operation deadline.
func (c *Conn) Apply(cfg protocol.ClientConfig) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case cfg.MultiplexedSessions:
		c.pool = nil
	case c.pool == nil:
		c.pool = NewPool(cfg.SessionPoolSize)
	default:
		c.pool.Resize(cfg.SessionPoolSize)
	}
	c.timeout = OperationTimeout(cfg)
}

// DefaultTimeout is the per-operation deadline of a config without client.timeout_ms (the
// config's own default), so that no operation hangs in the client's retries forever.
const DefaultTimeout = 5 * time.Second

// OperationTimeout is the deadline of one operation: client.timeout_ms, else DefaultTimeout.
func OperationTimeout(cfg protocol.ClientConfig) time.Duration {
	if cfg.TimeoutMs != nil && *cfg.TimeoutMs > 0 {
		return time.Duration(*cfg.TimeoutMs * float64(time.Millisecond))
	}
	return DefaultTimeout
}

// Begin prepares one operation: its context (deadline, server timing) and, with a pool, a
// session. done must be called when the operation ends.
func (c *Conn) Begin(parent context.Context) (ctx context.Context, t *Timing, done func(), err error) {
	c.mu.Lock()
	pool, timeout := c.pool, c.timeout
	c.mu.Unlock()
	ctx, t = WithTiming(parent)
	cancel := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	if pool != nil {
		asked := time.Now()
		err := pool.Get(ctx)
		t.noteSessionWait(time.Since(asked))
		if err != nil {
			cancel()
			return nil, nil, nil, err
		}
		return ctx, t, func() { pool.Put(); cancel() }, nil
	}
	return ctx, t, cancel, nil
}

// SessionGauges are (in use, idle, waiting) of the emulated pool; false with multiplexed
// sessions, where one session serves every operation and the three numbers say nothing.
func (c *Conn) SessionGauges() (inUse, idle, waiting int, ok bool) {
	c.mu.Lock()
	pool := c.pool
	c.mu.Unlock()
	if pool == nil {
		return 0, 0, 0, false
	}
	inUse, idle, waiting = pool.Gauges()
	return inUse, idle, waiting, true
}

func (c *Conn) Close() { c.Client.Close() }
