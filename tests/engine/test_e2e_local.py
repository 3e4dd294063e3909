"""The load engine end to end: real worker processes, the real Spanner clients, the local server.

The Proof of the load engine issue: the light preset reconciles, a live rate patch becomes the
workers' own target and a pause stops their transactions (counted, not timed), the table hint decides
the rows a poll scans (its duration is bench/local_spanner.py's), and a killed worker process fails
the run. Those tests take the ``runtime`` fixture: they run once with
the Python workers (google-cloud-spanner) and once with the Go workers (cloud.google.com/go/spanner).
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import ConfigPatch, RunConfig, WorkerRuntime
from spanload.model.op_metrics import OpGauge, name
from spanload.model.presets import get_preset
from spanload.model.samples import Gauge, Op, Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly, run_with_patch
from tests.engine.test_supervisor import Recorder, _until
from tests.helpers import VENV_BIN

pytestmark = pytest.mark.timeout(240)
HINT_TABLE_ROWS = 40_000


def _with_target(config: RunConfig, local: LocalTarget, runtime: WorkerRuntime) -> RunConfig:
    return config.model_copy(update={"target": local.config().target, "runtime": runtime})


async def _run_to_end(config: RunConfig, run_id: str, pids: list[int] | None = None) -> Recorder:
    sink = Recorder()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    if pids is not None:
        pids.extend(supervisor.worker_pids(run_id))
    await asyncio.wait_for(supervisor.wait_finished(run_id), 180)
    return sink


def test_the_light_preset_for_10s_reconciles(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    config = _with_target(get_preset("light").config, local_spanner, runtime).model_copy(update={"duration_s": 10.0})
    # A small key space makes keys be overwritten, some before a poll sees them: counted apart.
    config = config.merged({"updater": {"key_space": 300}})
    pids: list[int] = []
    began = time.monotonic()
    sink = asyncio.run(_run_to_end(config, "light", pids))
    wall_s = time.monotonic() - began
    assert sink.states[-1] == (RunState.FINISHED, None)
    summary = sink.summary
    r = assert_reconciled_exactly(summary)
    assert summary.latency[Op.WATCHER_NOTIFY].count == r.versions_received
    assert summary.totals.errors == 0
    assert len(sink.samples) >= 9
    # server time (the server-timing header) is shown apart from client time, and is part of it
    server, client = summary.latency[Op.UPDATER_TXN_SERVER], summary.latency[Op.UPDATER_TXN]
    assert server.count == client.count == summary.totals.transactions
    assert server.p50 is not None and client.p50 is not None and server.p50 <= client.p50
    assert summary.latency[Op.WATCHER_POLL_SERVER].count == summary.latency[Op.WATCHER_POLL].count
    # what the worker cost: its own pid, every operation it counted, its own CPU time
    (worker,) = summary.workers
    assert (worker.index, worker.runtime, worker.pid, worker.node) == (0, runtime.value, pids[0], None)
    assert worker.host == os.uname().nodename
    assert worker.operations == summary.totals.transactions + summary.totals.polls + summary.totals.reads
    assert worker.cpu_s is not None and 0 < worker.cpu_s <= wall_s * 1.1
    assert worker.cpu_ms_per_op == worker.cpu_s * 1000 / worker.operations


def test_a_live_rate_patch_sets_the_workers_target_and_pause_stops_their_transactions(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """Counted, not timed: the patch shows as the workers' own target (the rate their pacer schedules),
    the pause as a transactions total that stands still once the workers said they hold nothing in
    flight, and the resume as that total growing again, at the patched target."""
    config = local_spanner.config(
        {"updater": {"transactions_per_second": 5, "mutations_per_transaction": 1}, "watcher": {"enabled": False}},
        runtime=runtime,
    )
    target, in_flight = Gauge.UPDATER_TARGET_TPS, name(OpGauge.IN_FLIGHT, "write")  # change_watcher.yaml's updater

    def holds(sample: Sample) -> bool:  # the workers' pacers hold: target 0, and nothing of theirs running
        return sample.gauges.get(target) == 0.0 and sample.gauges.get(in_flight) == 0.0

    async def scenario() -> tuple[list[Sample], int, int, int, int]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("patch", config)
        await _until(lambda: len(sink.samples) >= 3, "three samples at the first rate", 60)
        patched_at = len(sink.samples)
        await supervisor.patch("patch", ConfigPatch.model_validate({"updater": {"transactions_per_second": 20}}), "t")
        await _until(lambda: sink.samples[-1].gauges.get(target) == 20.0, "a sample at the patched target", 60)
        await _until(lambda: len(sink.samples) >= patched_at + 5, "more samples at the patched target", 60)
        await supervisor.pause("patch")
        paused_at = len(sink.samples)
        await _until(lambda: any(map(holds, sink.samples[paused_at:])), "a paused sample with nothing in flight", 60)
        acknowledged = next(i for i in range(paused_at, len(sink.samples)) if holds(sink.samples[i]))
        await _until(lambda: len(sink.samples) >= acknowledged + 4, "three samples after it", 60)
        resumed_at = len(sink.samples)
        await supervisor.resume("patch")
        still = sink.samples[resumed_at - 1].totals.transactions
        await _until(lambda: sink.samples[-1].totals.transactions > still, "transactions after the resume", 60)
        await supervisor.stop("patch")
        return sink.samples, patched_at, paused_at, acknowledged, resumed_at

    samples, patched_at, paused_at, acknowledged, resumed_at = asyncio.run(scenario())
    targets = [s.gauges.get(target) for s in samples]
    # the target is the worker's own (its pacer's schedule), per sample: 5 before the patch, then
    # 20 from the first sample that shows it to the pause, 0 while paused, 20 again after the resume
    first_20 = targets.index(20.0)
    assert first_20 >= patched_at and set(targets[:first_20]) <= {5.0, None}, targets
    assert set(targets[first_20:paused_at]) <= {20.0, None}, targets
    assert set(targets[paused_at:acknowledged]) <= {20.0, 0.0, None}, targets
    assert set(targets[acknowledged:resumed_at]) <= {0.0, None}, targets
    assert 20.0 in targets[resumed_at:], targets
    # paused: once the workers report nothing in flight, the transactions total stands still; a
    # transaction that ended between the report's counts and its gauges counts in the next one
    totals = [s.totals.transactions for s in samples]
    assert totals[acknowledged + 1] == totals[acknowledged + 2] == totals[acknowledged + 3], totals
    assert totals[-1] > totals[resumed_at - 1], totals  # and it grows again after the resume


def _populate(local: LocalTarget, database: str, rows: int) -> None:
    """Fill the watched table with old rows, as the report's 17 M-row table was."""
    from google.cloud.spanner_v1 import COMMIT_TIMESTAMP

    from spanload.engine.schema_setup import create_definition_schema
    from spanload.model.builtin_convert import as_definition
    from spanload.spanner import client as spanner_client

    config = as_definition(local.config(database=database))  # workloads/change_watcher.yaml's Singers
    create_definition_schema(config, local.address)
    conn = spanner_client.connect(config.target, config.client, local.address)
    columns = ("SingerId", "FirstName", "LastName", "SingerInfo", "Version", "WriterId", "LastUpdated")
    batch_rows = 1000
    filler = base64.b64encode(
        b"x" * 2000
    )  # wide rows: a full scan reads many pages, an index seek few, as in a big table
    for start in range(10_000_000, 10_000_000 + rows, batch_rows):
        with conn.database.batch() as batch:
            batch.insert_or_update(
                "Singers",
                columns,
                [(k, "f", "l", filler, 1, "old", COMMIT_TIMESTAMP) for k in range(start, start + batch_rows)],
            )
    conn.close()


def _server_poll_median(local: LocalTarget, database: str, hint: bool, stat: str, repeats: int = 15) -> float:
    """The median of one PROFILE query statistic (elapsed_time, rows_scanned...) of a poll that finds
    nothing new."""
    from google.cloud.spanner_v1 import param_types
    from google.cloud.spanner_v1.types import ExecuteSqlRequest

    from spanload.model.builtin_convert import as_definition
    from spanload.spanner import client as spanner_client
    from spanload.workers.interp.watch import poll_statements

    config = as_definition(local.config(database=database))  # workloads/change_watcher.yaml's watch
    watch = config.definition.watch if config.definition is not None else None
    assert watch is not None
    conn = spanner_client.connect(config.target, config.client, local.address)
    sql, _ = poll_statements(watch, ["SingerId"], False, watch.index if hint else None, list(range(-18, 19)))
    params = {"ts": dt.datetime.now(dt.UTC), "limit": 10_000}
    types = {"ts": param_types.TIMESTAMP, "limit": param_types.INT64}
    elapsed = []
    for _ in range(repeats):
        with conn.database.snapshot() as snapshot:
            result = snapshot.execute_sql(
                sql, params=params, param_types=types, query_mode=ExecuteSqlRequest.QueryMode.PROFILE
            )
            list(result)
            elapsed.append(float(str(result.stats.query_stats[stat]).split()[0]))
    conn.close()
    return sorted(elapsed)[len(elapsed) // 2]


@pytest.fixture(scope="module")
def hint_database(local_spanner: LocalTarget) -> Iterator[str]:
    """A database whose watched table holds many old rows, where the server scans without the hint."""
    database = "e2e-hint"
    _populate(local_spanner, database, rows=HINT_TABLE_ROWS)
    hinted, plain = (
        _server_poll_median(local_spanner, database, hint, "rows_scanned", repeats=1) for hint in (True, False)
    )
    if not hinted < HINT_TABLE_ROWS <= plain:  # counted, not timed: the unhinted poll reads every row
        reason = (
            f"the local Spanner's poll scans {plain:,.0f} rows without FORCE_INDEX and {hinted:,.0f} with it "
            f"on {HINT_TABLE_ROWS:,} rows: it does not scan the base table for an unhinted query, so the "
            "table hint cannot change poll duration"
        )
        pytest.fail(reason)
    yield database


def test_the_watcher_polls_with_and_without_the_table_hint(
    local_spanner: LocalTarget, hint_database: str, runtime: WorkerRuntime
) -> None:
    """The report's finding (no hint: slower polls) is counted, not timed, by ``hint_database``: the
    unhinted poll scans every row, the hinted one fewer. Both runs are of workloads/change_watcher.yaml:
    the hinted one reached from the report's fields (``watcher.table_hint`` -> its ``table_hint``
    knob, model/builtin_knobs.py), the unhinted one from the definition with those fields merged onto
    it; the poll text each knob value gives is tests/workers/test_interp_watch.py's. The poll times
    are figures of ``bench/local_spanner.py`` ("hint speed-up"), printed here only: a slow interval of
    a loaded machine must not decide a test."""
    fields = {"updater": {"transactions_per_second": 5, "mutations_per_transaction": 5}}
    definition = builtin_definition("change_watcher").model_dump(mode="json", exclude_unset=True)
    configs = {
        True: local_spanner.config(
            {**fields, "duration_s": 6, "watcher": {"table_hint": True, "poll_interval_ms": 100}},
            database=hint_database,
            runtime=runtime,
        ),
        False: local_spanner.config(
            {"workload": "definition", "definition": definition, "duration_s": 6},
            database=hint_database,
            runtime=runtime,
        ).merged({**fields, "watcher": {"table_hint": False, "poll_interval_ms": 100}}),
    }
    p50: dict[bool, float] = {}
    for hint, config in configs.items():
        sink = asyncio.run(_run_to_end(config, f"hint-{hint}"))
        assert sink.summary is not None
        poll = sink.summary.latency[Op.WATCHER_POLL]
        assert poll.count > 10 and poll.p50 is not None
        assert Op.WATCHER_POLL_FAILED not in sink.summary.latency
        p50[hint] = poll.p50
    print(f"\npoll p50 with FORCE_INDEX: {p50[True]:.2f} ms, without: {p50[False]:.2f} ms")


def test_killing_the_worker_process_fails_the_run(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    config = local_spanner.config({"updater": {"transactions_per_second": 5}}, runtime=runtime)

    async def scenario() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("kill", config)
        while not sink.samples:
            await asyncio.sleep(0.05)
        os.kill(supervisor.worker_pids("kill")[0], signal.SIGKILL)
        await asyncio.wait_for(supervisor.wait_finished("kill"), 30)
        return sink

    sink = asyncio.run(scenario())
    state, reason = sink.states[-1]
    assert state is RunState.FAILED
    assert reason is not None and reason.startswith("worker 0 (pid ")
    assert reason.endswith(") was killed by SIGKILL (exit status -9) before the run ended")


def test_the_cli_prints_status_writes_json_and_fails_a_threshold(local_spanner: LocalTarget, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    result = subprocess.run(
        [
            str(VENV_BIN / "spanload"),
            "run",
            "--emulator-host",
            local_spanner.address,
            "--database",
            "e2e-cli",
            "--preset",
            "very-light",
            "--tps",  # at the preset's 1 tx/s, 3 s write nothing 5 % of the time, which proves nothing
            "10",
            "--duration",
            "3s",
            "--json",
            str(out),
            "--threshold",
            "updater.p99_ms<0.001",
            "--threshold",
            "reconciliation.ok==1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    # the run is the change watcher definition's: a line for its write operation, one for its watch
    assert "\nwrite: " in result.stdout and "\nWatcher: " in result.stdout and "changes/s  notify" in result.stdout
    assert "threshold 'updater.p99_ms<0.001' failed" in result.stdout
    assert "reconciliation.ok==1" not in result.stdout  # that one held
    document = json.loads(out.read_text())
    assert document["config"]["preset"] == "very-light"
    assert document["summary"]["reconciliation"]["ok"] is True
    (worker,) = document["summary"]["workers"]
    totals = document["summary"]["totals"]
    assert worker["operations"] == totals["transactions"] + totals["polls"] + totals["reads"]
    assert f"worker 0: python pid {worker['pid']} on {worker['host']}  {worker['operations']:,} ops" in result.stdout
    assert len(document["samples"]) >= 2 and "hdr" in document["samples"][0]


def test_ctrl_c_stops_the_cli_cleanly_and_still_writes_the_summary(local_spanner: LocalTarget, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    process = subprocess.Popen(
        [
            str(VENV_BIN / "spanload"),
            "run",
            "--emulator-host",
            local_spanner.address,
            "--database",
            "e2e-sigint",
            "--preset",
            "very-light",
            "--json",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("write:") and float(line.split()[1].removesuffix("/s")) > 0:
            break  # something was written, so the summary has something to reconcile
    process.send_signal(signal.SIGINT)
    rest, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Summary" in rest and "reconciliation: OK" in rest
    assert json.loads(out.read_text())["state"] == "finished"


def test_changing_the_number_of_watchers_live_misses_nothing_and_counts_nothing_twice(
    local_spanner: LocalTarget,
) -> None:
    config = local_spanner.config(
        {"updater": {"transactions_per_second": 10, "mutations_per_transaction": 10, "key_space": 500}}
    )

    async def scenario() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("regroup", config)
        for watchers, after in ((4, 3), (1, 6), (8, 9)):
            while len(sink.samples) < after:
                await asyncio.sleep(0.05)
            await supervisor.patch("regroup", ConfigPatch.model_validate({"watcher": {"watchers": watchers}}), "t")
        while len(sink.samples) < 12:
            await asyncio.sleep(0.05)
        await supervisor.stop("regroup")
        return sink

    sink = asyncio.run(scenario())
    assert sink.summary is not None and sink.summary.reconciliation is not None
    r = sink.summary.reconciliation
    assert r.ok, r.detail
    assert r.duplicates == 0 and r.final_versions_missing == 0
    assert sink.summary.totals.received_changes == r.versions_received


def test_switching_to_a_session_pool_live_shows_session_gauges(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    config = local_spanner.config(
        {
            "updater": {"transactions_per_second": 20, "mutations_per_transaction": 2},
            "watcher": {"enabled": False},
            "reader": {"enabled": True, "reads_per_second": 20, "concurrency": 4},
        },
        runtime=runtime,
    )

    sink = Recorder()
    patch = {"client": {"multiplexed_sessions": False, "session_pool_size": 5}}
    asyncio.run(run_with_patch(sink, config, "pool", patch, before=2, after=3))
    assert Gauge.SESSIONS_IN_USE not in sink.samples[0].gauges  # multiplexed sessions: no pool to show
    pooled = [s for s in sink.samples if Gauge.SESSIONS_IN_USE in s.gauges]
    assert pooled, "no sample after the patch shows session gauges"
    assert all(s.gauges[Gauge.SESSIONS_IN_USE] + s.gauges[Gauge.SESSIONS_IDLE] == 5 for s in pooled)
    assert all(0 <= s.gauges[Gauge.SESSIONS_WAITING] <= 8 + 4 for s in pooled)  # parallelism + concurrency
    assert sink.summary is not None and sink.summary.totals.errors == 0, sink.summary.errors_by_code
    # reads went on through the pool (the run is the change watcher definition's: its point reads are
    # the reader's, reader.rps)
    assert sum(s.gauges.get(Gauge.READER_RPS, 0.0) * s.interval_s for s in pooled) > 0


def test_batch_inserts_from_two_processes_reconcile_every_new_row(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """The 2PC batch insert writes new keys only, each once: every one is received exactly once (the
    Python ledgers keep ranges of new-key numbers for them, not a row per key)."""
    # the 2pc-batch-insert preset's commits (now workloads/participants.yaml) by the updater's
    # batch_insert mode, with a watcher
    preset = RunConfig.model_validate(
        {"updater": {"transactions_per_second": 20, "mode": "batch_insert", "batch_rows": 6}}
    )
    config = _with_target(preset, local_spanner, runtime).model_copy(update={"duration_s": 6.0, "processes": 2})
    sink = asyncio.run(_run_to_end(config, f"batch-{runtime.value}"))
    assert sink.states[-1] == (RunState.FINISHED, None)
    summary = sink.summary
    r = assert_reconciled_exactly(summary)
    assert summary is not None and summary.totals.errors == 0
    assert summary.totals.mutations == 6 * summary.totals.transactions
    # new keys are never overwritten: each is a key written, received as its final version
    assert r.keys_written == r.versions_written == r.final_versions_received == summary.totals.mutations
    assert (r.superseded_unseen, r.uncertain_keys) == (0, 0)
    assert [w.index for w in summary.workers] == [0, 1]
