// Command spanload-local-spanner serves a Spanner-compatible gRPC API for local load tests.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // served only when --pprof-addr is set
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/spanload/spanload/localspanner/frontend"
	"github.com/spanload/spanload/localspanner/storage"
)

// stopGrace is how long in-flight requests may run after SIGTERM/SIGINT.
const stopGrace = 5 * time.Second

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("spanload-local-spanner", flag.ContinueOnError)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 9010, "gRPC port to listen on (0 picks a free one)")
	dataDir := fs.String("data-dir", "", "directory for SQLite database files; empty keeps data in memory")
	showVersion := fs.Bool("version", false, "print the version and exit")
	splitRows := fs.Int64("split-rows", storage.DefaultSplitRows, "rows at which a split of a table or index divides in two (a database may set its own: ALTER DATABASE db SET OPTIONS (spanload_split_rows = N))")
	pprofAddr := fs.String("pprof-addr", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:0); empty disables it")
	stdinParent := fs.Bool("exit-when-stdin-closes", false, "stop as on SIGTERM when standard input ends: the parent holds its write end, so the server never outlives the process that started it, however that process dies")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Printf("spanload-local-spanner %s\n", version)
		return 0
	}
	if *splitRows < storage.MinSplitRows {
		fmt.Fprintf(os.Stderr, "spanload-local-spanner: --split-rows must be at least %d, got %d\n", storage.MinSplitRows, *splitRows)
		return 2
	}
	storage.DefaultSplitRows = *splitRows
	reg, err := storage.OpenRegistry(*dataDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spanload-local-spanner: cannot open data directory: %v\n", err)
		return 1
	}
	defer reg.Close()

	if *pprofAddr != "" {
		plis, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			fmt.Fprintf(os.Stderr, "spanload-local-spanner: cannot listen for pprof: %v\n", err)
			return 1
		}
		fmt.Printf("spanload-local-spanner pprof on http://%s/debug/pprof/\n", plis.Addr())
		go func() { _ = http.Serve(plis, nil) }()
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "spanload-local-spanner: cannot listen: %v\n", err)
		return 1
	}
	srv := frontend.NewGRPCServer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frontend.Start(ctx, srv, reg).Version = version

	stop := make(chan string, 2)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() { stop <- "signal=" + (<-sigs).String() }()
	if *stdinParent {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop <- "standard input closed: the parent is gone"
		}()
	}
	go func() {
		why := <-stop
		slog.Info("stopping", "why", why)
		stopped := make(chan struct{})
		go func() {
			srv.GracefulStop()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(stopGrace):
			srv.Stop()
		}
	}()

	fmt.Printf("spanload-local-spanner %s listening on %s\n", version, lis.Addr())
	if err := srv.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		fmt.Fprintf(os.Stderr, "spanload-local-spanner: %v\n", err)
		return 1
	}
	return 0
}
