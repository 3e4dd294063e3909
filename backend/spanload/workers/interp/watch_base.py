"""What a definition's two watch modes share (``poll``, watch.py; ``change_stream``,
watch_stream.py): the watched definition, the run's start time and pause, and the life cycle of
their followers (started once; resized to ``watchers`` under the lock, live)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

from spanload.model.workload import WorkloadDefinition
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

    @property
    def paused(self) -> bool:
        return self._paused

    def set_paused(self, paused: bool) -> None:
        self._paused = paused

    def set_start(self, start_ts: dt.datetime) -> None:
        self._start_ts = start_ts

    def start(self) -> None:
        with self._lock:
            self._started = True
            self._resize_locked()

    def _resize_locked(self) -> None:
        """As many followers as ``watchers`` (called with the lock held)."""
        raise NotImplementedError
