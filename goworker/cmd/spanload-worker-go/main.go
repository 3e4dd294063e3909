// Command spanload-worker-go is Spanload's Go worker: it speaks the worker protocol of
// backend/spanload/model/protocol.py on stdin/stdout with the official Go Spanner client.
// Logs go to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/worker"
)

const spannerModule = "cloud.google.com/go/spanner"

func clientName() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == spannerModule {
				return spannerModule + " " + dep.Version
			}
		}
	}
	return spannerModule
}

func main() {
	index := flag.Int("worker", 0, "this worker's index")
	verbose := flag.Bool("verbose", false, "log debug messages (every failed operation)")
	hdrSelftest := flag.String("hdr-selftest", "", "hidden: print an encoded histogram of these comma-separated us values, or decode one given as @BASE64")
	cpuProfile := flag.String("cpuprofile", "", "write a pprof CPU profile of the whole run to this file")
	flag.Parse()
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	if *hdrSelftest != "" {
		out, err := metrics.Selftest(*hdrSelftest)
		if err != nil {
			fmt.Fprintln(os.Stderr, "spanload-worker-go:", err)
			os.Exit(2)
		}
		fmt.Println(out)
		return
	}
	if *index < 0 {
		fmt.Fprintln(os.Stderr, "spanload-worker-go: --worker must be 0 or more")
		os.Exit(2)
	}
	_ = os.Setenv("SPANNER_DISABLE_BUILTIN_METRICS", "true")
	stop, err := profile(*cpuProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spanload-worker-go:", err)
		os.Exit(2)
	}
	code := worker.Serve(context.Background(), *index, os.Stdin, protocol.NewChannel(os.Stdout), clientName())
	stop()
	os.Exit(code)
}

// profile starts a CPU profile into path ("" : none); the returned func ends it.
func profile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, fmt.Errorf("cannot start the CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}
