// Command spanload-null-spanner serves a Spanner API that does nothing (package nullspanner), for
// measuring a client's own cost: bench/worker_runtime.py builds and starts it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"google.golang.org/grpc"

	"github.com/spanload/spanload/localspanner/nullspanner"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("spanload-null-spanner", flag.ContinueOnError)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 0, "gRPC port to listen on (0 picks a free one)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "spanload-null-spanner: cannot listen: %v\n", err)
		return 1
	}
	srv := grpc.NewServer(grpc.NumStreamWorkers(uint32(4 * runtime.GOMAXPROCS(0))))
	nullspanner.Register(srv)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sigs
		srv.Stop()
	}()
	fmt.Printf("spanload-null-spanner listening on %s\n", lis.Addr())
	if err := srv.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		fmt.Fprintf(os.Stderr, "spanload-null-spanner: %v\n", err)
		return 1
	}
	return 0
}
