// Package tracing turns on the official Go Spanner client's OpenTelemetry tracing when the
// standard OTEL_EXPORTER_OTLP_ENDPOINT is set, exporting over OTLP/HTTP, as
// backend/spanload/workers/tracing.py does for the Python worker.
//
// cloud.google.com/go/spanner (v1.96) starts its spans from the global tracer provider
// (otel.Tracer, trace.go), so installing one is the switch. The otlptracehttp exporter reads
// the endpoint and its other OTEL_EXPORTER_OTLP_* settings itself. Every span gets the run id,
// the operation of the context it starts in (spanclient.Tagged) and the worker's index, under the
// attribute names of backend/spanload/model/tags.py (generated into protocol).
package tracing

import (
	"context"
	"log/slog"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/spanload/spanload/goworker/internal/protocol"
	"github.com/spanload/spanload/goworker/internal/spanclient"
)

// EndpointEnv is the standard variable that turns tracing on.
const EndpointEnv = "OTEL_EXPORTER_OTLP_ENDPOINT"

const serviceName = "spanload-worker"

// runAttributes names the run, the operation and the worker on every span.
type runAttributes struct {
	runID  string
	worker int
}

func (r runAttributes) OnStart(parent context.Context, s sdktrace.ReadWriteSpan) {
	s.SetAttributes(
		attribute.String(protocol.SpanRunID, r.runID),
		attribute.String(protocol.SpanOperation, spanclient.OperationOf(parent)),
		attribute.Int(protocol.SpanWorker, r.worker),
	)
}
func (runAttributes) OnEnd(sdktrace.ReadOnlySpan)      {}
func (runAttributes) Shutdown(context.Context) error   { return nil }
func (runAttributes) ForceFlush(context.Context) error { return nil }

// Start installs the exporting tracer provider when OTEL_EXPORTER_OTLP_ENDPOINT is set. The
// returned function flushes and stops it (a no-op when tracing is off).
func Start(ctx context.Context, runID string, worker int) (func(context.Context), error) {
	endpoint := os.Getenv(EndpointEnv)
	if endpoint == "" {
		return func(context.Context) {}, nil
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(serviceName))),
		sdktrace.WithSpanProcessor(runAttributes{runID: runID, worker: worker}),
		sdktrace.WithBatcher(exporter),
	)
	otel.SetTracerProvider(tp)
	slog.Info("tracing the Spanner client", "endpoint", endpoint)
	return func(ctx context.Context) {
		if err := tp.Shutdown(ctx); err != nil {
			slog.Warn("could not flush the traces", "err", err)
		}
	}, nil
}
