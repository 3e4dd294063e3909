// Command spanload-pg-bench is bench/pg_interface.py's Go runtime: the same point read and write
// on the same three interfaces, with the Go worker's clients (cloud.google.com/go/spanner on the
// GoogleSQL and PostgreSQL databases, pgx through PGAdapter with prepared statements), one
// operation at a time. It prints one JSON object: per interface and operation, p50 and p99 in ms
// and this process's CPU per operation in ms (getrusage).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"syscall"
	"time"

	"cloud.google.com/go/spanner"
	"github.com/jackc/pgx/v5"
)

const rows = 1000 // bench/pg_interface.py ROWS

type op func(ctx context.Context, i int) error

func main() {
	emulator := flag.String("emulator", "", "the local Spanner's host:port")
	project := flag.String("project", "", "project")
	instance := flag.String("instance", "", "instance")
	gsqlDB := flag.String("gsql-db", "", "the GoogleSQL database")
	pgDB := flag.String("pg-db", "", "the PostgreSQL-dialect database")
	pgadapter := flag.String("pgadapter", "", "PGAdapter's host:port")
	ops := flag.Int("ops", 2000, "measured reads, and as many writes, per interface")
	warm := flag.Int("warm", 500, "unmeasured operations first, per interface")
	flag.Parse()
	if *emulator == "" || *gsqlDB == "" || *pgDB == "" || *pgadapter == "" {
		fmt.Fprintln(os.Stderr, "spanload-pg-bench: -emulator, -gsql-db, -pg-db and -pgadapter are required")
		os.Exit(2)
	}
	if err := os.Setenv("SPANNER_EMULATOR_HOST", *emulator); err != nil {
		fail(err)
	}
	ctx := context.Background()
	path := func(db string) string {
		return fmt.Sprintf("projects/%s/instances/%s/databases/%s", *project, *instance, db)
	}
	results := map[string]any{} // interface -> op -> figures, or {"error": why it could not run}
	for _, iface := range []struct {
		name string
		open func() (read, write op, close func(), err error)
	}{
		{"googlesql", func() (op, op, func(), error) { return official(ctx, path(*gsqlDB), false) }},
		{"postgresql", func() (op, op, func(), error) { return official(ctx, path(*pgDB), true) }},
		{"pgadapter", func() (op, op, func(), error) { return viaPgx(ctx, *pgadapter, *pgDB) }},
	} {
		figures, err := run(ctx, iface.open, *ops, *warm)
		if err != nil {
			results[iface.name] = map[string]string{"error": err.Error()}
			continue
		}
		results[iface.name] = figures
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fail(err)
	}
}

// run warms one interface up, then measures its reads and writes; the first error ends it.
func run(ctx context.Context, open func() (op, op, func(), error), ops, warm int) (map[string]map[string]float64, error) {
	read, write, closeIt, err := open()
	if err != nil {
		return nil, err
	}
	defer closeIt()
	for i := range warm {
		if err := read(ctx, i); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if err := write(ctx, i); err != nil {
			return nil, fmt.Errorf("write: %w", err)
		}
	}
	r, err := measure(ctx, read, ops)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	w, err := measure(ctx, write, ops)
	if err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	return map[string]map[string]float64{"read": r, "write": w}, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "spanload-pg-bench:", err)
	os.Exit(1)
}

func cpuMs() float64 {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e6
}

func measure(ctx context.Context, o op, n int) (map[string]float64, error) {
	latencies := make([]float64, 0, n)
	cpu0 := cpuMs()
	for i := range n {
		began := time.Now()
		if err := o(ctx, i); err != nil {
			return nil, err
		}
		latencies = append(latencies, float64(time.Since(began).Nanoseconds())/1e6)
	}
	cpu := (cpuMs() - cpu0) / float64(n)
	sort.Float64s(latencies)
	at := func(p float64) float64 {
		return latencies[min(len(latencies)-1, int(p/100*float64(len(latencies)-1)+0.5))]
	}
	return map[string]float64{"p50_ms": at(50), "p99_ms": at(99), "client_cpu_ms": cpu}, nil
}

// official is the point read and write with the Go client (pg: $1 parameters named p1, p2).
func official(ctx context.Context, db string, pg bool) (op, op, func(), error) {
	client, err := spanner.NewClientWithConfig(ctx, db, spanner.ClientConfig{DisableNativeMetrics: true})
	if err != nil {
		return nil, nil, nil, err
	}
	readSQL, writeSQL, k, v, wk := "SELECT v FROM kv WHERE k = @k", "UPDATE kv SET v = @v WHERE k = @k", "k", "v", "k"
	if pg {
		readSQL, writeSQL, k, v, wk = "SELECT v FROM kv WHERE k = $1", "UPDATE kv SET v = $1 WHERE k = $2", "p1", "p1", "p2"
	}
	read := func(ctx context.Context, i int) error {
		return client.Single().Query(ctx, spanner.Statement{SQL: readSQL, Params: map[string]any{k: int64(i % rows)}}).
			Do(func(*spanner.Row) error { return nil })
	}
	write := func(ctx context.Context, i int) error {
		_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			_, err := tx.Update(ctx, spanner.Statement{SQL: writeSQL,
				Params: map[string]any{v: fmt.Sprintf("v%d", i), wk: int64(i % rows)}})
			return err
		})
		return err
	}
	return read, write, client.Close, nil
}

// viaPgx is the point read and write with pgx through PGAdapter: prepared statements on one
// connection, as the Go worker's pgadapter interface runs them.
func viaPgx(ctx context.Context, address, db string) (op, op, func(), error) {
	cfg, err := pgx.ParseConfig("sslmode=disable")
	if err != nil {
		return nil, nil, nil, err
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("pgadapter %q is not host:port: %w", address, err)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("pgadapter %q: port %q is not a number", address, port)
	}
	cfg.Host, cfg.Port, cfg.Database = host, uint16(n), db
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	read := func(ctx context.Context, i int) error {
		var v string
		return conn.QueryRow(ctx, "SELECT v FROM kv WHERE k = $1", int64(i%rows)).Scan(&v)
	}
	write := func(ctx context.Context, i int) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "UPDATE kv SET v = $1 WHERE k = $2", fmt.Sprintf("v%d", i), int64(i%rows))
			return err
		})
	}
	return read, write, func() { _ = conn.Close(ctx) }, nil
}
