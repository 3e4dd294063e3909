"""Per-operation deadlines and failure accounting, with the official client: against the real local
Spanner for successes, and against a port where nothing listens for a target that is down."""

from __future__ import annotations

import asyncio
import time

from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import param_types

from spanload.engine.schema_setup import create_definition_schema
from spanload.engine.supervisor import Supervisor
from spanload.model import metrics
from spanload.model.builtin_convert import as_definition
from spanload.model.config import RunConfig
from spanload.model.op_metrics import OpCounter, OpHistogram, name
from spanload.model.protocol import Counter
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.spanner import client as spanner_client
from spanload.spanner import deadline
from spanload.workers.interp.runner import Interpreter
from spanload.workers.stats import WorkerStats, error_code
from tests.engine.commit_dropping_proxy import CommitDroppingProxy
from tests.engine.conftest import LocalTarget
from tests.engine.test_supervisor import Recorder
from tests.helpers import free_port

HANG_BOUND_MS = 10_000  # the client's own defaults would retry a Commit on UNAVAILABLE for an hour


def _counts(stats: WorkerStats) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """(counters, errors by code, histogram counts by op) of what ``stats`` recorded."""
    counters, errors, hdr = stats.take()
    return counters, errors, {op: metrics.decode(text).get_total_count() for op, text in hdr.items()}


WRITE, READ = name(OpHistogram.LATENCY, "write"), name(OpHistogram.LATENCY, "point_read")
WRITE_FAILED, READ_FAILED = name(OpHistogram.FAILED, "write"), name(OpHistogram.FAILED, "point_read")


def _change_watcher(target: dict[str, object]) -> RunConfig:
    """A run of workloads/change_watcher.yaml (what the light preset runs) with its point reads on."""
    return as_definition(RunConfig.model_validate({"target": target, "reader": {"enabled": True}}))


def _interpreter(config: RunConfig, address: str, stats: WorkerStats) -> Interpreter:
    conn = spanner_client.connect(config.target, config.client, address)
    assert config.definition is not None
    return Interpreter(lambda: conn.database, config.definition, config, stats, 0, 1, "deadline-test")


def test_error_codes_name_what_kept_an_operation_retrying() -> None:
    down = gexc.ServiceUnavailable("connection refused")
    assert error_code(deadline.OperationDeadlineExceeded("out of time", down)) == "UNAVAILABLE"
    assert error_code(deadline.OperationDeadlineExceeded("out of time")) == "DEADLINE_EXCEEDED"
    assert error_code(gexc.RetryError("gave up", gexc.Aborted("conflict"))) == "ABORTED"
    assert error_code(gexc.DeadlineExceeded("rpc timed out")) == "DEADLINE_EXCEEDED"


def test_the_operation_timeout_is_configured_per_process_and_changes_live() -> None:
    deadline.configure(1234)
    try:
        assert deadline.timeout_s() == 1.234
        with deadline.operation():
            assert 0 < deadline.remaining() <= 1.234
            assert deadline.rpc_retry().timeout is not None and deadline.rpc_retry().timeout <= 1.234
        deadline.configure(300)
        with deadline.operation():
            assert deadline.remaining() <= 0.3
    finally:
        deadline.configure(RunConfig().client.timeout_ms)


def test_successful_operations_go_to_the_latency_histograms_and_nothing_to_the_failure_ones(
    local_spanner: LocalTarget,
) -> None:
    config = as_definition(local_spanner.config())
    create_definition_schema(config, local_spanner.address)
    stats = WorkerStats()
    interp = _interpreter(config, local_spanner.address, stats)
    for _ in range(3):
        interp.operations["write"]._execute(0.0, 0.0)
    counters, errors, counts = _counts(stats)
    assert errors == {}
    assert counters[Counter.TRANSACTIONS] == counters[name(OpCounter.DONE, "write")] == 3
    assert counts[WRITE] == 3
    assert WRITE_FAILED not in counts


def test_a_target_that_is_down_fails_each_operation_within_its_deadline_as_unavailable() -> None:
    address = f"127.0.0.1:{free_port()}"  # nothing listens: every connection is refused
    config = _change_watcher({"kind": "emulator", "emulator_host": address})
    deadline.configure(2000)  # a refused dial must be seen before it ends: 400 ms was too short on a loaded machine
    try:
        stats = WorkerStats()
        interp = _interpreter(config, address, stats)
        for _ in range(2):
            interp.operations["write"]._execute(0.0, 0.0)
            interp.operations["point_read"]._execute(0.0, 0.0)
    finally:
        deadline.configure(RunConfig().client.timeout_ms)
    counters, errors, counts = _counts(stats)
    assert errors == {"UNAVAILABLE": 4}
    assert counters[Counter.ERRORS] == 4 and Counter.TRANSACTIONS not in counters
    assert counts == {WRITE_FAILED: 2, READ_FAILED: 2}
    _, _, hdr = stats.take()
    assert hdr == {}  # take() reset everything
    assert interp.ledger.message("x").uncertain_keys  # a commit that may have happened is not reconciled


def test_a_failed_operation_is_timed_in_its_own_histogram_and_bounded_by_the_deadline() -> None:
    address = f"127.0.0.1:{free_port()}"
    config = _change_watcher({"kind": "emulator", "emulator_host": address})
    deadline.configure(300)
    try:
        stats = WorkerStats()
        now = time.perf_counter()  # operations are timed from perf_counter starts
        _interpreter(config, address, stats).operations["write"]._execute(now, now)
    finally:
        deadline.configure(RunConfig().client.timeout_ms)
    _, _, hdr = stats.take()
    failed = metrics.percentiles(metrics.decode(hdr[WRITE_FAILED]))
    assert failed.count == 1
    assert failed.max is not None and failed.max < HANG_BOUND_MS  # ended by its deadline, not the client's


def test_an_unreachable_target_fails_the_run_naming_the_address_and_the_grpc_status() -> None:
    address = f"127.0.0.1:{free_port()}"
    config = RunConfig.model_validate(
        {"target": {"kind": "emulator", "emulator_host": address}, "client": {"timeout_ms": 2000}}
    )

    async def scenario() -> tuple[RunState, Recorder]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("unreachable", config)
        state = await asyncio.wait_for(supervisor.wait_finished("unreachable"), 60)
        return state, sink

    state, sink = asyncio.run(scenario())
    assert state is RunState.FAILED
    assert [s for s, _ in sink.states] == [RunState.STARTING, RunState.FAILED]
    reason = sink.states[-1][1]
    assert reason is not None
    assert f"the emulator target at {address} did not answer: UNAVAILABLE" in reason
    # met by the creation of the built-in definition's schema, before any worker starts
    assert reason.startswith("could not create the schema of workload 'change_watcher': ")


def test_a_commit_whose_answer_is_lost_is_an_unknown_outcome_and_leaves_the_proof(local_spanner: LocalTarget) -> None:
    """A proxy forwards the Commit to the real server, which commits, and holds back its answer past
    the operation's deadline. The worker counts DEADLINE_EXCEEDED and puts the keys among the
    uncertain ones (not reconciled), although the rows are in the database; the next commit, answered,
    counts as a transaction."""
    config = as_definition(local_spanner.config())
    create_definition_schema(config, local_spanner.address)
    admin = spanner_client.make_client(config.target, local_spanner.address)
    with CommitDroppingProxy(local_spanner.address) as proxy:
        # the whole write's deadline, the commit's held answer included (the proxy holds it that long):
        # 3 s, so that a loaded machine's session and read before the commit do not use it up
        deadline.configure(3000)
        try:
            stats = WorkerStats()
            interp = _interpreter(config, proxy.address, stats)
            write = interp.operations["write"]
            proxy.drop_commits.set()
            write._execute(0.0, 0.0)
            proxy.drop_commits.clear()
            counters, errors, counts = _counts(stats)
            uncertain = interp.ledger.message("x").uncertain_keys
            write._execute(0.0, 0.0)
            after, after_errors, _ = _counts(stats)
        finally:
            deadline.configure(RunConfig().client.timeout_ms)
        assert proxy.commits_dropped >= 1 and proxy.commits_forwarded == proxy.commits_dropped + 1
    assert errors == {"DEADLINE_EXCEEDED": 1}
    assert Counter.TRANSACTIONS not in counters and counts == {WRITE_FAILED: 1}
    assert uncertain, "a commit of unknown outcome must take its keys out of the proof"
    assert (after[Counter.TRANSACTIONS], after_errors) == (1, {})
    database = admin.instance(config.target.instance).database(config.target.database)
    with database.snapshot() as snapshot:
        rows = list(
            snapshot.execute_sql(
                "SELECT SingerId, Version FROM Singers WHERE SingerId IN UNNEST(@keys)",
                params={"keys": uncertain},
                param_types={"keys": param_types.Array(param_types.INT64)},
            )
        )
    assert sorted(rows) == [[key, 1] for key in sorted(uncertain)], (
        "the server did commit what the client could not know"
    )
    ledger = {key for key, _, _ in interp.ledger.message("x").ledger}
    assert not ledger & set(uncertain), "an uncertain key must not be reconciled as committed"
