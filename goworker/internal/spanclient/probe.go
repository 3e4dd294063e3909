package spanclient

import (
	"context"
	"fmt"
	"time"

	instance "cloud.google.com/go/spanner/admin/instance/apiv1"
	"cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spanload/spanload/goworker/internal/metrics"
	"github.com/spanload/spanload/goworker/internal/protocol"
)

const (
	// ProbeTimeoutMax bounds the first RPC: a run whose target does not answer fails within it.
	ProbeTimeoutMax = 10 * time.Second
	// CloudAddress is where a cloud target's RPCs go.
	CloudAddress = "spanner.googleapis.com:443"
)

// Address is where the run's RPCs go: host:port of a local server or emulator, or Cloud Spanner's.
func Address(target protocol.Target, emulatorHost *string) string {
	switch {
	case target.Kind == protocol.TargetCloud:
		return CloudAddress
	case emulatorHost != nil && *emulatorHost != "":
		return *emulatorHost
	case target.EmulatorHost != nil && *target.EmulatorHost != "":
		return *target.EmulatorHost
	}
	return "(no host)"
}

// StatusText is "UNAVAILABLE: connection refused": the gRPC status name and message of an error.
func StatusText(err error) string {
	if s, ok := status.FromError(err); ok {
		return metrics.ErrorCode(err) + ": " + s.Message()
	}
	return metrics.ErrorCode(err) + ": " + err.Error()
}

// Probe makes one admin RPC with a short deadline and no retry: does the target answer at all?
// A missing instance is an answer (it is created later). The error names the address and status.
func Probe(ctx context.Context, target protocol.Target, emulatorHost *string, timeout time.Duration) error {
	opts, err := Options(target, emulatorHost)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, min(timeout, ProbeTimeoutMax))
	defer cancel()
	client, err := instance.NewInstanceAdminClient(ctx, opts...)
	if err != nil {
		return fmt.Errorf("the %s target at %s: %w", target.Kind, Address(target, emulatorHost), err)
	}
	defer func() { _ = client.Close() }()
	name := fmt.Sprintf("projects/%s/instances/%s", target.Project, target.Instance)
	noRetry := gax.WithRetry(func() gax.Retryer { return nil })
	_, err = client.GetInstance(ctx, &instancepb.GetInstanceRequest{Name: name}, noRetry)
	if err == nil || status.Code(err) == codes.NotFound {
		return nil
	}
	return fmt.Errorf("the %s target at %s did not answer: %s", target.Kind, Address(target, emulatorHost), StatusText(err))
}
