"""Where the time of an operation goes: per operation kind, its round trip split into parts.

Every operation kind of every run (``updater.txn``, ``reader.read``, ``watcher.poll``, ``tpcc.*``...)
gets the same breakdown, the PostgreSQL-interface TPC-C report's picture. A worker sums, per report
interval and operation kind, what it measured of each operation (:class:`OpTiming`); the aggregator
adds the workers' sums together and turns them into means per operation (:class:`Breakdown`):

| part | how | source |
|---|---|---|
| ``queue`` | intended start (the pacer's schedule) to actual start | measured |
| ``session_wait`` | time in the session pool's ``get()``; 0 with multiplexed sessions | measured, or not applicable |
| ``client`` | client library and network: round trip minus the parts above and the server's | derived |
| ``server`` | the server-timing headers of the operation's RPCs, summed | measured |

Once SPANNER_SYS has a complete minute of the operation's statements, ``server`` is split into
``server_frontend`` (server-timing minus query and commit time: derived) and ``query_commit``
(each statement's ``QUERY_STATS`` average latency times its executions per operation, plus
``TXN_STATS``' average commit latency times commits per operation: ``spanner_sys``).

With ``client.interface`` ``pgadapter`` the driver (psycopg, pgx) sees no server-timing: PGAdapter
receives it. There the round trip is the driver's, and the part after queue and session wait is split
into ``pgadapter`` (PGAdapter's own time, with the Java client library and the network behind it:
derived, the driver's round trip minus what the server measured of the same statements) and the
server's parts as SPANNER_SYS measured them (``query_commit``); ``client`` and ``server_frontend``
are then not measured (0). The run's summary prices its statements minute by minute
(:func:`pgadapter_by_minute`): each whole minute inside the measured phase prices that minute's own
statements and commits, and the parts are means over the operations of the minutes so priced; a
report interval's own minute has not closed when it is shown, so an interval is not split. Before
SPANNER_SYS has such a minute, nothing of the server is known: ``pgadapter`` holds everything after
the queue and ``server`` says not measured. :func:`pgadapter_ms` is the one computation of
PGAdapter's part.

The parts add up to the round trip (intended start to end) exactly, by construction of the
derived parts; the round trip itself is measured twice (these sums, and the ``<op>_intended``
histogram), which is how a test checks the sums against an independent measurement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum

from pydantic import BaseModel, Field

US_PER_MS = 1000.0
MAX_STATEMENTS = 64  # distinct statement texts kept per operation kind and interval
MAX_STATEMENT_CHARS = 4000


class Part(StrEnum):
    QUEUE = "queue"
    SESSION_WAIT = "session_wait"
    PGADAPTER = "pgadapter"  # the pgadapter interface only: PGAdapter's own time, derived
    CLIENT = "client"
    SERVER = "server"
    SERVER_FRONTEND = "server_frontend"
    QUERY_COMMIT = "query_commit"


class Source(StrEnum):
    """How a part's value was obtained."""

    MEASURED = "measured"
    DERIVED = "derived"  # a difference of measured values
    SPANNER_SYS = "spanner_sys"  # the target's SPANNER_SYS statistics (per-minute averages)
    NOT_APPLICABLE = "not_applicable"  # e.g. session wait with multiplexed sessions: 0
    NOT_MEASURED = "not_measured"  # the worker's client does not expose it: 0 here, inside ``client``


class SessionWait(StrEnum):
    MEASURED = "measured"
    NOT_APPLICABLE = "not_applicable"
    NOT_MEASURED = "not_measured"


class OpTiming(BaseModel):
    """One worker's sums over the successful operations of one kind in one report interval (us)."""

    count: int = Field(0, ge=0, description="operations summed")
    total_us: float = Field(0.0, ge=0, description="intended start to end")
    queue_us: float = Field(0.0, ge=0, description="intended start to actual start")
    session_us: float = Field(0.0, ge=0, description="waiting for a pooled session")
    session_wait: SessionWait = SessionWait.NOT_MEASURED
    server_us: float = Field(0.0, ge=0, description="server-timing, summed over each operation's RPCs")
    server_count: int = Field(0, ge=0, description="operations whose RPCs carried server-timing")
    statements: dict[str, int] = Field(
        default_factory=dict, description="SQL text -> executions (ExecuteSql, ExecuteStreamingSql, batch DML)"
    )
    commits: int = Field(0, ge=0, description="Commit RPCs")

    def add(self, other: OpTiming) -> None:
        self.count += other.count
        self.total_us += other.total_us
        self.queue_us += other.queue_us
        self.session_us += other.session_us
        self.server_us += other.server_us
        self.server_count += other.server_count
        self.commits += other.commits
        self.session_wait = _merge_session(self.session_wait, other.session_wait)
        for text, n in other.statements.items():
            if text in self.statements or len(self.statements) < MAX_STATEMENTS:
                self.statements[text] = self.statements.get(text, 0) + n


def _merge_session(a: SessionWait, b: SessionWait) -> SessionWait:
    if SessionWait.MEASURED in (a, b):
        return SessionWait.MEASURED
    if SessionWait.NOT_MEASURED in (a, b):
        return SessionWait.NOT_MEASURED
    return SessionWait.NOT_APPLICABLE


def merge_timings(maps: Iterable[Mapping[str, OpTiming]]) -> dict[str, OpTiming]:
    """Sum several ``{op: OpTiming}`` maps (workers, or intervals) into a new one."""
    out: dict[str, OpTiming] = {}
    for timings in maps:
        for op, timing in timings.items():
            out.setdefault(op, OpTiming(session_wait=timing.session_wait)).add(timing)
    return out


class SysLatencies(BaseModel):
    """SPANNER_SYS averages of the last complete minute, as worker 0 last read them."""

    query_s: dict[str, float] = Field(default_factory=dict, description="statement text -> AVG_LATENCY_SECONDS")
    commit_s: float | None = Field(None, description="TXN_STATS AVG_COMMIT_LATENCY_SECONDS, commit-weighted")


class BreakdownPart(BaseModel):
    part: Part
    ms: float = Field(description="mean per operation, milliseconds")
    source: Source


class Breakdown(BaseModel):
    """Mean time per operation of one kind, split into parts that add up to ``round_trip_ms``."""

    count: int = 0
    round_trip_ms: float = Field(0.0, description="mean from intended start to end")
    parts: list[BreakdownPart] = Field(default_factory=list)


def query_commit_ms(timing: OpTiming, sys: SysLatencies | None) -> float | None:
    """Mean query + commit time per operation from SPANNER_SYS; None unless it knows every part."""
    if sys is None or timing.count == 0 or (not timing.statements and timing.commits == 0):
        return None
    total_s = 0.0
    for text, executions in timing.statements.items():
        latency = sys.query_s.get(text.strip())
        if latency is None:
            return None
        total_s += executions * latency
    if timing.commits:
        if sys.commit_s is None:
            return None
        total_s += timing.commits * sys.commit_s
    return total_s * US_PER_MS / timing.count


def pgadapter_ms(round_trip_ms: float, queue_ms: float, session_ms: float, server_ms: float) -> tuple[float, float]:
    """PGAdapter's own time per operation (the pgadapter interface): the driver's round trip minus the
    queue, the session wait and what the server measured of the same statements; never negative (a
    minute's server average may exceed this interval's round trip: then the server's part is cut to
    what is left). Returns (pgadapter, server) in ms, which with queue and session add up to the
    round trip."""
    rest = max(0.0, round_trip_ms - queue_ms - session_ms)
    server = min(server_ms, rest)
    return rest - server, server


def breakdown(timing: OpTiming, sys: SysLatencies | None = None, via_pgadapter: bool = False) -> Breakdown:
    """Means per operation; the parts add up to the round trip exactly (derived parts are differences).
    ``via_pgadapter``: the run's ``client.interface`` is ``pgadapter`` (see the module's notes)."""
    n = timing.count
    if n == 0:
        return Breakdown()
    if via_pgadapter:
        return _via_pgadapter(timing, query_commit_ms(timing, sys))
    parts = _waits(timing)
    to_ms = 1 / (n * US_PER_MS)
    round_trip = timing.total_us * to_ms
    queue, session = parts[0].ms, parts[1].ms
    server = timing.server_us * to_ms
    client = round_trip - queue - session - server
    if client < 0:  # server-timing above the client's own view: clock resolution; never a negative part
        server += client
        client = 0.0
    parts.append(BreakdownPart(part=Part.CLIENT, ms=client, source=Source.DERIVED))
    server_source = Source.MEASURED if timing.server_count else Source.NOT_MEASURED
    sys_ms = query_commit_ms(timing, sys) if timing.server_count == n else None
    if sys_ms is None:
        parts.append(BreakdownPart(part=Part.SERVER, ms=server, source=server_source))
    else:
        inner = min(sys_ms, server)  # a minute's average may exceed this interval's server time
        parts.append(BreakdownPart(part=Part.SERVER_FRONTEND, ms=server - inner, source=Source.DERIVED))
        parts.append(BreakdownPart(part=Part.QUERY_COMMIT, ms=inner, source=Source.SPANNER_SYS))
    return Breakdown(count=n, round_trip_ms=round_trip, parts=parts)


def _waits(timing: OpTiming) -> list[BreakdownPart]:
    """The queue and session-wait parts of ``timing`` (count > 0), means per operation."""
    to_ms = 1 / (timing.count * US_PER_MS)
    session_source = {
        SessionWait.MEASURED: Source.MEASURED,
        SessionWait.NOT_APPLICABLE: Source.NOT_APPLICABLE,
        SessionWait.NOT_MEASURED: Source.NOT_MEASURED,
    }[timing.session_wait]
    return [
        BreakdownPart(part=Part.QUEUE, ms=timing.queue_us * to_ms, source=Source.MEASURED),
        BreakdownPart(part=Part.SESSION_WAIT, ms=timing.session_us * to_ms, source=session_source),
    ]


def _via_pgadapter(timing: OpTiming, server_ms: float | None) -> Breakdown:
    """A pgadapter run's parts of ``timing`` (count > 0): queue, session wait, PGAdapter's part (derived)
    and the server's, ``server_ms`` per operation as SPANNER_SYS measured it (None: not known)."""
    n = timing.count
    round_trip = timing.total_us / (n * US_PER_MS)
    parts = _waits(timing)
    adapter, inner = pgadapter_ms(round_trip, parts[0].ms, parts[1].ms, server_ms or 0.0)
    parts.append(BreakdownPart(part=Part.PGADAPTER, ms=adapter, source=Source.DERIVED))
    parts.append(BreakdownPart(part=Part.CLIENT, ms=0.0, source=Source.NOT_MEASURED))
    if server_ms is None:
        parts.append(BreakdownPart(part=Part.SERVER, ms=0.0, source=Source.NOT_MEASURED))
    else:
        parts.append(BreakdownPart(part=Part.SERVER_FRONTEND, ms=0.0, source=Source.NOT_MEASURED))
        parts.append(BreakdownPart(part=Part.QUERY_COMMIT, ms=inner, source=Source.SPANNER_SYS))
    return Breakdown(count=n, round_trip_ms=round_trip, parts=parts)


def pgadapter_by_minute(
    whole: OpTiming, minutes: Mapping[float, OpTiming], latencies: Mapping[float, SysLatencies]
) -> Breakdown:
    """A pgadapter run's breakdown of one operation kind over its own window and statements: each
    SPANNER_SYS minute the run has figures for (``latencies``, by INTERVAL_END) prices the statements
    and commits of that same minute (``minutes``: the operation's sums of the intervals that ended in
    it) at that minute's own averages, never another minute's. The parts are means over the operations
    of the minutes so priced, PGAdapter's the round trip minus queue, session wait and that server time
    (:func:`pgadapter_ms`). Without such a minute: ``whole``'s breakdown, the server not known."""
    priced = OpTiming(session_wait=whole.session_wait)
    server_ms_total = 0.0
    for end, timing in minutes.items():
        ms = query_commit_ms(timing, latencies.get(end))
        if ms is not None:
            priced.add(timing)
            server_ms_total += ms * timing.count
    if priced.count == 0:
        return breakdown(whole, None, via_pgadapter=True)
    return _via_pgadapter(priced, server_ms_total / priced.count)


def combine(breakdowns: Iterable[Breakdown]) -> Breakdown:
    """Several intervals' breakdowns of one operation kind as one (means weighted by their counts);
    a part's source is the latest interval's. For summaries recomputed from stored samples. Intervals
    before the run's first whole SPANNER_SYS minute have the server's time whole, later ones split:
    then every interval's server time is taken whole, so the run has one decomposition."""
    breakdowns = list(breakdowns)
    if len({is_split(b) for b in breakdowns if b.count}) > 1:
        breakdowns = [unsplit(b) for b in breakdowns]
    count = 0
    round_trip = 0.0
    parts: dict[Part, tuple[float, Source]] = {}
    for b in breakdowns:
        if b.count == 0:
            continue
        count += b.count
        round_trip += b.round_trip_ms * b.count
        for p in b.parts:
            total, _ = parts.get(p.part, (0.0, p.source))
            parts[p.part] = (total + p.ms * b.count, p.source)
    if count == 0:
        return Breakdown()
    ordered = [BreakdownPart(part=part, ms=total / count, source=source) for part, (total, source) in parts.items()]
    ordered.sort(key=lambda p: list(Part).index(p.part))
    return Breakdown(count=count, round_trip_ms=round_trip / count, parts=ordered)


def unsplit(b: Breakdown) -> Breakdown:
    """The same breakdown with the server's time whole: ``server_frontend`` and ``query_commit``
    (SPANNER_SYS's split) added back into one measured ``server`` part, for a comparison with a run
    that has no such split."""
    inner = [p for p in b.parts if p.part in (Part.SERVER_FRONTEND, Part.QUERY_COMMIT)]
    if not inner:
        return b
    parts = [p for p in b.parts if p not in inner]
    parts.append(BreakdownPart(part=Part.SERVER, ms=sum(p.ms for p in inner), source=Source.MEASURED))
    parts.sort(key=lambda p: list(Part).index(p.part))
    return b.model_copy(update={"parts": parts})


def is_split(b: Breakdown) -> bool:
    """Is the server's time split by SPANNER_SYS (query / commit apart from the front end)?"""
    return any(p.part is Part.QUERY_COMMIT for p in b.parts)
