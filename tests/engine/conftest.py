"""Fixtures of the load engine's tests: a local Spanner for the end-to-end tests.

The end-to-end tests need the local server to serve what the load engine uses: instance and
database admin, DDL with a stored generated FARM_FINGERPRINT column, a NULL_FILTERED index and a
commit-timestamp column, single-use ``batch()`` commits and strong snapshot queries with
FORCE_INDEX and ``IN UNNEST``. :func:`local_spanner` probes exactly that with the real client and
fails with the failing step and the server's own message if something is missing.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import pytest

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.samples import Reconciliation, Sample, Summary
from spanload.model.settings import Settings
from spanload.spanner import client as spanner_client
from spanload.spanner.local_server import LocalSpannerError, start_local_spanner
from tests.ray_cluster import RayCluster

RAY_TESTS = "tests/engine/test_ray_placement.py"


@pytest.fixture(params=[WorkerRuntime.PYTHON, WorkerRuntime.GO], ids=lambda r: str(r.value))
def runtime(request: pytest.FixtureRequest) -> WorkerRuntime:
    """Each end-to-end test that takes it runs once per worker runtime. `make install` builds the Go
    worker; a missing binary fails the go cases (the run is refused at start), it does not skip them."""
    value: WorkerRuntime = request.param
    return value


@dataclass(frozen=True)
class LocalTarget:
    address: str

    def config(
        self,
        body: dict[str, object] | None = None,
        database: str | None = None,
        runtime: WorkerRuntime = WorkerRuntime.PYTHON,
    ) -> RunConfig:
        """A run config against this server, on a fresh database unless one is named."""
        target = {"kind": "local", "emulator_host": self.address, "database": database or _fresh_name()}
        return RunConfig.model_validate({**(body or {}), "target": target, "runtime": runtime.value})


def set_split_rows(config: RunConfig, rows: int) -> None:
    """The local server's split threshold for the run's database (created beforehand), so that a
    table divides after ``rows`` rows within a test's few seconds."""
    client = spanner_client.make_client(config.target, None)
    try:
        database = client.instance(config.target.instance).database(config.target.database)
        statement = f"ALTER DATABASE `{config.target.database}` SET OPTIONS (spanload_split_rows = {rows})"
        database.update_ddl([statement]).result(60)
    finally:
        client.close()


def assert_reconciled_exactly(summary: Summary | None) -> Reconciliation:
    """The run's reconciliation is exact: every final version received once, nothing unexpected,
    and the counters agree with it. Returns it for further checks."""
    assert summary is not None and summary.reconciliation is not None
    r = summary.reconciliation
    assert r.ok, r.detail
    assert r.keys_written > 0 and r.final_versions_missing == 0 and r.duplicates == 0 and r.unexpected == 0
    assert r.final_versions_received == r.keys_written
    assert r.versions_received + r.superseded_unseen == r.versions_written
    assert summary.totals.mutations == r.versions_written
    assert summary.totals.received_changes == r.versions_received
    return r


class HasSamples(Protocol):
    samples: list[Sample]


async def run_with_patch(
    sink: HasSamples, config: RunConfig, run_id: str, patch: dict[str, Any], before: int, after: int
) -> None:
    """Run ``config`` under a real supervisor reporting to ``sink``: ``before`` samples, then
    ``patch`` (live), then ``after`` more samples, then a graceful stop."""
    from spanload.engine.supervisor import Supervisor
    from spanload.model.config import ConfigPatch

    supervisor = Supervisor(Settings(), sink)  # type: ignore[arg-type]
    await supervisor.start(run_id, config)
    while len(sink.samples) < before:
        await asyncio.sleep(0.05)
    await supervisor.patch(run_id, ConfigPatch.model_validate(patch), "test")
    seen = len(sink.samples)
    while len(sink.samples) < seen + after:
        await asyncio.sleep(0.05)
    await supervisor.stop(run_id)


def _fresh_name() -> str:
    return f"e2e-{uuid.uuid4().hex[:10]}"


def probe(address: str) -> str | None:
    """None if the server supports what the engine needs, else the step that failed and why."""
    from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, param_types

    from spanload.engine.schema_setup import create_definition_schema
    from spanload.model.builtin_convert import as_definition
    from spanload.spanner import client as spanner_client
    from spanload.workers.interp.watch import poll_statements

    config = as_definition(LocalTarget(address).config())  # workloads/change_watcher.yaml
    definition = config.definition
    assert definition is not None and definition.watch is not None
    step = "connect"
    try:
        step = (
            "create the instance, database and change_watcher.yaml's schema "
            "(generated FARM_FINGERPRINT column, NULL_FILTERED index)"
        )
        create_definition_schema(config, address)
        conn = spanner_client.connect(config.target, config.client, address)
        step = "commit a single-use batch() with a commit timestamp"
        columns = ("SingerId", "FirstName", "LastName", "SingerInfo", "Version", "WriterId", "LastUpdated")
        with conn.database.batch() as batch:
            batch.insert_or_update("Singers", columns, [(1, "a", "b", b"", 1, "probe", COMMIT_TIMESTAMP)])
        step = "run the watch's poll query (FORCE_INDEX, IN, ORDER BY, LIMIT)"
        index = definition.watch.index
        first, _ = poll_statements(definition.watch, ["SingerId"], False, index, list(range(-18, 19)))
        with conn.database.snapshot() as snapshot:
            rows = list(
                snapshot.execute_sql(
                    first,
                    params={"ts": batch.committed.replace(year=2000), "limit": 10},
                    param_types={"ts": param_types.TIMESTAMP, "limit": param_types.INT64},
                )
            )
        if len(rows) != 1 or rows[0][1] != batch.committed:
            return f"the poll query returned {rows!r}, not the row just committed at {batch.committed}"
        conn.close()
    except Exception as err:  # the reason is the point: it is the failure message
        return f"the local Spanner cannot {step}: {type(err).__name__}: {err}"
    return None


@pytest.fixture(scope="session")
def local_spanner() -> Iterator[LocalTarget]:
    """A local Spanner (in memory) that passed :func:`probe`; fails the test otherwise."""
    settings = Settings()
    try:
        server = start_local_spanner("127.0.0.1", 0, None, settings.local_spanner_binary)
    except LocalSpannerError as err:
        pytest.fail(f"no local Spanner ({err}); `make install` builds it")
    try:
        reason = probe(server.address)
        if reason is not None:
            pytest.fail(reason)
        yield LocalTarget(server.address)
    finally:
        server.stop()


# -- a two-node Ray cluster for test_ray_placement.py, started as soon as such a test is collected --

_ray_cluster: RayCluster | None = None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run serially, the cluster starts at collection, while other tests run. Under pytest-xdist every
    worker collects every test but one worker runs this file (tests/conftest.py), so
    the cluster starts when that worker first asks for it."""
    global _ray_cluster
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        return
    if _ray_cluster is None and any(item.nodeid.startswith(RAY_TESTS) for item in items):
        _ray_cluster = RayCluster().start()  # about a minute here: it starts while other tests run


def pytest_sessionfinish() -> None:
    if _ray_cluster is not None:
        _ray_cluster.stop()


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[RayCluster]:
    """The running two-node cluster (started at collection, or now); fails the test if it did not start."""
    global _ray_cluster
    if _ray_cluster is None:
        _ray_cluster = RayCluster().start()
    try:
        _ray_cluster.wait_ready()
    except RuntimeError as err:
        pytest.fail(f"the two-node Ray cluster did not start: {err}")
    yield _ray_cluster
    from spanload.engine.transports.ray_transport import DRIVER

    DRIVER.shutdown()  # before the cluster goes, or the driver waits for it
    _ray_cluster.stop()
