"""Issue 27: with the standard OTEL_EXPORTER_OTLP_ENDPOINT set, each runtime's official Spanner client
traces over OTLP/HTTP, and its spans carry the run id, the operation and the worker.

A short run of the report workload against the local Spanner, with the endpoint set to a receiver
in this test that decodes the protobuf ExportTraceServiceRequest (opentelemetry-proto's classes)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from spanload.model import tags
from spanload.model.config import WorkerRuntime
from tests.engine.conftest import LocalTarget
from tests.engine.otlp_receiver import OtlpReceiver
from tests.engine.test_preload import _run

pytestmark = pytest.mark.timeout(120)


def test_a_runs_spans_reach_an_otlp_receiver_with_its_attributes(
    local_spanner: LocalTarget, runtime: WorkerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = uuid.uuid4().hex
    with OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        config = local_spanner.config(
            {
                "duration_s": 2,
                "processes": 2,
                "report_interval_s": 0.5,
                "updater": {"transactions_per_second": 10, "mutations_per_transaction": 2},
                "watcher": {"poll_interval_ms": 200},
            },
            runtime=runtime,
        )
        sink = asyncio.run(_run(config, run_id))
        spans = list(receiver.spans)
        assert receiver.bad == []
    assert sink.summary is not None and sink.summary.totals.transactions > 0
    assert spans, "no span reached the receiver"
    assert {a.get(tags.SPAN_RUN_ID) for _, a in spans} == {run_id}
    assert {a.get(tags.SPAN_WORKER) for _, a in spans} == {0, 1}
    operations = {a.get(tags.SPAN_OPERATION) for _, a in spans}
    assert {tags.UPDATER, tags.WATCHER} <= operations, (operations, sorted({n for n, _ in spans})[:20])
    committed = {a.get(tags.SPAN_OPERATION) for name, a in spans if "ommit" in name}
    assert tags.UPDATER in committed, sorted({n for n, _ in spans})
