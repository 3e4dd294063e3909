"""Server CPU per delivered change (issue 29): each interval's server CPU (server.cpu_fraction times
its length) over the changes it received, and the whole run's as a ratio of the sums."""

from __future__ import annotations

import pytest

from spanload.engine.aggregator import Aggregator
from spanload.model.protocol import Counter, Report
from spanload.model.samples import Gauge

T0 = 1000.0


def _report(seq: int, changes: int, cpu_fraction: float | None, interval_s: float = 1.0) -> Report:
    gauges = {} if cpu_fraction is None else {Gauge.SERVER_CPU_FRACTION: cpu_fraction}
    return Report(
        worker=0,
        seq=seq,
        t=T0 + (seq + 1) * interval_s,
        interval_s=interval_s,
        counters={Counter.RECEIVED_CHANGES: changes},
        gauges=gauges,
    )


# (changes received, server CPU fraction) per 1 s interval
INTERVALS = [(100, 0.5), (0, 0.2), (50, None), (20, 0.3)]


def test_each_interval_and_the_whole_run_divide_server_cpu_by_changes_received() -> None:
    agg = Aggregator(T0, 1.0, workers=1)
    samples = [s for seq, (n, f) in enumerate(INTERVALS) for s in agg.add(_report(seq, n, f))]
    per_interval = [s.gauges.get(Gauge.SERVER_CPU_PER_CHANGE_MS) for s in samples]
    # 0.5 CPU s / 100 changes = 5 ms; no change received: none; no CPU gauge: none; 0.3 / 20 = 15 ms
    assert per_interval == [pytest.approx(5.0), None, None, pytest.approx(15.0)]
    # the intervals with a CPU gauge: (0.5 + 0.2 + 0.3) CPU s over (100 + 0 + 20) changes, 8.33 ms
    # (the mean of the intervals' figures would be 10 ms; the 50 changes without CPU count nowhere)
    assert agg.summary().rates[Gauge.SERVER_CPU_PER_CHANGE_MS] == pytest.approx(1000.0 / 120)


def test_a_longer_interval_counts_its_cpu_for_its_length() -> None:
    agg = Aggregator(T0, 2.0, workers=1)
    [sample] = agg.add(_report(0, 40, 0.25, interval_s=2.0))
    assert sample.gauges[Gauge.SERVER_CPU_PER_CHANGE_MS] == pytest.approx(0.5 * 1000 / 40)  # 0.5 CPU s


def test_warm_up_intervals_and_runs_that_received_nothing_have_no_figure() -> None:
    warm = Aggregator(T0, 1.0, workers=1, warmup_s=1.0)
    warm.add(_report(0, 10, 0.9))  # warm-up: out of the whole run's figure
    warm.add(_report(1, 40, 0.2))
    assert warm.summary().rates[Gauge.SERVER_CPU_PER_CHANGE_MS] == pytest.approx(200.0 / 40)
    quiet = Aggregator(T0, 1.0, workers=1)
    quiet.add(_report(0, 0, 0.4))
    assert Gauge.SERVER_CPU_PER_CHANGE_MS not in quiet.summary().rates


def test_the_watchers_spanner_sys_cpu_per_change_counts_each_closed_minute_once() -> None:
    """SPANNER_SYS's QUERY_STATS_TOP_MINUTE gives the watcher's statements' CPU a minute
    (server.poll_cpu_fraction x 60 s); each minute the run owns is divided by the changes received in
    the intervals that ended inside it, however many reports repeat it."""
    start = 960.0  # a minute boundary: the minutes (960, 1020] and (1020, 1080] lie inside the run
    agg = Aggregator(start, 1.0, workers=1)
    # (minute end, poll CPU fraction) that reports carry, by the interval they come with; the minute
    # ending at 960 began before the run (the aggregator drops it, model/server_minute.py)
    minute_of = {5: (960.0, 0.9), **dict.fromkeys(range(65, 75), (1020.0, 0.005)), 125: (1080.0, 0.01)}
    per_minute: dict[int, float] = {}
    for seq in range(130):
        end, fraction = minute_of.get(seq, (None, None))
        report = Report(
            worker=0,
            seq=seq,
            t=start + seq + 1,
            interval_s=1.0,
            counters={Counter.RECEIVED_CHANGES: 5 if seq < 60 else 2},
            gauges={} if fraction is None else {Gauge.SERVER_POLL_CPU_FRACTION: fraction},
            sys_interval_end=end,
        )
        for sample in agg.add(report):
            if Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS in sample.gauges:
                per_minute[sample.seq] = sample.gauges[Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS]
    # 0.3 CPU s over the 60 intervals of (960, 1020] at 5 changes: 1 ms, when it first came;
    # 0.6 CPU s over (1020, 1080], 60 intervals at 2: 5 ms
    assert per_minute == {65: pytest.approx(1.0), 125: pytest.approx(5.0)}
    # the run: (0.3 + 0.6) CPU s over (300 + 120) changes
    assert agg.summary().rates[Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS] == pytest.approx(900.0 / 420)
