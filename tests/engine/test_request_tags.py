"""Issue 27: every Spanner request a worker makes carries the run's tags, in both runtimes.

A short run of the report workload (updater, watcher, reader) goes through a proxy that decodes each
request's RequestOptions with the official client's message classes. Expected, from
google.spanner.v1.RequestOptions: queries and reads carry ``request_tag``; the requests of a
read-write transaction and its Commit carry ``transaction_tag``; each names the run and the operation
(``model/tags.py``); nothing the workers send is untagged."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from spanload.model import tags
from spanload.model.config import WorkerRuntime
from tests.engine.conftest import LocalTarget
from tests.engine.tag_recording_proxy import TagRecordingProxy
from tests.engine.test_preload import _run

pytestmark = pytest.mark.timeout(120)

QUERIES = {"ExecuteSql", "ExecuteStreamingSql", "Read", "StreamingRead", "ExecuteBatchDml"}


def test_every_request_of_a_run_carries_its_tags(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    run_id = uuid.uuid4().hex
    with TagRecordingProxy(local_spanner.address) as proxy:
        config = LocalTarget(proxy.address).config(
            {
                "duration_s": 2,
                "report_interval_s": 0.5,
                "updater": {"transactions_per_second": 10, "mutations_per_transaction": 2},
                "watcher": {"poll_interval_ms": 200},
                "reader": {"enabled": True, "reads_per_second": 10},
            },
            runtime=runtime,
        )
        sink = asyncio.run(_run(config, run_id))
        seen = list(proxy.seen)
    assert sink.summary is not None and sink.summary.totals.transactions > 0
    tag = {op: tags.operation_tag(run_id, op) for op in (tags.UPDATER, tags.WATCHER, tags.READER)}
    untagged = [(rpc, req) for rpc, rt, tt, req in seen if rpc in QUERIES and not rt]
    assert untagged == [], f"queries and reads without a request tag: {untagged[:2]}"
    commits = [tt for rpc, _, tt, _ in seen if rpc == "Commit"]
    assert commits and set(commits) == {tag[tags.UPDATER]}, f"Commit transaction tags: {set(commits)}"
    request_tags = {rt for rpc, rt, _, _ in seen if rpc in QUERIES}
    assert {tag[tags.WATCHER], tag[tags.READER]} <= request_tags, request_tags
    assert all(tags.is_runs(t, tags.run_tag(run_id)) for t in request_tags), request_tags
