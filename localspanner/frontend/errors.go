package frontend

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/txn"
)

// toStatus turns any error of the lower layers into the gRPC status Spanner would
// answer. It is the one place where that happens. setTrailer receives extra
// trailing metadata (the retry delay of an ABORTED transaction).
func toStatus(err error, setTrailer func(metadata.MD)) error {
	if err == nil {
		return nil
	}
	var ab *txn.AbortedError
	if errors.As(err, &ab) {
		ri := &errdetails.RetryInfo{RetryDelay: durationpb.New(ab.Delay)}
		st, derr := status.New(codes.Aborted, ab.Msg).WithDetails(ri)
		if derr != nil {
			st = status.New(codes.Aborted, ab.Msg)
		}
		if b, merr := proto.Marshal(ri); merr == nil && setTrailer != nil {
			setTrailer(metadata.Pairs("google.rpc.retryinfo-bin", string(b)))
		}
		return st.Err()
	}
	var se *spanerr.Error
	if errors.As(err, &se) {
		return status.Error(se.Code, err.Error())
	}
	var gs interface{ GRPCStatus() *status.Status }
	if errors.As(err, &gs) {
		return status.Error(gs.GRPCStatus().Code(), err.Error())
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	slog.Error("internal error", "err", err)
	return status.Error(codes.Internal, err.Error())
}

func statusUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		return nil, toStatus(err, func(md metadata.MD) { _ = grpc.SetTrailer(ctx, md) })
	}
	return resp, nil
}

func statusStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := handler(srv, ss); err != nil {
		return toStatus(err, ss.SetTrailer)
	}
	return nil
}
