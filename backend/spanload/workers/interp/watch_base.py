"""What a definition's two watch modes share (``poll``, watch.py; ``change_stream``,
watch_stream.py): the watched definition, the run's start time and pause, and the life cycle of
their followers (started once; resized to ``watchers`` under the lock, live), and the ledger of
versions received (``watch.versions``) that the run's reconciliation reads."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

from google.cloud.spanner_v1 import param_types

from spanload.model.workload import Watch, WorkloadDefinition
from spanload.spanner import deadline
from spanload.workers.interp.ledger import FreshKeys, SeenLedger, writer_id
from spanload.workers.stats import WorkerStats


class WatchFollowers:
    def __init__(
        self, database: Callable[[], Any], definition: WorkloadDefinition, stats: WorkerStats, start_ts: dt.datetime
    ) -> None:
        assert definition.watch is not None
        self.database = database
        self.definition = definition
        self.watch = definition.watch
        self.stats = stats
        self._start_ts = start_ts
        self._paused = False
        self._started = False
        self._lock = threading.Lock()
        self.seen: SeenLedger | None = None  # set with watch.versions: the versions received

    @property
    def paused(self) -> bool:
        return self._paused

    def set_paused(self, paused: bool) -> None:
        self._paused = paused

    @property
    def start_ts(self) -> dt.datetime:
        return self._start_ts

    def set_start(self, start_ts: dt.datetime) -> None:
        self._start_ts = start_ts

    def start(self) -> None:
        with self._lock:
            self._started = True
            self._resize_locked()

    def _resize_locked(self) -> None:
        """As many followers as ``watchers`` (called with the lock held)."""
        raise NotImplementedError


def versioned_key(database: Any, watch: Watch, key: list[str], pg: bool) -> str:
    """The watched table's key column when ``watch.versions`` is set: exactly one INT64 column
    (the ledgers count by key). Raises ValueError naming watch.versions otherwise."""
    if len(key) != 1:
        raise ValueError(
            f"watch.versions: the watched table's key must be one INT64 column; {watch.table}'s is ({', '.join(key)})"
        )
    schema, table, column = ("public", "$1", "$2") if pg else ("", "@table", "@column")
    sql = (
        f"SELECT SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '{schema}' "
        f"AND TABLE_NAME = {table} AND COLUMN_NAME = {column}"
    )
    names = ("p1", "p2") if pg else ("table", "column")
    params = dict(zip(names, (watch.table, key[0]), strict=True))
    with deadline.operation(), database.snapshot() as snapshot:
        rows = list(snapshot.execute_sql(sql, params=params, param_types=dict.fromkeys(names, param_types.STRING)))
    found = str(rows[0][0]) if rows else "missing"
    if found.upper() not in ("INT64", "BIGINT"):
        raise ValueError(
            f"watch.versions: the watched table's key must be one INT64 column; {watch.table}.{key[0]} is {found}"
        )
    return key[0]


def seen_ledger(run_id: str, workers: int) -> SeenLedger:
    """The watching worker's ledger of what it received from the run's writers."""
    return SeenLedger({writer_id(run_id, i) for i in range(workers)}, FreshKeys(run_id, workers))
