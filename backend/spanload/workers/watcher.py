"""The watcher: the Change Watcher's commit-timestamp poller, one thread per shard group.

Each group keeps the last (commit timestamp, key) it has seen and asks, in a strong read, for the
rows after it in (LastUpdated, key) order. A strong read sees every commit up to its read
timestamp and every later commit gets a later timestamp, so paging on (timestamp, key) can
neither miss a change nor see one twice, even when a page ends inside one commit's rows.
A full page (``limit`` rows) triggers the next poll at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from google.cloud.spanner_v1 import param_types

from spanload.model import tags
from spanload.model.config import SHARD_COUNT, ShardFilter, WatcherConfig
from spanload.model.protocol import Counter
from spanload.model.samples import Gauge, Op
from spanload.spanner import client as spanner_client
from spanload.spanner import deadline, request_tags, timing
from spanload.spanner.schemas import SchemaSpec
from spanload.workers.interp.ledger import SeenLedger
from spanload.workers.interp.poll_loop import US_PER_S, PollLoop, to_unix
from spanload.workers.lag import LagMeter
from spanload.workers.stats import WorkerStats

logger = logging.getLogger(__name__)

SHARD_VALUES = tuple(range(-(SHARD_COUNT // 2), SHARD_COUNT // 2 + 1))  # -18..18


def shard_groups(watchers: int) -> list[list[int]]:
    """The 37 shard values split round-robin between ``watchers`` groups (every value exactly once)."""
    return [list(SHARD_VALUES[i::watchers]) for i in range(watchers)]


def poll_sql(schema: SchemaSpec, config: WatcherConfig) -> str:
    """The poll query for one shard group. ``@shards``, ``@ts``, ``@key`` and ``@limit`` are bound.

    ``LastUpdated >= @ts`` stands alone so that the index can seek to it; the rest of the
    (timestamp, key) comparison filters the rows at exactly ``@ts``.
    """
    hint = f"@{{FORCE_INDEX={schema.index}}}" if config.table_hint else ""
    match config.shard_filter:
        case ShardFilter.FIXED:
            shard = "ShardId IN UNNEST(@shards) AND "
        case ShardFilter.NOT_NULL:
            shard = "ShardId IS NOT NULL AND "
        case ShardFilter.NONE:
            shard = ""
    return (
        f"SELECT {schema.key}, Version, WriterId, LastUpdated, ShardId FROM {schema.table}{hint} "
        f"WHERE {shard}LastUpdated >= @ts AND (LastUpdated > @ts OR {schema.key} > @key) "
        f"ORDER BY LastUpdated, {schema.key} LIMIT @limit"
    )


class _Group(PollLoop):
    """Polls one shard group until stopped; after ``drain`` it polls until a page is not full."""

    def __init__(self, watcher: Watcher, index: int, shards: list[int], start_ts: dt.datetime, lag: LagMeter) -> None:
        super().__init__(f"watcher-{index}", lag)
        self.watcher = watcher
        self.shards = shards
        self.last_ts = start_ts
        self.last_key = -(1 << 63)
        self.skip: dict[int, tuple[dt.datetime, int]] = {}  # shard -> position a previous group reached

    def paused(self) -> bool:
        return self.watcher.paused

    def interval_s(self) -> float:
        return self.watcher.config.poll_interval_ms / 1000

    def poll_once(self) -> bool | None:
        """One poll; True if the page was full, None on error."""
        watcher = self.watcher
        config = watcher.config
        sql = poll_sql(watcher.schema, config)
        params: dict[str, Any] = {"ts": self.last_ts, "key": self.last_key, "limit": config.limit}
        types: dict[str, Any] = {
            "ts": param_types.TIMESTAMP,
            "key": param_types.INT64,
            "limit": param_types.INT64,
        }
        if config.shard_filter is ShardFilter.FIXED:
            params["shards"] = self.shards
            types["shards"] = param_types.Array(param_types.INT64)  # type: ignore[no-untyped-call]
        started = time.monotonic()
        start = time.perf_counter()
        request_tags.use(tags.WATCHER)
        timing.begin()
        try:
            with deadline.operation(), watcher.database().snapshot() as snapshot:
                rows = list(
                    snapshot.execute_sql(
                        sql,
                        params=params,
                        param_types=types,
                        retry=deadline.rpc_retry(),
                        timeout=deadline.rpc_timeout(),
                    )
                )
        except Exception as err:
            watcher.stats.failed(Op.WATCHER_POLL_FAILED, err, (time.perf_counter() - start) * US_PER_S)
            timing.take()
            logger.debug("%s: poll failed: %s", self.name, err)
            self.last_error = spanner_client.status_text(err)
            return None
        watcher.stats.succeeded(Op.WATCHER_POLL, start)
        seen_at = time.time()
        watcher.stats.count(Counter.POLLS)
        watcher.stats.count(Counter.ROWS_POLLED, len(rows))
        if rows:
            latencies = []
            for key, version, writer_id, last_updated, shard in rows:
                before = self.skip.get(shard)
                if before is not None and (last_updated, int(key)) <= before:
                    continue  # already received by the group that watched this shard before a regroup
                watcher.ledger.saw(int(key), None if version is None else int(version), writer_id)
                latencies.append((seen_at - to_unix(last_updated)) * US_PER_S)
            if latencies:
                watcher.stats.recorder.record_many(Op.WATCHER_NOTIFY, latencies)
                watcher.stats.count(Counter.RECEIVED_CHANGES, len(latencies))
            last = rows[-1]
            self.last_ts, self.last_key = last[3], int(last[0])
        full = len(rows) >= config.limit
        self.lag.polled(started, time.monotonic(), full)
        return full


class Watcher:
    """Runs ``config.watchers`` shard groups; a change of ``watchers`` regroups from the oldest position."""

    def __init__(
        self,
        database: Callable[[], Any],
        schema: SchemaSpec,
        config: WatcherConfig,
        stats: WorkerStats,
        ledger: SeenLedger,
        start_ts: dt.datetime,
    ) -> None:
        self.database = database
        self.schema = schema
        self.config = config
        self.stats = stats
        self.ledger = ledger
        self._run_paused = False
        self._groups: list[_Group] = []
        self._start_ts = start_ts
        self._lock = threading.Lock()

    @property
    def paused(self) -> bool:
        return self._run_paused or not self.config.enabled

    def set_start(self, start_ts: dt.datetime) -> None:
        """Watch from ``start_ts`` instead (before :meth:`start`): after a load phase, whose rows
        are not changes."""
        self._start_ts = start_ts

    def start(self) -> None:
        with self._lock:
            self._groups = self._make_groups(self.config.watchers, self._start_ts, -(1 << 63), time.monotonic())
            for group in self._groups:
                group.start()

    def _make_groups(self, watchers: int, ts: dt.datetime, key: int, caught_up: float) -> list[_Group]:
        groups = [_Group(self, i, shards, ts, LagMeter(caught_up)) for i, shards in enumerate(shard_groups(watchers))]
        for group in groups:
            group.last_key = key
            if self.config.shard_filter is not ShardFilter.FIXED:
                group.shards = list(SHARD_VALUES)
        return groups

    def apply(self, config: WatcherConfig) -> None:
        regroup = config.watchers != self.config.watchers or config.shard_filter != self.config.shard_filter
        new_interval = config.poll_interval_ms != self.config.poll_interval_ms
        self.config = config
        if regroup:
            self._regroup(config.watchers)
        if new_interval:
            # A new poll interval applies now, not after the old one. Other changes (the hint, the
            # limit) wait for the next poll: waking the groups would shift when they poll.
            for group in self._groups:
                group.wake.set()

    def _regroup(self, watchers: int) -> None:
        """Stop the groups and restart from the oldest position any of them had: nothing is missed.

        Rows between the oldest position and the one the old group of their shard had reached
        are read again but skipped, so nothing is counted twice either.
        """
        with self._lock:
            old = self._groups
            for group in old:
                group.stop_event.set()
                group.wake.set()
            for group in old:
                group.join()
            oldest = min(old, key=lambda g: (g.last_ts, g.last_key))
            reached = {shard: (g.last_ts, g.last_key) for g in old for shard in g.shards}
            caught_up = min(g.lag.caught_up for g in old)
            self._groups = self._make_groups(watchers, oldest.last_ts, oldest.last_key, caught_up)
            for group in self._groups:
                group.skip = {shard: reached[shard] for shard in group.shards if shard in reached}
            for group in self._groups:
                group.start()

    def set_paused(self, paused: bool) -> None:
        self._run_paused = paused

    def stop_and_drain(self) -> None:
        """Stop polling on the interval, then poll every group until it has seen everything."""
        with self._lock:
            for group in self._groups:
                group.stop_event.set()
                group.wake.set()
            for group in self._groups:
                group.join()
            for group in self._groups:
                group.drain()

    def stop(self) -> None:
        with self._lock:
            for group in self._groups:
                group.stop_event.set()
                group.wake.set()
            for group in self._groups:
                group.join(5)

    def gauges(self) -> dict[str, float]:
        """The watcher lag of the interval that ends now: its slowest group's (see workers/lag.py)."""
        now = time.monotonic()
        lags = [lag for g in self._groups if (lag := g.lag.take(now)) is not None]
        return {Gauge.WATCHER_LAG_MS: max(lags) * 1000} if lags else {}
