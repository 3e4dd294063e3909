"""OpenTelemetry traces of the official Spanner client, exported over OTLP/HTTP.

When the standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set in a worker's environment, the worker installs
a global tracer provider before it makes its client: google-cloud-spanner traces through the global
provider when opentelemetry-api and -sdk are installed (``_opentelemetry_tracing.get_tracer``), so
every span of it (``CloudSpanner.Snapshot.execute_sql``, ``CloudSpanner.Transaction.commit``...) goes
to the collector. The exporter reads the endpoint and its other ``OTEL_EXPORTER_OTLP_*`` settings
itself and posts to ``<endpoint>/v1/traces``.

Every span gets the run id, the operation running on its thread (:mod:`spanload.spanner.request_tags`)
and the worker's index as attributes (names in :mod:`spanload.model.tags`), so a trace backend finds
a run's, an operation's or a worker's spans. Spans are sent in batches; the provider is shut down
(flushing the rest) when the process exits.
"""

from __future__ import annotations

import atexit
import logging
import os
from typing import Any

from spanload.model import tags
from spanload.spanner import request_tags

logger = logging.getLogger(__name__)

ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
SERVICE_NAME = "spanload-worker"


def enabled() -> bool:
    return bool(os.environ.get(ENDPOINT_ENV))


def start(run_id: str, worker: int) -> Any | None:
    """Install the exporting tracer provider if ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set; returns it."""
    if not enabled():
        return None
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import Span, SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    class RunAttributes(SpanProcessor):
        def on_start(self, span: Span, parent_context: Any = None) -> None:
            span.set_attributes(
                {
                    tags.SPAN_RUN_ID: run_id,
                    tags.SPAN_OPERATION: request_tags.current_operation(),
                    tags.SPAN_WORKER: worker,
                }
            )

    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    provider.add_span_processor(RunAttributes())
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    atexit.register(provider.shutdown)
    logger.info("tracing the Spanner client to %s", os.environ[ENDPOINT_ENV])
    return provider
