package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
	"github.com/spanload/spanload/goworker/internal/tracing"
)

// maxLine bounds one control line (a patch carries the whole config).
const maxLine = 16 << 20

// Serve speaks the protocol on in/out until stop or until in closes; the exit code.
func Serve(ctx context.Context, index int, in io.Reader, channel *protocol.Channel, client string) int {
	host, _ := os.Hostname()
	if err := channel.Send(&protocol.Hello{Worker: index, Pid: os.Getpid(), Language: "go", Client: client, Host: host}); err != nil {
		slog.Error("could not say hello", "err", err)
		return 1
	}
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 0, 64<<10), maxLine)
	if !lines.Scan() {
		return 0
	}
	first := lines.Bytes()
	msg, err := protocol.Decode(first)
	start, ok := msg.(*protocol.Start)
	if err != nil || !ok {
		text := string(first[:min(len(first), 80)])
		_ = channel.Send(&protocol.Error{Worker: index, Message: fmt.Sprintf("expected a start message, got %q", text), Fatal: true})
		return 2
	}
	stopTracing, err := tracing.Start(ctx, start.RunID, index)
	if err != nil {
		slog.Warn("tracing is off: the OTLP exporter could not start", "err", err)
	} else {
		defer stopTracing(context.WithoutCancel(ctx))
	}
	w, err := New(start, channel)
	if err == nil {
		err = w.Setup(ctx)
	}
	if err != nil {
		slog.Error("the worker could not start", "worker", index, "err", err)
		message := err.Error()
		var whole wholeStory
		if !errors.As(err, &whole) {
			address := spanclient.Address(start.Config.Target, start.EmulatorHost)
			message = fmt.Sprintf("could not start against %s: %s", address, spanclient.StatusText(err))
		}
		_ = channel.Send(&protocol.Error{Worker: index, Message: message, Fatal: true})
		return 1
	}
	defer w.Close()
	if err := channel.Send(&protocol.Ready{Worker: index, TableRows: w.TableRows}); err != nil {
		return 1
	}
	for lines.Scan() {
		msg, err := protocol.Decode(lines.Bytes())
		if err != nil {
			if errors.Is(err, protocol.ErrUnknownType) {
				slog.Warn("ignoring a message", "err", err)
			} else {
				slog.Error("bad control message", "err", err)
			}
			continue
		}
		switch m := msg.(type) {
		case *protocol.Preload:
			w.Preload(m)
		case *protocol.Begin:
			w.Run(m.StartedAt)
		case *protocol.Patch:
			w.Apply(m.Config)
		case *protocol.Pause:
			w.SetPaused(true)
		case *protocol.Resume:
			w.SetPaused(false)
		case *protocol.StopWriters:
			if err := w.StopWriters(); err != nil {
				slog.Error("could not send the writers' ledger", "err", err)
			}
		case *protocol.Stop:
			if err := w.Stop(); err != nil {
				slog.Error("the stop failed", "err", err)
				_ = channel.Send(&protocol.Error{Worker: index, Message: fmt.Sprintf("stop failed: %v", err), Fatal: true})
				return 1
			}
			return 0
		default:
			slog.Warn("the worker ignores a message", "worker", index, "type", fmt.Sprintf("%T", m))
		}
	}
	w.Abandon()
	return 0
}
