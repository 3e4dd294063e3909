"""The reader: queries on the same open-loop schedule as the updater, with concurrency and think time.

Queries: ``point`` (one row by a random key), ``recent_changes`` (the newest rows) and
``leaderboard`` (the session-pool report's join of Players and Scores). ``staleness_s`` > 0 reads
at that exact staleness; 0 is a strong read.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
from collections.abc import Callable
from typing import Any

from google.cloud.spanner_v1 import param_types

from spanload.model import tags
from spanload.model.config import ReaderConfig, ReaderQuery
from spanload.model.protocol import Counter
from spanload.model.samples import Gauge, Op
from spanload.spanner import deadline, request_tags, timing
from spanload.spanner.schemas import SchemaSpec
from spanload.workers.pacing import PacedLoad, Pacer, share, share_threads
from spanload.workers.stats import WorkerStats

logger = logging.getLogger(__name__)

US_PER_S = 1_000_000
US_PER_MS = 1000
RECENT_WINDOW_S = 10.0


def read_statement(
    schema: SchemaSpec, query: ReaderQuery, rng: random.Random, key_space: int
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """SQL, params and param types for one read."""
    match query:
        case ReaderQuery.POINT:
            return schema.point_query, {"key": rng.randrange(key_space)}, {"key": param_types.INT64}
        case ReaderQuery.RECENT_CHANGES:
            if "@since" not in schema.recent_query:
                return schema.recent_query, {}, {}
            since = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=RECENT_WINDOW_S)
            return schema.recent_query, {"since": since}, {"since": param_types.TIMESTAMP}
        case ReaderQuery.LEADERBOARD:
            if schema.leaderboard_query is None:
                raise ValueError(f"schema {schema.kind.value!r} has no leaderboard query")
            return schema.leaderboard_query, {}, {}


class Reader(PacedLoad):
    def __init__(
        self,
        database: Callable[[], Any],
        schema: SchemaSpec,
        config: ReaderConfig,
        key_space: Callable[[], int],
        stats: WorkerStats,
        worker: int,
        workers: int,
    ) -> None:
        self._database = database
        self._schema = schema
        self.config = config
        self._key_space = key_space
        self._stats = stats
        self._worker = worker
        self._workers = workers
        self._rng = random.Random()
        pacer = Pacer(
            "reader",
            self._read,
            share(config.reads_per_second, worker, workers),
            share_threads(config.concurrency, worker, workers),
            think_time_s=config.think_time_ms / 1000,
        )
        super().__init__(pacer, config.enabled)

    def apply(self, config: ReaderConfig) -> None:
        self.config = config
        self._pacer.set_rate(share(config.reads_per_second, self._worker, self._workers))
        self._pacer.set_parallelism(share_threads(config.concurrency, self._worker, self._workers))
        self._pacer.set_think_time(config.think_time_ms / 1000)
        self.set_enabled(config.enabled)

    def gauges(self) -> dict[str, float]:
        return {Gauge.READER_TARGET_RPS: self._pacer.rate, Gauge.READER_BEHIND: float(self._pacer.behind)}

    def _read(self, intended: float, actual: float) -> None:
        config = self.config
        sql, params, types = read_statement(self._schema, config.query, self._rng, self._key_space())
        snapshot_args: dict[str, Any] = {}
        if config.staleness_s > 0:
            snapshot_args["exact_staleness"] = dt.timedelta(seconds=config.staleness_s)
        request_tags.use(tags.READER)
        timing.begin()
        try:
            with deadline.operation(), self._database().snapshot(**snapshot_args) as snapshot:
                rows = snapshot.execute_sql(
                    sql,
                    params=params or None,
                    param_types=types or None,
                    retry=deadline.rpc_retry(),
                    timeout=deadline.rpc_timeout(),
                )
                for _ in rows:
                    pass
        except Exception as err:
            self._stats.failed(Op.READER_READ_FAILED, err, (time.perf_counter() - actual) * US_PER_S)
            timing.take()
            logger.debug("read failed: %s", err)
            return
        self._stats.succeeded(Op.READER_READ, actual, intended)
        self._stats.count(Counter.READS)
