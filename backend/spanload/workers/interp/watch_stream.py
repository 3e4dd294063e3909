"""A definition's ``watch`` in ``change_stream`` mode (workloads/README.md, "Watch").

The watcher reads a change stream on the watched table (``watch.stream``, created when missing)
through the stream's read function: the initial query names the partitions, a reader thread per
partition streams its data change records and hands off to the children a child partitions record
names. Each of ``watchers`` followers sees every change, as that many clients would. A reader asks
for a window of ``WINDOW_S`` at a time (the query returns at the window's end), so that a stop is
seen within a window; the drain reads every open partition up to the time the writers stopped.

Every mod of a data change record is one received change; its notification latency is the time it
was received minus its commit timestamp ("watcher.notify"), as in ``poll`` mode.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from google.cloud.spanner_v1 import param_types

from spanload.model.pacing import knob_duration_ms
from spanload.model.protocol import Counter
from spanload.model.samples import Gauge, Op
from spanload.model.workload import Dialect, KnobValue, Watch, WorkloadDefinition
from spanload.spanner import deadline
from spanload.workers.interp.poll_loop import DRAIN_GIVE_UP_S, ERROR_BACKOFF_S, US_PER_S, DrainError, to_unix
from spanload.workers.interp.watch import primary_key
from spanload.workers.interp.watch_base import WatchFollowers, versioned_key
from spanload.workers.stats import WorkerStats

logger = logging.getLogger(__name__)

WINDOW_S = 2.0
ONE_US = dt.timedelta(microseconds=1)
MIN_HEARTBEAT_MS = 100  # Spanner's bounds of heartbeat_milliseconds
MAX_HEARTBEAT_MS = 300_000


def read_sql(stream: str) -> str:
    return (
        f"SELECT ChangeRecord FROM READ_{stream} (start_timestamp => @start, end_timestamp => @end, "
        "partition_token => @token, heartbeat_milliseconds => @hb)"
    )


READ_TYPES = {
    "start": param_types.TIMESTAMP,
    "end": param_types.TIMESTAMP,
    "token": param_types.STRING,
    "hb": param_types.INT64,
}


def ensure_stream(database: Any, watch: Watch, pg: bool = False) -> tuple[str, bool]:
    """The stream's name, after creating it on ``watch.table`` (``Watch.stream_ddl``) if the
    database has none of that name (then True: it can be read from its creation on only)."""
    name = watch.stream_name()
    sql = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.CHANGE_STREAMS WHERE CHANGE_STREAM_NAME = @name"
    with deadline.operation(), database.snapshot() as snap:
        ((found,),) = list(snap.execute_sql(sql, params={"name": name}, param_types={"name": param_types.STRING}))
    if not found:
        ddl = watch.stream_ddl(Dialect.POSTGRESQL if pg else Dialect.GOOGLESQL)
        database.update_ddl([ddl]).result(60)
    return name, not found


def server_now(database: Any) -> dt.datetime:
    with deadline.operation(), database.snapshot() as snap:
        ((now,),) = list(snap.execute_sql("SELECT CURRENT_TIMESTAMP()"))
    value: dt.datetime = now
    return value


def _json(value: Any) -> dict[str, Any]:
    """A mod's JSON object (the client gives a JsonObject, or its text)."""
    if value is None:
        return {}
    if isinstance(value, str):
        return dict(json.loads(value))
    return dict(value)


class _Follower:
    """One client of the stream: every partition's reader, and where each has read to."""

    def __init__(self, watcher: ChangeStreamWatcher, index: int, start: dt.datetime) -> None:
        self.watcher = watcher
        self.index = index
        self.name = f"stream-{index}"
        self.start = start
        self.lock = threading.Lock()
        self.open: dict[str, dt.datetime] = {}  # partition token -> read up to (exclusive)
        self.threads: list[threading.Thread] = []
        self.stop_event = threading.Event()
        self.last_error: str | None = None
        self.reading: dict[str, threading.Lock] = {}  # token -> held while a read of it runs

    def begin(self) -> None:
        t = threading.Thread(target=self._initial, name=self.name, daemon=True)
        self.threads.append(t)
        t.start()

    def _initial(self) -> None:
        while not self.stop_event.is_set():
            try:
                for kind, rec in self.watcher.read(self.start, self.start, None):
                    if kind == "children":
                        self._adopt(rec)
                return
            except Exception as err:
                self._failed(err)

    def _adopt(self, rec: Any) -> None:
        """Start a reader for each child partition a child partitions record names."""
        start, children = rec[0], rec[2]
        for child in children:
            token = child[0]
            with self.lock:
                if token in self.open:
                    continue
                self.open[token] = start
            if self.stop_event.is_set():
                continue
            t = threading.Thread(target=self._follow, args=(token,), name=f"{self.name}-part", daemon=True)
            with self.lock:
                self.threads.append(t)
            t.start()

    def _failed(self, err: Exception) -> None:
        self.watcher.stats.failed(Op.WATCHER_POLL_FAILED, err, 0)
        self.last_error = str(err)
        logger.debug("%s: stream read failed: %s", self.name, err)
        self.stop_event.wait(ERROR_BACKOFF_S)

    def _follow(self, token: str) -> None:
        while not self.stop_event.is_set():
            try:
                if self.read_window(token, None):
                    return
            except Exception as err:
                self._failed(err)

    def read_window(self, token: str, until: dt.datetime | None) -> bool:
        """Read the partition from where it is to ``until`` (default: a window from now); True
        when the partition ended (its children are adopted). One read of a partition at a time: a
        drain waits for the window a stopped reader still has open (its join timed out)."""
        with self.lock:
            reading = self.reading.setdefault(token, threading.Lock())
        with reading:
            return self._read_window(token, until)

    def _read_window(self, token: str, until: dt.datetime | None) -> bool:
        with self.lock:
            if token not in self.open:  # it ended in the read this one waited for
                return True
            cursor = self.open[token]
        if until is not None and cursor > until:  # that read went past until
            return False
        end = until or max(dt.datetime.now(dt.UTC), cursor) + dt.timedelta(seconds=WINDOW_S)
        ended = False
        for kind, rec in self.watcher.read(cursor, end, token):
            if kind == "data":
                self.watcher.received(rec, self.index == 0)
                with self.lock:
                    self.open[token] = max(self.open[token], rec[0] + ONE_US)
            elif kind == "heartbeat":
                with self.lock:
                    self.open[token] = max(self.open[token], rec[0] + ONE_US)
            else:
                ended = True
                self._adopt(rec)
        with self.lock:
            if ended:
                del self.open[token]
            else:
                self.open[token] = max(self.open[token], end + ONE_US)
        return ended

    def slowest(self) -> dt.datetime | None:
        with self.lock:
            return min(self.open.values(), default=None)

    def newest(self) -> dt.datetime | None:
        """The farthest a partition has read to (exclusive): every change received is before it."""
        with self.lock:
            return max(self.open.values(), default=None)

    def stop(self) -> None:
        self.stop_event.set()

    def join(self, timeout: float) -> None:
        deadline_at = time.monotonic() + timeout
        while True:
            with self.lock:
                alive = [t for t in self.threads if t.is_alive()]
            if not alive:
                return
            alive[0].join(max(0.0, deadline_at - time.monotonic()))
            if time.monotonic() >= deadline_at:
                return

    def drain(self, until: dt.datetime) -> None:
        """Read every open partition, and the children they end in, up to ``until``."""
        give_up = time.monotonic() + DRAIN_GIVE_UP_S
        while True:
            with self.lock:
                pending = [t for t, at in self.open.items() if at <= until]
            if not pending:
                return
            for token in pending:
                try:
                    self.read_window(token, until)
                except Exception as err:
                    if time.monotonic() > give_up:
                        raise DrainError(f"{self.name}: could not read the change stream: {err}") from err
                    self._failed(err)


class ChangeStreamWatcher(WatchFollowers):
    """``watch.watchers`` followers of the watched table's change stream, each seeing every change."""

    def __init__(
        self,
        database: Callable[[], Any],
        definition: WorkloadDefinition,
        knobs: dict[str, KnobValue],
        stats: WorkerStats,
        start_ts: dt.datetime,
    ) -> None:
        super().__init__(database, definition, stats, start_ts)
        pg = definition.dialect is Dialect.POSTGRESQL
        if self.watch.versions is not None:
            versioned_key(database(), self.watch, self.watch.key or primary_key(database(), self.watch.table, pg), pg)
        self.stream, created = ensure_stream(database(), self.watch, pg)
        self.next_sql = read_sql(self.stream)
        # a stream created now is read from its creation on (Spanner refuses an earlier start)
        self.created_at = server_now(database()) if created else None
        self._start_ts = self.created_at or start_ts
        self._followers: list[_Follower] = []
        self.apply(knobs)

    def apply(self, knobs: dict[str, KnobValue]) -> None:
        d = self.definition
        hb = int(knob_duration_ms(d, knobs, self.watch.heartbeat))
        self.heartbeat_ms = min(MAX_HEARTBEAT_MS, max(MIN_HEARTBEAT_MS, hb))
        self.watchers = max(1, int(d.numeric_knob(self.watch.watchers, knobs)))
        with self._lock:
            if self._started:
                self._resize_locked()

    def _resize_locked(self) -> None:
        """As many followers as ``watchers``: those of the start read from the run's start (the other
        workers may have written before this one began); one added later starts now; the last ones go."""
        while len(self._followers) > self.watchers:
            self._followers.pop().stop()
        initial = not self._followers
        while len(self._followers) < self.watchers:
            start = self._start_ts if initial else dt.datetime.now(dt.UTC)
            follower = _Follower(self, len(self._followers), start)
            self._followers.append(follower)
            follower.begin()

    def read(self, start: dt.datetime, end: dt.datetime, token: str | None) -> Any:
        """The records of one read function call, as (kind, record) pairs, as they arrive."""
        while self._paused:
            time.sleep(0.05)
        params = {"start": start, "end": end, "token": token, "hb": self.heartbeat_ms}
        with self.database().snapshot() as snap:
            for row in snap.execute_sql(self.next_sql, params=params, param_types=READ_TYPES):
                for data, beats, children in row[0]:
                    for rec in data:
                        yield "data", rec
                    for rec in beats:
                        yield "heartbeat", rec
                    for rec in children:
                        yield "children", rec

    def received(self, rec: Any, first: bool = True) -> None:
        """One data change record: each of its mods is a change received now. The first follower's
        also go to the ledger of versions received (``watch.versions``): the version and writer in
        the mod's new values, none for a delete (counted foreign)."""
        seen_at = time.time()
        mods = len(rec[6])
        latency = (seen_at - to_unix(rec[0])) * US_PER_S
        self.stats.recorder.record_many(Op.WATCHER_NOTIFY, [latency] * mods)
        self.stats.count(Counter.RECEIVED_CHANGES, mods)
        if first and self.seen is not None and self.watch.versions is not None:
            version, writer = self.watch.versions.version, self.watch.versions.writer
            for keys, new_values, _ in rec[6]:
                (key,) = _json(keys).values()
                new = _json(new_values) or {}
                seen = new.get(version)
                self.seen.saw(int(key), None if seen is None else int(seen), new.get(writer))

    def stop(self) -> None:
        with self._lock:
            followers = list(self._followers)
        for f in followers:
            f.stop()
        for f in followers:
            f.join(WINDOW_S + 3)

    def stop_and_drain(self) -> None:
        """Stop the readers, then read every open partition up to now: called after every writer
        stopped, every follower has then seen every change."""
        until = dt.datetime.now(dt.UTC)
        self.stop()
        for f in self._followers:
            f.drain(until)

    def set_start(self, start_ts: dt.datetime) -> None:
        """Read from ``start_ts`` (inclusive), or from the stream's creation if it was created later."""
        super().set_start(max(start_ts, self.created_at) if self.created_at is not None else start_ts)

    def hand_over(self, now: dt.datetime) -> dt.datetime:
        """Stop reading for a switch to polling and return the hand-over timestamp H (``now``, or
        where a partition has read to if later): every change committed up to H has been received,
        none after it. The stream's read function returns a window's records only once every commit
        up to its end is in (unlike a strong read's timestamp, which a commit in flight may precede)."""
        self.stop()
        with self._lock:
            followers = list(self._followers)
        until = max([now] + [m for f in followers if (m := f.newest()) is not None])
        for f in followers:
            f.drain(until)
        return until

    def gauges(self) -> dict[str, float]:
        """The watcher lag: how far behind now its slowest partition has read."""
        marks = [m for f in self._followers if (m := f.slowest()) is not None]
        if not marks:
            return {}
        return {Gauge.WATCHER_LAG_MS: max(0.0, (time.time() - to_unix(min(marks))) * 1000)}
