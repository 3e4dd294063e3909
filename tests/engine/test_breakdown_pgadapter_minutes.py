"""Issue 24: a pgadapter run's PGAdapter part, derived from what the server measured, is computed over
the run's own window and statements: each SPANNER_SYS minute prices the statements of that same
minute (never the latest minute's averages spread over the whole run), a minute that holds warm-up
intervals prices nothing, and an interval's own breakdown is not split with a minute that ended before
it. Known inputs, parts computed by hand."""

from __future__ import annotations

import pytest

from spanload.engine.aggregator import Aggregator
from spanload.model.breakdown import OpTiming, Part, SessionWait, Source, SysLatencies, pgadapter_by_minute
from spanload.model.protocol import Report

US = 1000.0  # us per ms
BEGIN = 1_800_000_000.0  # on a minute boundary (unix seconds)
OP = "op.write"
UPSERT = "/*@STATEMENT_TAG='t'*/ INSERT INTO t (k) VALUES ($1)"


def timing(ops: int, round_trip_ms: float, queue_ms: float, upserts: int) -> OpTiming:
    """``ops`` operations of ``round_trip_ms`` each, ``queue_ms`` of it queued, ``upserts`` statements
    and one commit each (the driver sees no server-timing)."""
    return OpTiming(
        count=ops,
        total_us=ops * round_trip_ms * US,
        queue_us=ops * queue_ms * US,
        session_wait=SessionWait.NOT_APPLICABLE,
        statements={UPSERT: ops * upserts},
        commits=ops,
    )


def parts(b: object) -> dict[Part, tuple[float, Source]]:
    return {p.part: (pytest.approx(p.ms), p.source) for p in b.parts}  # type: ignore[attr-defined]


def test_each_minute_prices_its_own_statements() -> None:
    # minute 1: 10 ops of 20 ms (2 queued), 4 upserts at 1 ms + a 2 ms commit -> server 6 ms each
    # minute 2: 30 ops of 40 ms (4 queued), 4 upserts at 3 ms + a 6 ms commit -> server 18 ms each
    minutes = {BEGIN + 60: timing(10, 20, 2, 4), BEGIN + 120: timing(30, 40, 4, 4)}
    latencies = {
        BEGIN + 60: SysLatencies(query_s={UPSERT: 0.001}, commit_s=0.002),
        BEGIN + 120: SysLatencies(query_s={UPSERT: 0.003}, commit_s=0.006),
    }
    whole = timing(40, 35, 3.5, 4)  # the two minutes together
    b = pgadapter_by_minute(whole, minutes, latencies)
    # over the 40 ops: round trip (10x20 + 30x40)/40 = 35, queue 3.5, server (10x6 + 30x18)/40 = 15,
    # PGAdapter 35 - 3.5 - 15 = 16.5; the latest minute's averages over all 40 ops would say 18 and 13.5
    assert (b.count, pytest.approx(b.round_trip_ms)) == (40, 35.0)
    assert parts(b) == {
        Part.QUEUE: (3.5, Source.MEASURED),
        Part.SESSION_WAIT: (0.0, Source.NOT_APPLICABLE),
        Part.PGADAPTER: (16.5, Source.DERIVED),
        Part.CLIENT: (0.0, Source.NOT_MEASURED),
        Part.SERVER_FRONTEND: (0.0, Source.NOT_MEASURED),
        Part.QUERY_COMMIT: (15.0, Source.SPANNER_SYS),
    }


def test_only_the_priced_minutes_operations_are_split() -> None:
    # minute 2 has no SPANNER_SYS figures (not closed, or not the run's): its 30 ops are left out
    minutes = {BEGIN + 60: timing(10, 20, 2, 4), BEGIN + 120: timing(30, 40, 4, 4)}
    latencies = {BEGIN + 60: SysLatencies(query_s={UPSERT: 0.001}, commit_s=0.002)}
    b = pgadapter_by_minute(timing(40, 35, 3.5, 4), minutes, latencies)
    assert (b.count, pytest.approx(b.round_trip_ms)) == (10, 20.0)
    assert parts(b)[Part.PGADAPTER] == (12.0, Source.DERIVED)  # 20 - 2 - 6
    assert parts(b)[Part.QUERY_COMMIT] == (6.0, Source.SPANNER_SYS)


def test_without_a_priced_minute_the_whole_run_is_not_split() -> None:
    b = pgadapter_by_minute(timing(40, 35, 3.5, 4), {BEGIN + 60: timing(40, 35, 3.5, 4)}, {})
    assert b.count == 40
    assert parts(b)[Part.PGADAPTER] == (31.5, Source.DERIVED)  # everything after the queue
    assert parts(b)[Part.SERVER] == (0.0, Source.NOT_MEASURED)


def report(seq: int, t: float, ops: OpTiming, minute: tuple[float, SysLatencies] | None = None) -> Report:
    return Report(
        worker=0,
        seq=seq,
        t=t,
        interval_s=1.0,
        timings={OP: ops},
        sys_latencies=minute[1] if minute else None,
        sys_interval_end=minute[0] if minute else None,
    )


def test_the_aggregator_prices_each_minute_apart_and_leaves_the_warm_up_out() -> None:
    # 200 one-second intervals from BEGIN, the first 30 warm-up; minutes end at +60, +120, +180, +240.
    # Each interval: 1 op; minute 1's intervals 20 ms (2 queued), the others' 40 ms (4 queued),
    # 4 upserts and a commit each. SPANNER_SYS sends each minute once it has closed: minute 1 (it holds
    # warm-up: it prices nothing), minute 2 at 3 ms an upsert + 6 ms a commit, minute 3 at 1 ms + 2 ms;
    # minute 4 has not closed when the run ends.
    agg = Aggregator(BEGIN, 1.0, workers=1, via_pgadapter=True, warmup_s=30.0)
    figures = {
        BEGIN + 60: SysLatencies(query_s={UPSERT: 0.010}, commit_s=0.010),
        BEGIN + 120: SysLatencies(query_s={UPSERT: 0.003}, commit_s=0.006),
        BEGIN + 180: SysLatencies(query_s={UPSERT: 0.001}, commit_s=0.002),
    }
    samples = []
    for seq in range(200):
        t = BEGIN + seq + 1
        ops = timing(1, 20, 2, 4) if t <= BEGIN + 60 else timing(1, 40, 4, 4)
        closed = max((end for end in figures if end <= t - 1), default=None)  # sent once it has closed
        samples += agg.add(report(seq, t, ops, (closed, figures[closed]) if closed else None))
    samples += agg.flush_all()
    b = agg.summary().breakdown[OP]
    # minutes 2 and 3 only: the 60 intervals ending in (+60, +120] and the 60 in (+120, +180], all
    # 40 ms with 4 queued; server 18 ms (minute 2) and 6 ms (minute 3) a write -> PGAdapter 36 - 12 = 24
    n2, n3 = 60, 60
    server = (n2 * 18 + n3 * 6) / (n2 + n3)
    assert b.count == n2 + n3
    assert parts(b)[Part.QUERY_COMMIT] == (server, Source.SPANNER_SYS)
    assert server == 12.0 and parts(b)[Part.PGADAPTER] == (24.0, Source.DERIVED)
    # each interval's own minute has not closed when it is shown: no interval is split
    assert all(Part.QUERY_COMMIT not in {p.part for p in s.breakdown[OP].parts} for s in samples)


def test_only_a_pgadapter_run_keeps_its_minutes_and_it_one_entry_a_minute() -> None:
    # Issue 30: these are one entry a minute for the whole run (a week's run would keep ~30 MB); a run
    # not through PGAdapter prices its breakdown at the latest minute and must keep none of them.
    # 10 minutes of one-second intervals, SPANNER_SYS sending each minute once it has closed.
    kept: dict[bool, tuple[int, int]] = {}
    for via_pgadapter in (True, False):
        agg = Aggregator(BEGIN, 1.0, workers=1, via_pgadapter=via_pgadapter)
        for seq in range(600):
            closed = BEGIN + 60 * (seq // 60)  # the latest minute that ended by this interval's start
            minute = (closed, SysLatencies(query_s={UPSERT: 0.001}, commit_s=0.002)) if seq >= 60 else None
            assert len(agg.add(report(seq, BEGIN + seq + 1, timing(1, 20, 2, 4), minute))) == 1
        kept[via_pgadapter] = (len(agg._minute_timings), len(agg._minute_latencies))
    # through PGAdapter: the 10 minutes the intervals ended in, and the 9 whole minutes SPANNER_SYS sent
    assert kept == {True: (10, 9), False: (0, 0)}
