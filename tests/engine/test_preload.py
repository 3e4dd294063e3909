"""The load phase (issue 14) end to end: real worker processes, the real Spanner client, the local
server. A preload fills the run's table before the measured phase, its own phase on the timeline;
a second run skips it; a 200,000-row preload shows the table hint's effect growing with the table."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.presets import get_preset
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly
from tests.engine.test_e2e_local import _server_poll_median
from tests.engine.test_supervisor import Recorder
from tests.helpers import VENV_BIN

PRELOAD_WRITER_ID = (
    "preload"  # what the loads of workloads/change_watcher.yaml and write_benchmark.yaml write in WriterId
)

pytestmark = pytest.mark.timeout(300)

BIG_PRELOAD = 200_000  # the test size; a 1 M-row preload is bench/preload.py's


class PreloadRecorder(Recorder):
    """The engine tests' sink, plus the load phase's progress; the log names every event kind."""

    def __init__(self) -> None:
        super().__init__()
        self.progress: list[PreloadStatus] = []

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        self.events.append((kind, changes))
        self.log.append(kind.value)

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        self.progress.append(status)
        self.log.append("progress")

    def event(self, kind: EventKind) -> dict[str, object]:
        (changes,) = [c for k, c in self.events if k is kind]
        return changes


async def _run(config: RunConfig, run_id: str) -> PreloadRecorder:
    sink = PreloadRecorder()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    await asyncio.wait_for(supervisor.wait_finished(run_id), 240)
    return sink


def _query(local: LocalTarget, database: str, sql: str) -> list[tuple[Any, ...]]:
    from spanload.spanner import client as spanner_client

    config = local.config(database=database)
    conn = spanner_client.connect(config.target, config.client, local.address)
    try:
        with conn.database.snapshot() as snapshot:
            return [tuple(row) for row in snapshot.execute_sql(sql)]
    finally:
        conn.close()


def _preload_config(local: LocalTarget, database: str, rows: int, runtime: WorkerRuntime, **body: Any) -> RunConfig:
    return local.config(
        {
            "duration_s": 2,
            "processes": 2,
            "report_interval_s": 0.5,
            "preload": {"rows": rows},
            "updater": {"transactions_per_second": 4, "mutations_per_transaction": 2, "key_space": 1_000_000},
            "watcher": {"poll_interval_ms": 200},
            **body,
        },
        database=database,
        runtime=runtime,
    )


def test_a_preload_fills_the_table_in_its_own_phase_and_a_second_run_skips_it(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    database = f"preload-{runtime.value}"
    rows = 12_000
    sink = asyncio.run(_run(_preload_config(local_spanner, database, rows, runtime), "preload-1"))
    assert sink.states[-1] == (RunState.FINISHED, None)

    # its own phase: preloading between starting and running, with its start, progress and end
    log = [entry for entry in sink.log if entry != "progress"]
    assert log[:5] == ["starting", "preloading", "preload_started", "preload_finished", "running"]
    assert sink.event(EventKind.PRELOAD_STARTED) == {"rows": rows, "table_rows": 0}
    finished = sink.event(EventKind.PRELOAD_FINISHED)
    assert (finished["rows"], finished["loaded"], finished["skipped"]) == (rows, rows, 0)
    first_progress, last_progress = sink.log.index("progress"), len(sink.log) - sink.log[::-1].index("progress") - 1
    assert sink.log.index("preload_started") < first_progress <= last_progress < sink.log.index("preload_finished")
    done = sink.progress[-1]
    assert (done.rows, done.rows_done, done.percent, done.done, done.eta_s) == (rows, rows, 100.0, True, 0.0)
    assert [p.rows_done for p in sink.progress] == sorted(p.rows_done for p in sink.progress)
    assert not any(p.done for p in sink.progress[:-1])

    # every row is there, shaped like the updater's (its generated ShardId filled), written by the preload
    table = _query(
        local_spanner,
        database,
        f"SELECT COUNT(*), COUNTIF(WriterId = '{PRELOAD_WRITER_ID}'), COUNTIF(ShardId BETWEEN -18 AND 18), "
        f"COUNT(DISTINCT ShardId), MIN(SingerId), MAX(SingerId) FROM Singers WHERE SingerId < {rows}",
    )
    (count, by_preload, sharded, shards, low, high) = table[0]
    assert (count, sharded, shards, low, high) == (rows, rows, 37, 0, rows - 1)
    assert by_preload >= rows - 50  # the updater may have overwritten a few of its keys since

    # measured figures never mix with it: the watcher saw the run's changes, not the loaded rows
    r = assert_reconciled_exactly(sink.summary)
    assert sink.summary is not None and sink.summary.totals.received_changes == r.versions_received < rows

    # a second run finds the table full and says so instead of loading again
    again = asyncio.run(_run(_preload_config(local_spanner, database, rows, runtime), "preload-2"))
    assert again.states[-1] == (RunState.FINISHED, None)
    ((held,),) = _query(local_spanner, database, "SELECT COUNT(*) FROM Singers")
    assert "preloading" not in again.log and again.progress == []
    skipped = again.event(EventKind.PRELOAD_SKIPPED)
    assert skipped["rows"] == rows and rows <= int(str(skipped["table_rows"])) <= held
    assert skipped["message"] == f"preload skipped: table holds {skipped['table_rows']:,} rows"


def test_the_write_benchmark_preloads_exactly_its_rows_into_tweets(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """workloads/write_benchmark.yaml's load: Tweets rows Id 0..N-1, each written once by the preload
    (WriterId 'preload', Version 0). Its writes are off, so the run's own upserts (keys 1..key_space)
    overwrite none of them and the count is exact."""
    rows, database = 500, f"preload-tweets-{runtime.value}"
    config = get_preset("write-benchmark").config.merged(
        {
            "target": local_spanner.config(database=database).target.model_dump(),
            "runtime": runtime.value,
            "duration_s": 1,
            "report_interval_s": 0.5,
            "preload": {"rows": rows},
            "knobs": {"reads_per_second": 5},
            "operations": {"write": {"enabled": False}},
        }
    )
    sink = asyncio.run(_run(config, f"tweets-{runtime.value}"))
    assert sink.states[-1] == (RunState.FINISHED, None)
    finished = sink.event(EventKind.PRELOAD_FINISHED)
    assert (finished["rows"], finished["loaded"], finished["skipped"]) == (rows, rows, 0)
    assert sink.summary is not None and sink.summary.totals.transactions == 0
    ((count, by_preload, unversioned, sharded, low, high),) = _query(
        local_spanner,
        database,
        f"SELECT COUNT(*), COUNTIF(WriterId = '{PRELOAD_WRITER_ID}'), COUNTIF(Version = 0), "
        "COUNTIF(ShardId BETWEEN -18 AND 18), MIN(Id), MAX(Id) FROM Tweets",
    )
    assert by_preload == rows
    assert (count, unversioned, sharded, low, high) == (rows, rows, rows, 0, rows - 1)


def test_a_larger_preload_loads_only_the_missing_part(local_spanner: LocalTarget) -> None:
    database = "preload-resume"
    config = _preload_config(local_spanner, database, 3_000, WorkerRuntime.PYTHON, processes=1)
    asyncio.run(_run(config, "resume-1"))
    config = _preload_config(local_spanner, database, 7_000, WorkerRuntime.PYTHON, processes=1)
    sink = asyncio.run(_run(config, "resume-2"))
    finished = sink.event(EventKind.PRELOAD_FINISHED)
    assert (finished["loaded"], finished["skipped"]) == (4_000, 3_000)
    ((count,),) = _query(local_spanner, database, "SELECT COUNT(*) FROM Singers WHERE SingerId < 7000")
    assert count == 7_000


def test_the_cli_draws_a_progress_bar_then_says_the_preload_was_skipped(local_spanner: LocalTarget) -> None:
    def run() -> str:
        result = subprocess.run(
            [
                str(VENV_BIN / "spanload"),
                "run",
                "--emulator-host",
                local_spanner.address,
                "--database",
                "preload-cli",
                "--preload-rows",
                "5000",
                "--duration",
                "1s",
                "--tps",
                "2",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout

    first = run()
    bar = [line for line in first.splitlines() if line.startswith("preload ━")]
    assert len(bar) == 1 and " 100% 5,000/5,000 rows " in bar[0] and "ETA 00:00:00" in bar[0], first
    assert "preload finished: 5,000 rows loaded, 0 present" in first
    assert first.index("run cli-") < first.index("preloading") < first.index(bar[0]) < first.index(": running")
    second = run()
    assert "preload skipped: table holds 5,0" in second and "preload ━" not in second, second


def test_the_hint_effect_grows_with_the_table_after_a_200k_row_preload(local_spanner: LocalTarget) -> None:
    """``medium-no-hint`` against ``medium``, at the server: the poll without FORCE_INDEX scans the
    table, so its work over the hinted poll's grows with the rows a preload put there. Counted in
    rows scanned (the PROFILE stats), not timed: the unhinted poll reads every row of the table, the
    hinted one the same few index entries whatever the table holds."""
    database = "preload-hint"
    scanned: dict[int, tuple[float, float]] = {}
    table: dict[int, int] = {}
    for rows in (2_000, BIG_PRELOAD):
        config = _preload_config(local_spanner, database, rows, WorkerRuntime.PYTHON, duration_s=0.5)
        sink = asyncio.run(_run(config, f"hint-{rows}"))
        assert sink.states[-1] == (RunState.FINISHED, None)
        hinted, plain = (
            _server_poll_median(local_spanner, database, hint, "rows_scanned", repeats=3) for hint in (True, False)
        )
        scanned[rows] = (hinted, plain)
        ((table[rows],),) = _query(local_spanner, database, "SELECT COUNT(*) FROM Singers")
        print(f"\n{rows:,} rows: the poll scans {plain:,.0f} rows without the hint, {hinted:,.0f} with it")
    assert table[2_000] >= 2_000 and table[BIG_PRELOAD] >= BIG_PRELOAD, table
    assert [scanned[r][1] for r in table] == [float(table[r]) for r in table], (scanned, table)  # a full scan
    assert scanned[2_000][0] == scanned[BIG_PRELOAD][0] < 2_000, scanned  # the index: no more for more rows


async def preloading(run_id: str, config: RunConfig) -> tuple[Supervisor, PreloadRecorder]:
    """A run started and seen in its load phase, with rows already loaded."""
    sink = PreloadRecorder()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    while not any(p.rows_done for p in sink.progress):
        assert supervisor.state(run_id).is_active, sink.states
        await asyncio.sleep(0.05)
    assert supervisor.state(run_id) is RunState.PRELOADING
    return supervisor, sink


def test_a_stop_while_preloading_ends_the_run_without_a_measured_phase(local_spanner: LocalTarget) -> None:
    config = _preload_config(local_spanner, "preload-stop", 5_000_000, WorkerRuntime.PYTHON, duration_s=None)

    async def scenario() -> PreloadRecorder:
        supervisor, sink = await preloading("preload-stop", config)
        await asyncio.wait_for(supervisor.stop("preload-stop"), 120)
        return sink

    sink = asyncio.run(scenario())
    assert [s for s, _ in sink.states] == [RunState.STARTING, RunState.PRELOADING, RunState.STOPPING, RunState.FINISHED]
    assert [k for k, _ in sink.events] == [EventKind.PRELOAD_STARTED]
    assert sink.samples == [] and sink.summary is None
    assert 0 < sink.progress[-1].rows_done < 5_000_000 and not sink.progress[-1].done
