"""Issue 27: every Spanner request a worker makes carries the run's tags, and with the standard
OTEL_EXPORTER_OTLP_ENDPOINT set the official clients' spans reach an OTLP/HTTP receiver naming the run,
the operation and the worker; in both runtimes.

A short run of the report workload (its definition's write, point_read and watch) goes through a proxy that decodes each
request's RequestOptions with the official client's message classes. Expected, from
google.spanner.v1.RequestOptions: queries and reads carry ``request_tag``; the requests of a
read-write transaction and its Commit carry ``transaction_tag``; each names the run and the operation
(``model/tags.py``); nothing the workers send is untagged. The receiver (otlp_receiver.py) decodes
the protobuf ExportTraceServiceRequest with opentelemetry-proto's classes. One run per runtime serves
both checks."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from spanload.model import tags
from spanload.model.config import WorkerRuntime
from tests.engine.conftest import LocalTarget
from tests.engine.otlp_receiver import OtlpReceiver
from tests.engine.tag_recording_proxy import TagRecordingProxy
from tests.engine.test_preload import _run

pytestmark = pytest.mark.timeout(120)

QUERIES = {"ExecuteSql", "ExecuteStreamingSql", "Read", "StreamingRead", "ExecuteBatchDml"}


def test_every_request_of_a_run_carries_its_tags_and_its_spans_reach_otlp(
    local_spanner: LocalTarget, runtime: WorkerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = uuid.uuid4().hex
    with TagRecordingProxy(local_spanner.address) as proxy, OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        config = LocalTarget(proxy.address).config(
            {
                "duration_s": 2,
                "processes": 2,
                "report_interval_s": 0.5,
                "updater": {"transactions_per_second": 10, "mutations_per_transaction": 2},
                "watcher": {"poll_interval_ms": 200},
                "reader": {"enabled": True, "reads_per_second": 10},
            },
            runtime=runtime,
        )
        sink = asyncio.run(_run(config, run_id))
        seen, spans = list(proxy.seen), list(receiver.spans)
        assert receiver.bad == []
    assert sink.summary is not None and sink.summary.totals.transactions > 0
    # the report config runs workloads/change_watcher.yaml: its write and point_read, and the watch
    write, read = "write", "point_read"
    tag = {op: tags.operation_tag(run_id, op) for op in (write, tags.WATCHER, read)}
    untagged = [(rpc, req) for rpc, rt, tt, req in seen if rpc in QUERIES and not rt]
    assert untagged == [], f"queries and reads without a request tag: {untagged[:2]}"
    commits = [tt for rpc, _, tt, _ in seen if rpc == "Commit"]
    assert commits and set(commits) == {tag[write]}, f"Commit transaction tags: {set(commits)}"
    request_tags = {rt for rpc, rt, _, _ in seen if rpc in QUERIES}
    assert {tag[tags.WATCHER], tag[read]} <= request_tags, request_tags
    assert all(tags.is_runs(t, tags.run_tag(run_id)) for t in request_tags), request_tags

    # OpenTelemetry: the official client's spans, with the run, the operation and the worker
    assert spans, "no span reached the receiver"
    assert {a.get(tags.SPAN_RUN_ID) for _, a in spans} == {run_id}
    assert {a.get(tags.SPAN_WORKER) for _, a in spans} == {0, 1}
    operations = {a.get(tags.SPAN_OPERATION) for _, a in spans}
    assert {write, tags.WATCHER, read} <= operations, (operations, sorted({n for n, _ in spans}))
    committed = {a.get(tags.SPAN_OPERATION) for name, a in spans if "ommit" in name}
    assert write in committed, sorted({n for n, _ in spans})


def test_a_definitions_operations_tag_their_requests(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    """The interpreters: each operation of workloads/shop.yaml tags its statements with its own name, and
    the read-write one its transaction; the watcher its polls."""
    from tests.engine.test_definition_e2e import WORKLOADS, parse_definition, prepared

    definition = parse_definition((WORKLOADS / "shop.yaml").read_text(), "shop.yaml")
    run_id = uuid.uuid4().hex
    with TagRecordingProxy(local_spanner.address) as proxy:
        fields = {"duration_s": 2, "report_interval_s": 0.5, "runtime": runtime.value}
        knobs = {"order_rate": 10, "customers": 1000}
        config = prepared(LocalTarget(proxy.address), definition, {**fields, "knobs": knobs})
        asyncio.run(_run(config, run_id))
        seen = list(proxy.seen)
    tag = {op: tags.operation_tag(run_id, op) for op in ("place_order", "recent_orders", tags.WATCHER)}
    request_tags = {rt for rpc, rt, _, _ in seen if rpc in QUERIES}
    assert set(tag.values()) <= request_tags, request_tags
    assert all(tags.is_runs(t, tags.run_tag(run_id)) for t in request_tags), request_tags
    commits = {tt for rpc, _, tt, _ in seen if rpc == "Commit"}
    assert commits == {tag["place_order"], tags.operation_tag(run_id, tags.PRELOAD)}, commits
