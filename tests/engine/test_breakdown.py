"""Where the time goes (issue 15): every operation kind's round trip split into parts.

Unit cases check the arithmetic and the merging; the end-to-end cases run real worker processes
against the local Spanner and compare the parts with independent measurements: the ``_intended``
and ``_server`` histograms of the same operations, and the counts.
"""

from __future__ import annotations

import asyncio

import pytest

from spanload.cli.render import summary_table
from spanload.engine.aggregator import Aggregator
from spanload.model.breakdown import (
    Breakdown,
    BreakdownPart,
    OpTiming,
    Part,
    SessionWait,
    Source,
    SysLatencies,
    breakdown,
    combine,
    merge_timings,
)
from spanload.model.config import WorkerRuntime
from spanload.model.op_metrics import OpHistogram, name
from spanload.model.protocol import Report, decode_from_worker, encode
from spanload.model.samples import INTENDED_SUFFIX, SERVER_SUFFIX, Op, Summary
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_e2e_local import _run_to_end

US = 1000.0  # us per ms
HDR_RELATIVE = 1e-3  # 3 significant digits


def _parts(b: Breakdown) -> dict[Part, tuple[float, Source]]:
    return {p.part: (p.ms, p.source) for p in b.parts}


def test_parts_are_means_and_add_up_to_the_round_trip() -> None:
    t = OpTiming(
        count=4,
        total_us=4 * 10 * US,
        queue_us=4 * 1 * US,
        session_us=4 * 3 * US,
        session_wait=SessionWait.MEASURED,
        server_us=4 * 2 * US,
        server_count=4,
    )
    b = breakdown(t)
    assert b.count == 4 and b.round_trip_ms == pytest.approx(10.0)
    assert _parts(b) == {
        Part.QUEUE: (pytest.approx(1.0), Source.MEASURED),
        Part.SESSION_WAIT: (pytest.approx(3.0), Source.MEASURED),
        Part.CLIENT: (pytest.approx(4.0), Source.DERIVED),
        Part.SERVER: (pytest.approx(2.0), Source.MEASURED),
    }


def test_spanner_sys_splits_the_server_part_into_frontend_and_query_commit() -> None:
    t = OpTiming(
        count=2,
        total_us=2 * 10 * US,
        server_us=2 * 4 * US,
        server_count=2,
        statements={"SELECT 1": 4},
        commits=2,
        session_wait=SessionWait.NOT_APPLICABLE,
    )
    # per operation: 2 queries of 0.5 ms and one commit of 1.5 ms = 2.5 ms of the server's 4
    sys = SysLatencies(query_s={"SELECT 1": 0.0005}, commit_s=0.0015)
    parts = _parts(breakdown(t, sys))
    assert parts[Part.QUERY_COMMIT] == (pytest.approx(2.5), Source.SPANNER_SYS)
    assert parts[Part.SERVER_FRONTEND] == (pytest.approx(1.5), Source.DERIVED)
    assert parts[Part.SESSION_WAIT] == (0.0, Source.NOT_APPLICABLE)
    assert Part.SERVER not in parts
    # a statement SPANNER_SYS does not list, or no commit latency: no split, the server part whole
    assert Part.SERVER in _parts(breakdown(t, SysLatencies(query_s={"SELECT 2": 0.1}, commit_s=0.0015)))
    assert Part.SERVER in _parts(breakdown(t, SysLatencies(query_s={"SELECT 1": 0.0005})))
    # a minute's average above this interval's server time: capped, the sum still holds
    capped = breakdown(t, SysLatencies(query_s={"SELECT 1": 0.01}, commit_s=0.0015))
    assert _parts(capped)[Part.QUERY_COMMIT][0] == pytest.approx(4.0)
    assert sum(p.ms for p in capped.parts) == pytest.approx(capped.round_trip_ms)


def test_server_timing_above_the_clients_view_never_makes_a_negative_part() -> None:
    t = OpTiming(count=1, total_us=1000, server_us=1200, server_count=1)
    b = breakdown(t)
    assert min(p.ms for p in b.parts) == 0.0
    assert sum(p.ms for p in b.parts) == pytest.approx(1.0)


def test_merging_workers_sums_and_keeps_measured_session_wait() -> None:
    a = OpTiming(count=1, total_us=5, session_wait=SessionWait.NOT_APPLICABLE, statements={"q": 1})
    b = OpTiming(count=2, total_us=7, session_us=3, session_wait=SessionWait.MEASURED, statements={"q": 2, "r": 1})
    merged = merge_timings([{"x": a}, {"x": b}])["x"]
    assert (merged.count, merged.total_us, merged.session_us) == (3, 12, 3)
    assert merged.session_wait is SessionWait.MEASURED and merged.statements == {"q": 3, "r": 1}
    assert a.count == 1  # the inputs are left alone


def test_combine_weights_intervals_by_their_counts() -> None:
    one = Breakdown(count=1, round_trip_ms=10, parts=[BreakdownPart(part=Part.QUEUE, ms=10, source=Source.MEASURED)])
    three = Breakdown(count=3, round_trip_ms=2, parts=[BreakdownPart(part=Part.QUEUE, ms=2, source=Source.MEASURED)])
    whole = combine([one, three, Breakdown()])
    assert (whole.count, whole.round_trip_ms) == (4, pytest.approx(4.0))
    assert whole.parts[0].ms == pytest.approx(4.0)


def test_combine_takes_the_server_whole_when_only_some_intervals_are_split() -> None:
    """Issue 23: a run's intervals before its first whole SPANNER_SYS minute cannot split the server's
    time, the later ones can; the run's recomputed breakdown uses one decomposition, not both."""
    t = OpTiming(count=2, total_us=20_000, server_us=8_000, server_count=2, statements={"SELECT 1": 2})
    before, after = breakdown(t), breakdown(t, SysLatencies(query_s={"SELECT 1": 0.003}))
    assert Part.QUERY_COMMIT in _parts(after) and Part.QUERY_COMMIT not in _parts(before)
    whole = combine([before, after])
    assert set(_parts(whole)) == {Part.QUEUE, Part.SESSION_WAIT, Part.CLIENT, Part.SERVER}
    assert _parts(whole)[Part.SERVER] == (pytest.approx(4.0), Source.MEASURED)
    assert sum(p.ms for p in whole.parts) == pytest.approx(whole.round_trip_ms)
    assert Part.QUERY_COMMIT in _parts(combine([after, after]))  # all split: kept split


def test_reports_carry_timings_and_old_reports_still_decode() -> None:
    report = Report(
        worker=0,
        seq=0,
        t=1.0,
        interval_s=1.0,
        timings={"tpcc.payment": OpTiming(count=2, total_us=9, commits=2)},
        sys_latencies=SysLatencies(commit_s=0.002),
    )
    back = decode_from_worker(encode(report))
    assert isinstance(back, Report) and back.timings == report.timings and back.sys_latencies == report.sys_latencies
    old = decode_from_worker(b'{"v":1,"type":"report","worker":0,"seq":0,"t":1.0,"interval_s":1.0}')
    assert isinstance(old, Report) and old.timings == {} and old.sys_latencies is None


def test_the_aggregator_gives_each_sample_and_the_summary_a_breakdown() -> None:
    agg = Aggregator(1000.0, 1.0, workers=2)

    def report(worker: int, seq: int, count: int, queue_us: float) -> Report:
        timing = OpTiming(count=count, total_us=count * 5000, queue_us=queue_us, server_us=count * 1000)
        timing.server_count = count
        return Report(worker=worker, seq=seq, t=1001.0 + seq, interval_s=1.0, timings={"reader.read": timing})

    assert agg.add(report(0, 0, 2, 2000)) == []
    [sample] = agg.add(report(1, 0, 2, 6000))
    b = sample.breakdown["reader.read"]
    assert b.count == 4 and _parts(b)[Part.QUEUE][0] == pytest.approx(2.0)
    agg.add(report(0, 1, 4, 0))
    [second] = agg.add(report(1, 1, 4, 0))
    assert second.breakdown["reader.read"].count == 8
    whole = agg.summary().breakdown["reader.read"]
    assert whole.count == 12 and _parts(whole)[Part.QUEUE][0] == pytest.approx(8000 / 12 / US)
    assert _parts(whole)[Part.CLIENT][0] == pytest.approx(5 - 1 - 8 / 12)


def test_the_cli_summary_says_where_the_time_goes() -> None:
    timing = OpTiming(
        count=2,
        total_us=2 * 40 * US,
        queue_us=2 * 2 * US,
        session_us=2 * 30 * US,
        session_wait=SessionWait.MEASURED,
        server_us=2 * 2 * US,
        server_count=2,
    )
    lines = summary_table(Summary(breakdown={"reader.read": breakdown(timing), "watcher.poll": Breakdown()}))
    start = lines.index("where the time goes (mean per operation, from its intended start):")
    assert lines[start + 1 :] == [
        "reader.read               40.0 ms = queue 5.0%, session_wait 75.0%, client 15.0% (derived), server 5.0%"
    ]


# -- end to end against the local Spanner -------------------------------------------------------


def _run(config: object, run_id: str) -> Summary:
    sink = asyncio.run(_run_to_end(config, run_id))  # type: ignore[arg-type]
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None
    assert all(sample.breakdown for sample in sink.samples[1:-1])  # every full interval has one
    return sink.summary


def assert_breakdown_adds_up(summary: Summary, op: str, paced: bool) -> Breakdown:
    """The parts add up to the round trip, and the round trip and server part agree with the
    histograms of the same operations (an independent measurement) within their resolution."""
    b = summary.breakdown[op]
    assert b.count == summary.latency[op].count > 0
    assert sum(p.ms for p in b.parts) == pytest.approx(b.round_trip_ms, rel=1e-9)
    assert all(p.ms >= 0 for p in b.parts)
    round_trip = summary.latency[op + INTENDED_SUFFIX if paced else op]
    assert round_trip.count == b.count and round_trip.mean is not None
    assert b.round_trip_ms == pytest.approx(round_trip.mean, rel=2 * HDR_RELATIVE, abs=0.002)
    server = summary.latency[op + SERVER_SUFFIX]
    assert server.count == b.count and server.mean is not None
    server_ms = sum(p.ms for p in b.parts if p.part in (Part.SERVER, Part.SERVER_FRONTEND, Part.QUERY_COMMIT))
    assert server_ms == pytest.approx(server.mean, rel=2 * HDR_RELATIVE, abs=0.002)
    queue = _parts(b)[Part.QUEUE][0]
    if paced:  # queueing is what the intended-start histogram has more than the actual-start one
        actual = summary.latency[op].mean
        assert actual is not None
        assert queue == pytest.approx(round_trip.mean - actual, rel=0.05, abs=0.01)
    else:
        assert queue == 0.0
    return b


@pytest.mark.timeout(180)
def test_a_runs_parts_add_up_to_its_round_trip(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    config = local_spanner.config(
        {
            "duration_s": 3.0,
            "updater": {"transactions_per_second": 40, "parallelism": 2},
            "watcher": {"poll_interval_ms": 200},
            "reader": {"enabled": True, "reads_per_second": 40, "query": "point"},
        },
        runtime=runtime,
    )
    summary = _run(config, f"breakdown-{runtime.value}")
    # the config's updater and reader are the built-in change_watcher.yaml's write and point_read
    write, read = name(OpHistogram.LATENCY, "write"), name(OpHistogram.LATENCY, "point_read")
    for op, paced in ((write, True), (read, True), (Op.WATCHER_POLL, False)):
        b = assert_breakdown_adds_up(summary, op, paced)
        # multiplexed sessions (the default): no pool, no session wait
        assert _parts(b)[Part.SESSION_WAIT] == (0.0, Source.NOT_APPLICABLE), op


@pytest.mark.timeout(180)
def test_a_tiny_session_pool_makes_session_wait_the_largest_part(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """The session-pool report's finding, scaled down: 8 readers share one pooled session, so each
    read waits for the others' and the wait is most of what the client sees (the Python client's
    pool; the Go worker's emulated one, the Go client having only multiplexed sessions). The
    session_pool workload's leaderboard readers are a closed loop of 8 agents without think time."""
    config = local_spanner.config(
        {
            "duration_s": 3.0,
            "schema": "leaderboard",
            "client": {"multiplexed_sessions": False, "session_pool_size": 1},
            "updater": {"enabled": False},
            "watcher": {"enabled": False},
            "reader": {"enabled": True, "concurrency": 8, "think_time_ms": 0, "query": "leaderboard"},
        },
        runtime=runtime,
    )
    summary = _run(config, f"breakdown-pool-{runtime.value}")
    leaderboard = name(OpHistogram.LATENCY, "leaderboard")
    # the interpreter times a closed loop's operations from their intended start too (the end of
    # the think time), so its queue part is what that histogram has more than the actual start's
    b = assert_breakdown_adds_up(summary, leaderboard, paced=True)
    parts = _parts(b)
    session, source = parts[Part.SESSION_WAIT]
    assert source is Source.MEASURED
    server = parts[Part.SERVER][0]
    client = parts[Part.CLIENT][0]
    # 7 of 8 threads wait while one reads: the wait is several times the read itself
    assert session > 2 * (server + client), parts
    actual = summary.latency[leaderboard]
    server_p99 = summary.latency[leaderboard + SERVER_SUFFIX].p99
    assert actual.p99 is not None and server_p99 is not None and actual.p99 > 2 * server_p99
