"""A definition's ``watch``: poll a table by its commit-timestamp column (workloads/README.md, "Watch").

Each of ``watchers`` pollers keeps the last (commit timestamp, key) it has seen and asks, in a
strong read, for the rows after it in (timestamp, key) order, ``limit`` rows a poll, every
``poll_interval`` (at once again after a full page), as the Change Watcher's watcher does for its
own table (:mod:`spanload.workers.watcher`), but for any table: the key is ``watch.key`` or the
table's primary key from INFORMATION_SCHEMA. A change's notification latency is the time it was
received minus its commit timestamp ("watcher.notify"); each poll's time is "watcher.poll".
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import Any

from google.cloud.spanner_v1 import param_types
from google.cloud.spanner_v1.types import Type

from spanload.model import tags
from spanload.model.pacing import knob_duration_ms
from spanload.model.protocol import Counter
from spanload.model.samples import Gauge, Op
from spanload.model.workload import Dialect, KnobValue, Watch, WorkloadDefinition
from spanload.spanner import client as spanner_client
from spanload.spanner import deadline, request_tags, timing
from spanload.workers.interp.poll_loop import US_PER_S, PollLoop, to_unix
from spanload.workers.interp.watch_base import WatchFollowers, versioned_key
from spanload.workers.lag import LagMeter
from spanload.workers.stats import WorkerStats

logger = logging.getLogger(__name__)


def primary_key(database: Any, table: str, pg: bool = False) -> list[str]:
    """The key columns of ``table``, in key order (``pg``: of a PostgreSQL database, whose tables
    are in schema public and whose parameters are $1...)."""
    schema, name = ("public", "$1") if pg else ("", "@table")
    sql = (
        f"SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA = '{schema}' "
        f"AND TABLE_NAME = {name} AND INDEX_NAME = 'PRIMARY_KEY' ORDER BY ORDINAL_POSITION"
    )
    param = _param_name("table", pg)
    with deadline.operation(), database.snapshot() as snapshot:
        rows = list(snapshot.execute_sql(sql, params={param: table}, param_types={param: param_types.STRING}))
    if not rows:
        raise ValueError(f"watch.table: no table {table!r} (or it has no primary key)")
    return [str(r[0]) for r in rows]


_PG_PARAMS = {"table": "p1", "ts": "p1", "limit": "p2"}  # the key parts k<i> are p<3+i>


def _param_name(name: str, pg: bool) -> str:
    """A poll parameter's name on the wire: itself in GoogleSQL, p<n> for PostgreSQL's $<n>."""
    if not pg:
        return name
    return _PG_PARAMS.get(name) or f"p{3 + int(name[1:])}"


def poll_statements(
    watch: Watch, key: list[str], pg: bool = False, index: str | None = None, shards: list[int] | None = None
) -> tuple[str, str]:
    """(the first poll: after ``@ts``; the next ones: after ``(@ts, @k0, @k1...)``), in PostgreSQL
    ``$1`` (ts), ``$2`` (limit), ``$3``... (the key's parts) when ``pg``; forced through ``index``
    (a table hint) when given, rows meeting ``watch.filter`` (and ``shards.column IN (shards)``)
    only. The columns: the key's, the timestamp, then ``versions``' two, then the shard column."""

    def p(name: str) -> str:
        return f"${_param_name(name, pg)[1:]}" if pg else f"@{name}"

    ts = watch.timestamp
    extra = [watch.versions.version, watch.versions.writer] if watch.versions is not None else []
    if watch.shards is not None:
        extra.append(watch.shards.column)
    columns = ", ".join([*key, ts, *extra])
    order = ", ".join([ts, *key])
    after_key = ""
    for i in reversed(range(len(key))):
        later = f"{key[i]} > {p(f'k{i}')}"
        after_key = later if not after_key else f"({later} OR ({key[i]} = {p(f'k{i}')} AND {after_key}))"
    hint = ""
    if index is not None:
        hint = f" /*@ FORCE_INDEX={index} */" if pg else f"@{{FORCE_INDEX={index}}}"
    where = f"{watch.filter} AND " if watch.filter else ""
    if watch.shards is not None and shards is not None:
        where += f"{watch.shards.column} IN ({', '.join(str(int(v)) for v in shards)}) AND "
    head = f"SELECT {columns} FROM {watch.table}{hint} WHERE {where}"
    tail = f" ORDER BY {order} LIMIT {p('limit')}"
    return (
        f"{head}{ts} > {p('ts')}{tail}",
        f"{head}{ts} >= {p('ts')} AND ({ts} > {p('ts')} OR {after_key}){tail}",
    )


Position = tuple[dt.datetime, int, tuple[Any, ...]]
"""How far a poller has read, in (timestamp, key) order: (ts, 0, key) after the row at (ts, key);
(ts, 1, ()) after every row at ts (where a poller starts: its first poll reads after ts)."""


class _Poller(PollLoop):
    def __init__(
        self,
        watcher: DefinitionWatcher,
        index: int,
        start_ts: dt.datetime,
        shards: list[int] | None = None,
        lag: LagMeter | None = None,
    ) -> None:
        super().__init__(f"watch-{index}", lag or LagMeter(time.monotonic()))
        self.watcher = watcher
        self.index = index
        self.shards = shards
        self.first_sql, self.next_sql = watcher.statements(shards)
        self.last_ts = start_ts
        self.last_key: list[Any] | None = None
        self.key_types: list[Type] = []
        self.skip: dict[int, Position] = {}  # shard -> how far the poller that had it before a regroup read
        self.until: dt.datetime | None = None  # a hand-over's bound: rows committed after it are not received

    def at(self) -> Position:
        return (self.last_ts, 1, ()) if self.last_key is None else (self.last_ts, 0, tuple(self.last_key))

    def paused(self) -> bool:
        return self.watcher.paused

    def interval_s(self) -> float:
        return self.watcher.poll_interval_s

    def position(self) -> tuple[dt.datetime, bool]:
        """How far this poller has read (a poller that has seen a row is past one at the same time)."""
        return self.last_ts, self.last_key is not None

    def poll_once(self) -> bool | None:
        """One poll; True if the page was full, None on error."""
        w = self.watcher
        limit = w.limit
        pg = w.pg
        ts, lim = _param_name("ts", pg), _param_name("limit", pg)
        params: dict[str, Any] = {ts: self.last_ts, lim: limit}
        types: dict[str, Any] = {ts: param_types.TIMESTAMP, lim: param_types.INT64}
        sql = self.first_sql
        started = time.monotonic()
        if self.last_key is not None:
            sql = self.next_sql
            for i, (value, t) in enumerate(zip(self.last_key, self.key_types, strict=True)):
                k = _param_name(f"k{i}", pg)
                params[k] = value
                if t is not None:  # a PostgreSQL driver's result does not say
                    types[k] = t
        # a hand-over's drain reads at its bound H: every commit up to H is in such a read (a strong
        # read's timestamp may precede a commit still in flight whose timestamp is at most H)
        at = {"read_timestamp": self.until} if self.until is not None else {}
        start = time.perf_counter()
        request_tags.use(tags.WATCHER)
        timing.begin()
        try:
            with deadline.operation(), w.database().snapshot(**at) as snapshot:
                result = snapshot.execute_sql(
                    sql, params=params, param_types=types, retry=deadline.rpc_retry(), timeout=deadline.rpc_timeout()
                )
                rows = list(result)
                fields = result.fields
        except Exception as err:
            w.stats.failed(Op.WATCHER_POLL_FAILED, err, (time.perf_counter() - start) * US_PER_S)
            timing.take()
            logger.debug("%s: poll failed: %s", self.name, err)
            self.last_error = spanner_client.status_text(err)
            return None
        w.stats.succeeded(Op.WATCHER_POLL, start)
        seen_at = time.time()
        w.stats.count(Counter.POLLS)
        w.stats.count(Counter.ROWS_POLLED, len(rows))
        keys = len(w.key)
        full = len(rows) >= limit
        if self.until is not None and rows and rows[-1][keys] > self.until:  # (ts, key) order: a prefix
            rows, full = [r for r in rows if r[keys] <= self.until], False
        if rows:
            received = self._new(rows, keys) if self.skip else rows
            if received:
                w.stats.recorder.record_many(
                    Op.WATCHER_NOTIFY, [(seen_at - to_unix(r[keys])) * US_PER_S for r in received]
                )
                w.stats.count(Counter.RECEIVED_CHANGES, len(received))
                seen = w.seen
                if seen is not None and (self.shards is not None or self.index == 0):
                    for r in received:
                        seen.saw(int(r[0]), None if r[keys + 1] is None else int(r[keys + 1]), r[keys + 2])
            last = rows[-1]
            self.last_ts, self.last_key = last[keys], list(last[:keys])
            self.key_types = [f.type_ for f in fields[:keys]]
        self.lag.polled(started, time.monotonic(), full)
        return full

    def _new(self, rows: list[Any], keys: int) -> list[Any]:
        """The rows not already received by the poller that had their shard before a regroup."""
        out = []
        for r in rows:
            before = self.skip.get(r[-1])
            if before is None or (r[keys], 0, tuple(r[:keys])) > before:
                out.append(r)
        return out


class DefinitionWatcher(WatchFollowers):
    """``watch.watchers`` pollers of the watched table, each seeing every change; or, with
    ``watch.shards``, each its own values of the shard column."""

    def __init__(
        self,
        database: Callable[[], Any],
        definition: WorkloadDefinition,
        knobs: dict[str, KnobValue],
        stats: WorkerStats,
        start_ts: dt.datetime,
    ) -> None:
        super().__init__(database, definition, stats, start_ts)
        self.pg = definition.dialect is Dialect.POSTGRESQL
        self.key = self.watch.key or primary_key(database(), self.watch.table, self.pg)
        if self.watch.versions is not None:
            versioned_key(database(), self.watch, self.key, self.pg)
        self._pollers: list[_Poller] = []
        self.apply(knobs)

    def statements(self, shards: list[int] | None) -> tuple[str, str]:
        """A poller's (first, next) poll statements, for its shard values."""
        return poll_statements(self.watch, self.key, self.pg, self._index, shards)

    def apply(self, knobs: dict[str, KnobValue]) -> None:
        """New knob values; a new hint (``force_index``) or limit applies from the next poll on, a new
        poll interval at once."""
        watch, d = self.watch, self.definition
        self._index = watch.hinted(knobs, d.knobs)
        shards = watch.shards.values if watch.shards is not None else None
        self.first_sql, self.next_sql = self.statements(shards)
        interval_s = knob_duration_ms(d, knobs, watch.poll_interval) / 1000
        # only a new interval wakes the pollers: waking shifts their phase, which moves the lag
        wake = interval_s != getattr(self, "poll_interval_s", interval_s)
        self.poll_interval_s = interval_s
        self.limit = max(1, int(d.numeric_knob(watch.limit, knobs)))
        self.watchers = max(1, int(d.numeric_knob(watch.watchers, knobs)))
        with self._lock:
            for poller in self._pollers:
                poller.first_sql, poller.next_sql = self.statements(poller.shards)
            if self._started:
                self._resize_locked()
            for poller in self._pollers if wake else ():
                poller.wake.set()

    def _resize_locked(self) -> None:
        if self.watch.shards is not None:
            self._regroup_locked(self.watch.shards.values)
        else:
            self._add_or_stop_locked()

    def _regroup_locked(self, values: list[int]) -> None:
        """Split ``values`` between ``watchers`` pollers (poller i: values[i::watchers]). On a change,
        stop the pollers and restart from the oldest position any had: nothing is missed; the rows a
        shard's previous poller had already read are read again but skipped: none is counted twice."""
        groups = min(self.watchers, len(values))
        if len(self._pollers) == groups:
            return
        old = self._pollers
        for poller in old:
            poller.stop_event.set()
            poller.wake.set()
        for poller in old:
            poller.join()
        reached: dict[int, Position] = {}
        for poller in old:
            assert poller.shards is not None
            for shard in poller.shards:
                reached[shard] = max(poller.at(), poller.skip.get(shard, poller.at()))
        oldest = min(old, key=lambda p: p.at(), default=None)
        caught_up = min((p.lag.caught_up for p in old), default=time.monotonic())
        self._pollers = []
        for i in range(groups):
            mine = values[i::groups]
            poller = _Poller(self, i, self._start_ts, mine, LagMeter(caught_up))
            if oldest is not None:
                poller.last_ts, poller.last_key, poller.key_types = oldest.last_ts, oldest.last_key, oldest.key_types
                poller.skip = {s: reached[s] for s in mine if s in reached and reached[s] > oldest.at()}
            self._pollers.append(poller)
        for poller in self._pollers:
            poller.start()

    def _add_or_stop_locked(self) -> None:
        """As many pollers as ``watchers``: a new one starts where the most advanced one is (it
        sees the changes from then on); the last ones go."""
        while len(self._pollers) > self.watchers:
            poller = self._pollers.pop()
            poller.stop_event.set()
            poller.wake.set()
        if len(self._pollers) < self.watchers:
            ahead = max(self._pollers, key=lambda p: p.position(), default=None)
            while len(self._pollers) < self.watchers:
                poller = _Poller(self, len(self._pollers), self._start_ts)
                if ahead is not None:
                    poller.last_ts, poller.last_key, poller.key_types = ahead.last_ts, ahead.last_key, ahead.key_types
                self._pollers.append(poller)
                poller.start()

    def stop(self) -> None:
        with self._lock:
            pollers = list(self._pollers)
        for poller in pollers:
            poller.stop_event.set()
            poller.wake.set()
        for poller in pollers:
            poller.join(5)

    def stop_and_drain(self) -> None:
        """Stop polling on the interval, then poll each poller until a page is not full: called
        after every writer stopped, every poller has then seen every change. Raises
        :class:`~spanload.workers.interp.poll_loop.DrainError` when the target cannot be polled."""
        self.stop()
        for poller in self._pollers:
            poller.drain()

    def hand_over(self, floor: dt.datetime | None = None) -> dt.datetime:
        """Stop polling for a switch to a change stream and return the hand-over timestamp H: every
        change committed up to H has been received, none after it. The pollers drain; H is the newest
        commit timestamp any received (or ``floor``, the stream's creation, if later): every commit up
        to it is then visible (a strong read sees a commit only with every earlier one), and each
        poller drains again up to H, so pollers of other shards catch up to it too. Raises
        :class:`~spanload.workers.interp.poll_loop.DrainError` when the target cannot be polled."""
        self.stop()
        for poller in self._pollers:
            poller.drain()
        until = max([p.last_ts for p in self._pollers] + ([floor] if floor is not None else []))
        for poller in self._pollers:
            poller.until = until
            poller.drain()
        return until

    def gauges(self) -> dict[str, float]:
        """The watcher lag of the interval that ends now (workers/lag.py): its slowest poller's."""
        now = time.monotonic()
        lags = [lag for p in self._pollers if (lag := p.lag.take(now)) is not None]
        return {Gauge.WATCHER_LAG_MS: max(lags) * 1000} if lags else {}
