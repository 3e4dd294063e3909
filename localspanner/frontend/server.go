// Package frontend holds the gRPC surface of the local Spanner server: one file per
// service, plus the interceptors that turn panics and internal errors into gRPC statuses.
package frontend

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	// The gzip codec answers requests with grpc-encoding: gzip (the Go client can compress).
	_ "google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/status"
)

// maxMessageBytes bounds one request or response message (Spanner's commit limit
// is 100 MB).
const maxMessageBytes = 256 << 20

// streamWorkers is how many goroutines serve requests; a request arriving when
// all are busy gets a goroutine of its own.
const streamWorkers = 64

// NewGRPCServer returns a gRPC server on which every method not registered by a
// service answers UNIMPLEMENTED naming the method, and on which no request can
// crash the process: a panic becomes INTERNAL with a message, and is logged.
func NewGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	base := []grpc.ServerOption{
		// Spanner accepts commits and returns values far above gRPC's 4 MiB default.
		grpc.MaxRecvMsgSize(maxMessageBytes),
		grpc.MaxSendMsgSize(maxMessageBytes),
		grpc.UnknownServiceHandler(unimplemented),
		grpc.ChainUnaryInterceptor(timingUnary, statusUnary, recoverUnary),
		grpc.ChainStreamInterceptor(timingStream, statusStream, recoverStream),
		// Requests run on reused goroutines, whose stacks have grown already,
		// instead of a new goroutine per request that grows its stack by copying.
		grpc.NumStreamWorkers(streamWorkers),
	}
	return grpc.NewServer(append(base, opts...)...)
}

func unimplemented(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	return status.Errorf(codes.Unimplemented, "method %s is not implemented by the local Spanner server", method)
}

func panicStatus(method string, r any) error {
	slog.Error("panic in request", "method", method, "panic", r, "stack", string(debug.Stack()))
	return status.Error(codes.Internal, fmt.Sprintf("internal error in %s: %v", method, r))
}

func recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, panicStatus(info.FullMethod, r)
		}
	}()
	return handler(ctx, req)
}

func recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicStatus(info.FullMethod, r)
		}
	}()
	return handler(srv, ss)
}
