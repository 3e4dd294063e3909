"""Issue 29: a definition's watcher in ``change_stream`` mode, end to end under the real
supervisor against the local Spanner: ``workloads/inventory.yaml`` with ``watch.mode:
change_stream`` reconciles exactly in both runtimes (every movement received once: Movements is insert-only, so
received changes = COUNT(*) of Movements, read back with the official client), also when the
table's split divides mid-run (a split threshold of 16 rows against ~100 movements)."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from google.cloud import spanner_v1

from spanload.model.config import WorkerRuntime
from spanload.model.presets import make_config
from spanload.model.protocol import Counter
from spanload.model.samples import Op
from spanload.model.workload import WatchMode, WorkloadDefinition
from spanload.model.workload_file import validate_data
from spanload.spanner import client as spanner_client
from spanload.workers.interp.watch_stream import ChangeStreamWatcher
from spanload.workers.stats import WorkerStats
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly, set_split_rows
from tests.engine.test_definition_e2e import SEED, create_schema, inventory, query, run

pytestmark = pytest.mark.timeout(240)

SPLIT_ROWS = 16
TABLE = "CREATE TABLE T (Id INT64 NOT NULL, Ts TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)"


@contextlib.contextmanager
def _watched_table(
    local: LocalTarget, name: str, watch: dict[str, Any], knobs: dict[str, Any] | None = None
) -> Iterator[tuple[WorkloadDefinition, Any]]:
    """Table T on a fresh database, watched in change_stream mode by Ts (``watch``'s fields added,
    ``knobs`` the definition's): the definition, and the official client's database of it."""
    definition = validate_data(
        {
            "name": name,
            "ddl": [TABLE],
            "knobs": knobs or {},
            "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
            "watch": {"table": "T", "timestamp": "Ts", "mode": "change_stream", **watch},
        }
    )
    config = local.config({"workload": "definition", "definition": definition.model_dump(mode="json")})
    create_schema(local, config, definition)
    client = spanner_client.make_client(config.target, local.address)
    try:
        yield definition, client.instance(config.target.instance).database(config.target.database)
    finally:
        client.close()


@pytest.mark.parametrize("runtime", ["python", "go"])
def test_change_stream_watcher_receives_every_movement_once_across_split_divisions(
    local_spanner: LocalTarget, runtime: str
) -> None:
    definition = inventory()
    assert definition.watch is not None
    definition = definition.model_copy(
        update={"watch": definition.watch.model_copy(update={"mode": WatchMode.CHANGE_STREAM, "heartbeat": "200ms"})}
    )
    data = definition.model_dump(mode="json", exclude_unset=True)
    body = {"workload": "definition", "definition": data, "seed": SEED, "duration_s": 3.0, "processes": 1}
    config = local_spanner.config({**body, "knobs": {"transfer_rate": 40.0}}, runtime=WorkerRuntime(runtime))
    create_schema(local_spanner, config, definition)
    set_split_rows(config, SPLIT_ROWS)
    summary, _ = run(config, f"stream-{runtime}")
    ((movements,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Movements")
    assert movements > 2 * SPLIT_ROWS, "too few movements for the split to divide"
    assert summary.totals.received_changes == movements
    assert summary.latency[Op.WATCHER_NOTIFY].count == movements
    ((splits,),) = query(local_spanner, config, "SELECT SPLITS FROM SPANNER_SYS.SPANLOAD_COUNTERS")
    assert splits > 1


def test_a_watcher_that_creates_its_stream_reads_from_the_creation_on(local_spanner: LocalTarget) -> None:
    """The run's start is before the stream exists (Spanner refuses a start_timestamp before a stream's
    creation); the watcher that creates the stream starts reading at its creation, and sees every
    commit after it, also when drained right after the last one."""
    with _watched_table(local_spanner, "created", {"heartbeat": "100ms"}) as (definition, db):
        stats = WorkerStats()
        hour_ago = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
        watcher = ChangeStreamWatcher(lambda: db, definition, {}, stats, hour_ago)
        watcher.start()
        for i in range(3):
            with db.batch() as b:
                b.insert("T", ["Id", "Ts"], [[i, spanner_v1.COMMIT_TIMESTAMP], [100 + i, spanner_v1.COMMIT_TIMESTAMP]])
        watcher.stop_and_drain()
        counters, errors, _ = stats.take()
    assert errors == {}
    assert counters[Counter.RECEIVED_CHANGES] == 6


@pytest.mark.parametrize("runtime", ["python", "go"])
def test_light_in_change_stream_mode_reconciles_exactly_across_split_divisions(
    local_spanner: LocalTarget, runtime: str
) -> None:
    """The ``light-change-stream`` preset (workloads/change_watcher.yaml: versioned keys, a watch with
    versions) on a fresh database whose Singers table divides past 16 rows: every final version
    received once, in both runtimes; a stream records every commit's mods, so no version is
    superseded unseen (a poll may miss one), and the keys written are the table's rows."""
    preset = make_config("light-change-stream").model_dump(mode="json", exclude_unset=True)
    body = {**{k: v for k, v in preset.items() if k != "target"}, "duration_s": 4.0}
    config = local_spanner.config(body, runtime=WorkerRuntime(runtime))
    assert config.definition is not None and config.definition.name == "change_watcher"
    create_schema(local_spanner, config, config.definition)
    set_split_rows(config, SPLIT_ROWS)
    summary, _ = run(config, f"light-stream-{runtime}")
    assert [w.runtime for w in summary.workers] == [runtime]
    r = assert_reconciled_exactly(summary)
    assert r.superseded_unseen == 0
    ((rows,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Singers")
    assert r.keys_written == rows > 2 * SPLIT_ROWS
    ((splits,),) = query(local_spanner, config, "SELECT SPLITS FROM SPANNER_SYS.SPANLOAD_COUNTERS")
    assert splits > 1


class _Recording:
    """The database, recording the heartbeat_milliseconds of each read function call."""

    def __init__(self, database: Any) -> None:
        self.database = database
        self.heartbeats: list[int] = []

    def snapshot(self) -> Any:
        recording, snapshot = self, self.database.snapshot()

        class _Snapshot:
            def __enter__(self) -> Any:
                inner = snapshot.__enter__()

                def execute_sql(sql: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
                    if params is not None and "hb" in params:
                        recording.heartbeats.append(params["hb"])
                    return inner.execute_sql(sql, params=params, **kw)

                return SimpleNamespace(execute_sql=execute_sql)

            def __exit__(self, *exc: object) -> None:
                snapshot.__exit__(*exc)

        return _Snapshot()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.database, name)


def test_heartbeat_and_readers_follow_their_knobs_live(local_spanner: LocalTarget) -> None:
    """Issue 29's live knobs: a patched heartbeat is the heartbeat_milliseconds of the reads from then on,
    and a second reader (watchers 1 -> 2) receives the changes committed after it started, as the
    first does: 3 commits before the patch and 3 after are 3 + 2 x 3 received changes."""
    knobs = {"hb": {"default": 1000, "min": 100, "max": 300000}, "readers": {"default": 1, "min": 1, "max": 4}}
    watch = {"heartbeat": "$hb", "watchers": "$readers"}
    with _watched_table(local_spanner, "knobs", watch, knobs) as (definition, database):
        db = _Recording(database)
        stats = WorkerStats()
        watcher = ChangeStreamWatcher(
            lambda: db, definition, {"hb": 1000, "readers": 1}, stats, dt.datetime.now(dt.UTC)
        )
        watcher.start()

        def commit(first: int) -> None:
            with db.database.batch() as b:
                b.insert("T", ["Id", "Ts"], [[first + i, spanner_v1.COMMIT_TIMESTAMP] for i in range(3)])

        commit(0)
        watcher.apply({"hb": 250, "readers": 2})
        commit(10)
        watcher.stop_and_drain()
        counters, errors, _ = stats.take()
    assert errors == {}
    assert counters[Counter.RECEIVED_CHANGES] == 3 + 2 * 3
    assert db.heartbeats[0] == 1000 and db.heartbeats[-1] == 250
    assert db.heartbeats == sorted(db.heartbeats, reverse=True)  # 1000 until the patch, 250 from then on


def test_every_reader_of_the_start_reads_from_the_runs_start(local_spanner: LocalTarget) -> None:
    """Two readers from the start: both read from the run's start, so a commit made between it and the
    watcher's start (another worker's writers begin on their own) reaches each: 3 rows, 2 x 3 changes.
    A reader added later by a live change starts when it is added (the test above)."""
    with _watched_table(local_spanner, "two", {"heartbeat": "100ms", "watchers": 2}) as (definition, db):
        stats = WorkerStats()
        watcher = ChangeStreamWatcher(lambda: db, definition, {}, stats, dt.datetime.now(dt.UTC))  # creates the stream
        with db.batch() as b:  # committed before the watcher starts, after the run's start
            b.insert("T", ["Id", "Ts"], [[i, spanner_v1.COMMIT_TIMESTAMP] for i in range(3)])
        watcher.start()
        watcher.stop_and_drain()
        counters, errors, _ = stats.take()
    assert errors == {}
    assert counters[Counter.RECEIVED_CHANGES] == 2 * 3
