"""Fixtures for the local Spanner conformance suite.

One server per test session (the binary is never built here: `make -C /work/main
.venv/bin/spanload-local-spanner` does that), one instance per session, and one database per
test module and session mode. The official google-cloud-spanner client reaches the server through
SPANNER_EMULATOR_HOST, exactly as Spanload's workers do.

Session modes: google-cloud-spanner 3.71.0 reads GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS and
..._FOR_RW on every session checkout (DatabaseSessionsManager._use_multiplexed -> os.getenv), so the
`session_mode` fixture keeps them set for the whole life of the database that uses the mode.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud.spanner_v1 import Client
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from .rpc_recorder import RpcRecorder, instrument
from .server_process import ServerProcess, ServerStartError, start_server

if TYPE_CHECKING:
    from spanload.spanner.local_server import LocalSpanner

    from .pg import PgTaggedRun
    from .stats_workload import StatsWorkloads

PROJECT = "spanload-conformance"
OPERATION_TIMEOUT_S = 60
MULTIPLEXED_ENV = "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS"
MULTIPLEXED_RW_ENV = "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW"
SESSION_MODES = {
    "multiplexed": {MULTIPLEXED_ENV: "true", MULTIPLEXED_RW_ENV: "true"},
    "regular": {MULTIPLEXED_ENV: "false", MULTIPLEXED_RW_ENV: "false"},
}


def unique(prefix: str) -> str:
    """A Spanner-valid id (starts with a letter, <= 30 chars) that no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def local_spanner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server, started once for the whole session on a free port and always stopped."""
    log = tmp_path_factory.mktemp("local-spanner") / "server.log"
    try:
        server = start_server(log)
    except ServerStartError as err:
        pytest.fail(str(err), pytrace=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SPANNER_EMULATOR_HOST", server.address)
        mp.setenv("SPANNER_DISABLE_BUILTIN_METRICS", "true")
        try:
            yield server
        finally:
            was_alive = server.alive()
            server.stop()
    assert was_alive, (
        f"the server process died during the session (exit code {server.process.returncode}); "
        f"no request may crash it. Log tail:\n{server.log_tail()}"
    )


def make_client(address: str) -> Client:
    """The official client, pointed at ``address`` the way Spanload's workers do it."""
    assert os.environ.get("SPANNER_EMULATOR_HOST") == address, "SPANNER_EMULATOR_HOST must name the server"
    return Client(project=PROJECT, credentials=AnonymousCredentials(), disable_builtin_metrics=True)


@pytest.fixture(scope="session")
def spanner_client(local_spanner: ServerProcess) -> Client:
    return make_client(local_spanner.address)


def create_instance(client: Client, instance_id: str) -> Instance:
    config = f"projects/{client.project}/instanceConfigs/emulator-config"
    instance = client.instance(instance_id, configuration_name=config, display_name=instance_id, node_count=1)
    instance.create().result(OPERATION_TIMEOUT_S)
    created: Instance = instance
    return created


@pytest.fixture(scope="session")
def instance(spanner_client: Client) -> Iterator[Instance]:
    inst = create_instance(spanner_client, unique("conf"))
    yield inst
    with contextlib.suppress(Exception):  # the server may be gone already; local_spanner reports that
        inst.delete()


@pytest.fixture(scope="module", params=sorted(SESSION_MODES), ids=lambda m: f"sessions={m}")
def session_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """Multiplexed sessions on (the client's default) or off, for every test of a module."""
    mode: str = request.param
    with pytest.MonkeyPatch.context() as mp:
        for name, value in SESSION_MODES[mode].items():
            mp.setenv(name, value)
        yield mode


class SpannerDb:
    """A database created for one module, with the recorder watching its data-plane calls."""

    def __init__(self, database: Database, recorder: RpcRecorder, mode: str) -> None:
        self.database = database
        self.recorder = recorder
        self.mode = mode

    @property
    def multiplexed(self) -> bool:
        return self.mode == "multiplexed"


DatabaseFactory = Callable[[list[str]], SpannerDb]


def create_database(instance: Instance, address: str, ddl: list[str], mode: str = "multiplexed") -> SpannerDb:
    database = instance.database(unique("db"), ddl_statements=ddl)
    database.create().result(OPERATION_TIMEOUT_S)
    recorder = instrument(database, address)
    return SpannerDb(database, recorder, mode)


@pytest.fixture(scope="module")
def make_database(instance: Instance, local_spanner: ServerProcess, session_mode: str) -> Iterator[DatabaseFactory]:
    """Create databases for this module in the module's session mode; drop them afterwards."""
    made: list[SpannerDb] = []

    def factory(ddl: list[str]) -> SpannerDb:
        tdb = create_database(instance, local_spanner.address, ddl, session_mode)
        made.append(tdb)
        return tdb

    yield factory
    # Never Database.close(): with multiplexed sessions it joins a maintenance thread that sleeps 10 min.
    for tdb in made:
        with contextlib.suppress(Exception):
            tdb.database.drop()


@pytest.fixture(scope="session")
def server_address(local_spanner: ServerProcess) -> str:
    return local_spanner.address


@pytest.fixture(scope="session")
def stats_workloads(instance: Instance, local_spanner: ServerProcess) -> Iterator[StatsWorkloads]:
    from .stats_workload import StatsWorkloads, run_tagged, run_workload

    workloads = StatsWorkloads(
        main=run_workload(instance, local_spanner.address), gauges=run_workload(instance, local_spanner.address)
    )
    run_tagged(workloads.main)
    yield workloads
    workloads.drop()


@pytest.fixture(scope="session")
def pgadapter(local_spanner: ServerProcess, instance: Instance) -> Iterator[LocalSpanner]:
    """One PGAdapter (the jars `make install` resolves), started by the first test that uses it and
    stopped at the session's end. tests/conftest.py puts the files that use it on one worker."""
    from spanload.model.config import Target
    from spanload.spanner.pgadapter import start_pgadapter

    server = start_pgadapter(Target(project=PROJECT, instance=instance.instance_id), local_spanner.address)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_tagged_run(instance: Instance, pgadapter: LocalSpanner) -> Iterator[PgTaggedRun]:
    from .pg import run_pg_tagged

    run = run_pg_tagged(instance, pgadapter.address)
    yield run
    with contextlib.suppress(Exception):  # the server may be gone; local_spanner reports that
        run.database.drop()


@pytest.fixture(scope="session", autouse=True)
def _stats_minute_closes_early(request: pytest.FixtureRequest) -> None:
    """test_stats.py and test_stats_reads_locks.py read back a minute interval that must have closed.
    Their workloads run with the first test of this suite when those modules are collected, so no
    test waits for the minute. (test_pg_pgadapter.py starts its tagged run with its first test
    instead: every worker collects every file, and starting it here started a PGAdapter, a JVM,
    on each of them.)"""
    names = {item.path.name for item in request.session.items}
    if names & {"test_stats.py", "test_stats_reads_locks.py"}:
        request.getfixturevalue("stats_workloads")
