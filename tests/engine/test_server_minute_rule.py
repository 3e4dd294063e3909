"""Issue 23: the rule that a SPANNER_SYS minute counts for a run only if it lies wholly inside the
run, applied by the aggregator to what workers send, and the reader that sends each minute's end.
The end-to-end case (two runs on one database, the official clients) is test_server_minute.py."""

from __future__ import annotations

import datetime as dt

import pytest

from spanload.engine.aggregator import Aggregator
from spanload.model.breakdown import OpTiming, Part, SysLatencies
from spanload.model.protocol import Counter, Report
from spanload.model.samples import Gauge
from spanload.model.server_minute import NO_COMPLETE_MINUTE, NO_MINUTE_FROM_TARGET
from spanload.spanner.stats import StatsReader

BEGIN = 1_800_000_030.0  # half a minute past a minute boundary (unix seconds are minute-aligned)
POLL = "SELECT poll"
MINUTE = {Gauge.SERVER_POLL_AVG_LATENCY_S: 0.022, Gauge.SERVER_POLL_CPU_FRACTION: 0.1}


def _report(seq: int, minute_end: float | None) -> Report:
    return Report(
        worker=0,
        seq=seq,
        t=BEGIN + seq + 1,
        interval_s=1.0,
        counters={Counter.POLLS: 10},
        gauges={**MINUTE, Gauge.WATCHER_LAG_MS: 5.0},
        timings={
            "watcher.poll": OpTiming(
                count=10, total_us=50_000, server_us=40_000, server_count=10, statements={POLL: 10}
            )
        },
        sys_latencies=SysLatencies(query_s={POLL: 0.022}),
        sys_interval_end=minute_end,
    )


def _run(seconds: int, minute_end: float | None) -> tuple[list[dict[str, float]], Aggregator]:
    agg = Aggregator(BEGIN, 1.0, workers=1)
    gauges = [s.gauges for seq in range(seconds) for s in agg.add(_report(seq, minute_end))]
    return gauges, agg


@pytest.mark.parametrize(
    ("minute_end", "why"),
    [
        (BEGIN + 30, "the minute began 30 s before the run: half of it is another run's"),
        (BEGIN - 30, "the minute ended before the run began"),
        (None, "a worker that does not say which minute"),
    ],
)
def test_a_minute_not_inside_the_run_is_a_gap_and_n_a(minute_end: float | None, why: str) -> None:
    gauges, agg = _run(20, minute_end)
    assert all(Gauge.SERVER_POLL_AVG_LATENCY_S not in g and Gauge.SERVER_POLL_CPU_FRACTION not in g for g in gauges), (
        why
    )
    assert all(g[Gauge.WATCHER_LAG_MS] == 5.0 for g in gauges)  # the rest of the report stays
    summary = agg.summary()
    assert Gauge.SERVER_POLL_AVG_LATENCY_S not in summary.rates
    assert summary.unavailable == {
        Gauge.SERVER_POLL_AVG_LATENCY_S: NO_COMPLETE_MINUTE,
        Gauge.SERVER_POLL_CPU_FRACTION: NO_COMPLETE_MINUTE,
    }
    # the breakdown does not split the server's time with another run's statement latencies
    parts = {p.part for p in summary.breakdown["watcher.poll"].parts}
    assert Part.QUERY_COMMIT not in parts and Part.SERVER in parts


def test_a_minute_wholly_inside_the_run_counts_from_the_interval_it_ends_by() -> None:
    first_end = BEGIN + 90  # the run's first whole minute: [BEGIN + 30, BEGIN + 90]
    agg = Aggregator(BEGIN, 1.0, workers=1)
    shown = []
    for seq in range(100):
        for sample in agg.add(_report(seq, first_end if seq >= 89 else BEGIN + 30)):
            shown.append(Gauge.SERVER_POLL_AVG_LATENCY_S in sample.gauges)
    assert shown == [False] * 89 + [True] * 11  # its report at BEGIN + 90 is the first to hold it
    summary = agg.summary()
    assert summary.rates[Gauge.SERVER_POLL_AVG_LATENCY_S] == pytest.approx(0.022)
    assert summary.unavailable == {}
    assert Part.QUERY_COMMIT in {p.part for p in summary.breakdown["watcher.poll"].parts}


def test_a_run_with_a_whole_minute_but_no_figure_says_the_target_gave_none() -> None:
    gauges, agg = _run(100, None)
    assert all(Gauge.SERVER_POLL_AVG_LATENCY_S not in g for g in gauges)
    assert agg.summary().unavailable[Gauge.SERVER_POLL_AVG_LATENCY_S] == NO_MINUTE_FROM_TARGET


class _Rows:
    def __init__(self, tables: dict[str, list[list[object]]]) -> None:
        self.tables = tables

    def snapshot(self) -> _Rows:
        return self

    def __enter__(self) -> _Rows:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_sql(self, sql: str) -> list[list[object]]:
        return next(rows for table, rows in self.tables.items() if table in sql)


def test_the_python_reader_keeps_the_newest_minute_and_says_its_end() -> None:
    """The same case as goworker's TestMinuteOfKeepsTheNewestMinuteAndItsEnd."""
    older = dt.datetime.fromtimestamp(1_800_000_000, dt.UTC)
    newer = dt.datetime.fromtimestamp(1_800_000_060, dt.UTC)
    tables = {
        "QUERY_STATS": [
            [POLL, 10, 0.020, 0.006, older, None],
            [POLL, 30, 0.004, 0.002, newer, None],
            ["SELECT other", 5, 0.1, 0.05, newer, None],
        ],
        "TXN_STATS": [[40, 0.028, 2.0, older, None]],
    }
    reader = StatsReader(_Rows(tables), POLL)
    assert reader.read() == pytest.approx(
        {Gauge.SERVER_POLL_AVG_LATENCY_S: 0.004, Gauge.SERVER_POLL_CPU_FRACTION: 30 * 0.002 / 60}
    )
    assert reader.interval_end == 1_800_000_060
    assert reader.latencies is not None and reader.latencies.commit_s is None
    assert reader.latencies.query_s == {POLL: 0.004, "SELECT other": 0.1}


RUN = "spanload-aaaaaaaaaaaa"  # model/tags.run_tag of a run id starting so
OTHER = "spanload-bbbbbbbbbbbb"


def test_the_reader_counts_only_the_rows_tagged_with_its_run() -> None:
    """Issue 23's tag condition: a newer minute holding only another run's (or an untagged
    application's) rows is not this run's, even with the poll query's text; the run's own rows of an
    older minute are what it reads. The same case as goworker's TestMinuteOfKeepsOnlyTheRunsTags."""
    older = dt.datetime.fromtimestamp(1_800_000_000, dt.UTC)
    newer = dt.datetime.fromtimestamp(1_800_000_060, dt.UTC)
    tables = {
        "QUERY_STATS": [
            [POLL, 10, 0.020, 0.006, older, f"{RUN}-watcher"],
            [POLL, 30, 0.004, 0.002, newer, f"{OTHER}-watcher"],
            [POLL, 7, 0.5, 0.1, newer, ""],
            [POLL, 9, 0.7, 0.2, newer, f"{RUN}b-watcher"],  # a run id that only starts like this one's
        ],
        "TXN_STATS": [[40, 0.028, 2.0, older, f"{RUN}-updater"], [99, 1.0, 5.0, newer, f"{OTHER}-updater"]],
    }
    reader = StatsReader(_Rows(tables), POLL, RUN)
    assert reader.read() == pytest.approx(
        {
            Gauge.SERVER_POLL_AVG_LATENCY_S: 0.020,
            Gauge.SERVER_POLL_CPU_FRACTION: 10 * 0.006 / 60,
            Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S: 0.028,
            Gauge.SERVER_TXN_AVG_PARTICIPANTS: 2.0,
        }
    )
    assert reader.interval_end == 1_800_000_000
    assert reader.latencies is not None and reader.latencies.query_s == {POLL: 0.020}


def test_a_statement_two_tagged_rows_share_gives_no_latency() -> None:
    """A tagged row holds every statement of its operation under one text: when two operations' rows
    show the same text, neither says what that statement took, so the breakdown gets no figure for
    it (it shows the server's time whole) rather than one of the two."""
    from spanload.spanner.stats import QueryStat, query_latencies

    rows = [
        QueryStat(POLL, 10, 0.020, 0.006),
        QueryStat(POLL, 5, 0.090, 0.006),  # another operation that also runs the poll's text
        QueryStat("SELECT other", 3, 0.1, 0.05),
        QueryStat("SELECT idle", 0, 0.0, 0.0),
    ]
    assert query_latencies(rows) == {"SELECT other": 0.1}
