"""Watcher lag (workers/lag.py): the longest wait of a change within a report interval, on a
simulated clock. It depends on the poll interval and the poll's duration, never on the phase
between the polls and the reports, and a config change that moves neither does not move it."""

from __future__ import annotations

import datetime as dt

import pytest

from spanload.model.builtin_convert import builtin_definition
from spanload.workers.interp.watch import DefinitionWatcher, _Poller
from spanload.workers.lag import LagMeter

POLL_S = 1.0
POLL_TOOK_S = 0.02
REPORT_S = 1.0


def lags(meter: LagMeter, polls: list[tuple[float, float, bool]], reports: list[float]) -> list[float | None]:
    """Feed polls (start, end, full) and take the lag at each report time, in time order."""
    out: list[float | None] = []
    pending = sorted(polls, key=lambda p: p[1])
    for at in reports:
        while pending and pending[0][1] <= at:
            meter.polled(*pending.pop(0))
        out.append(meter.take(at))
    return out


def steady_polls(first: float, count: int, took: float = POLL_TOOK_S) -> list[tuple[float, float, bool]]:
    return [(first + i * POLL_S, first + i * POLL_S + took, False) for i in range(count)]


@pytest.mark.parametrize("phase", [0.0, 0.1, 0.37, 0.5, 0.93])
def test_the_lag_is_the_poll_interval_plus_one_poll_whatever_the_phase(phase: float) -> None:
    meter = LagMeter(now=0.0)
    reports = [phase + REPORT_S * k for k in range(3, 30)]  # from the third interval: past the first poll
    got = lags(meter, steady_polls(0.0, 40), reports)
    assert got == pytest.approx([POLL_S + POLL_TOOK_S] * len(reports))


def test_a_drifting_phase_does_not_move_the_lag() -> None:
    """The polls come every 1.013 s (a poll's own overhead), so the reports' phase sweeps a whole cycle."""
    meter = LagMeter(now=0.0)
    period = POLL_S + 0.013
    polls = [(i * period, i * period + POLL_TOOK_S, False) for i in range(100)]
    reports = [REPORT_S * k for k in range(3, 95)]
    assert lags(meter, polls, reports) == pytest.approx([period + POLL_TOOK_S] * len(reports))


def test_a_poll_interval_longer_than_the_report_interval_gives_one_value() -> None:
    meter = LagMeter(now=0.0)
    polls = [(5.0 * i, 5.0 * i + POLL_TOOK_S, False) for i in range(12)]
    reports = [0.3 + REPORT_S * k for k in range(6, 55)]
    assert lags(meter, polls, reports) == pytest.approx([5.0 + POLL_TOOK_S] * len(reports))


def test_a_slower_poll_moves_the_lag_by_its_duration() -> None:
    meter = LagMeter(now=0.0)
    polls = steady_polls(0.0, 10) + steady_polls(10.0, 10, took=0.25)
    reports = [0.5 + REPORT_S * k for k in range(2, 19)]
    got = lags(meter, polls, reports)
    assert got[:8] == pytest.approx([POLL_S + POLL_TOOK_S] * 8)
    assert got[-7:] == pytest.approx([POLL_S + 0.25] * 7)


def test_full_pages_leave_the_lag_growing_until_a_page_is_not_full() -> None:
    meter = LagMeter(now=0.0)
    full = [(0.1 * i, 0.1 * i + 0.05, True) for i in range(1, 50)]  # behind for five seconds
    got = lags(meter, [*full, (5.0, 5.05, False), (6.0, 6.02, False)], [1.0, 2.0, 3.0, 4.0, 5.5, 6.5])
    assert got == pytest.approx([1.0, 2.0, 3.0, 4.0, 5.05, 1.02])


def test_time_paused_does_not_count() -> None:
    meter = LagMeter(now=0.0)
    meter.polled(0.0, 0.02, False)
    meter.pause(0.5)
    assert meter.take(10.0) is None
    meter.resume(20.0)  # 19.5 s paused: the view is as old as it was at 0.5
    assert meter.take(20.5) == pytest.approx(1.0)


def test_only_a_new_poll_interval_wakes_the_watchers() -> None:
    """Waking shifts the polls' phase; the issue's lag fell from 1,000 to 250 ms when the hint went off.
    Two pollers of change_watcher.yaml's watch (not started: no database is read)."""
    definition = builtin_definition("change_watcher")
    assert definition.watch is not None
    watch = definition.watch.model_copy(update={"key": ["SingerId"], "versions": None, "shards": None})
    definition = definition.model_copy(update={"watch": watch})
    knobs = definition.knob_values({"watchers": 2, "poll_interval": 1000})
    watcher = DefinitionWatcher(lambda: None, definition, knobs, None, dt.datetime.now(dt.UTC))  # type: ignore[arg-type]
    watcher._pollers = [_Poller(watcher, i, dt.datetime.now(dt.UTC)) for i in range(2)]
    watcher.apply({**knobs, "table_hint": False, "limit": 500})
    assert [p.wake.is_set() for p in watcher._pollers] == [False, False]
    assert watcher.limit == 500 and "FORCE_INDEX" not in watcher.next_sql  # applied, without a wake
    watcher.apply({**knobs, "poll_interval": 250})
    assert [p.wake.is_set() for p in watcher._pollers] == [True, True]
