"""The capacity search's bisection, back-off and concurrency verdict against synthetic sample
streams whose knee is known exactly (the rest of its logic: test_capacity_search.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from spanload.engine.capacity import CapacitySearch, InFlightCap, Names
from spanload.model.capacity import CapacityConfig, CapacityResult, Limit, curve
from spanload.model.config import RunConfig
from spanload.model.samples import Gauge, Sample
from tests.engine.test_capacity_search import _sample

NAMES = Names.of(RunConfig())

# rate -> achieved, ms from the intended start, ms from the actual start
Target = Callable[[float], tuple[float, float, float]]


def _run(target: Target, cap: InFlightCap | None = None, **overrides: object) -> tuple[CapacityResult, list[float]]:
    """The search fed one interval at a time at the rate it asked for; returns the result and every
    rate it asked for, in order (the patches a run would get)."""
    config = CapacityConfig.model_validate(
        {"start_rate": 100, "step": 100, "max_rate": 1000, "min_step_s": 2, "max_step_s": 2, "latency_ms": 20}
        | overrides
    )
    search = CapacitySearch(config, NAMES, in_flight_cap=cap)
    asked = [search.rate]
    for seq in range(500):
        if search.result is not None:
            break
        achieved, intended, service = target(asked[-1])
        following = search.observe(_sample(seq, asked[-1], achieved, intended, service_ms=service))
        if following is not None:
            asked.append(following)
    assert search.result is not None
    return search.result, asked


def _knee_at(knee: float) -> Target:
    """Keeps up at every rate; 5 ms up to ``knee``, 80 ms above it."""
    return lambda rate: (rate, 5.0 if rate <= knee else 80.0, 5.0 if rate <= knee else 80.0)


def test_bisection_halves_the_gap_between_the_highest_that_held_and_the_lowest_that_broke() -> None:
    result, asked = _run(_knee_at(370), bisect=3)
    assert asked == [100, 200, 300, 400, 350, 375, 362.5]
    assert [s.held for s in result.steps] == [True, True, True, False, True, False, True]
    assert result.knee == 362.5 and result.limited_by is Limit.DATABASE
    assert result.broke_by == result.steps[5].broke_by == ["p99 87.7 ms is above 20 ms"]  # 375's, the lowest broken
    assert result.note == "the database broke at 375/s"
    # the curve: one point per step in order of rate, the knee marked; the same knee from the steps alone
    drawn = curve(result.steps, result)
    assert [p.rate for p in drawn.points] == [100, 200, 300, 350, 362.5, 375, 400]
    assert [p.rate for p in drawn.points if p.knee] == [362.5] and drawn.limited_by is Limit.DATABASE
    assert curve(result.steps).knee == 362.5 and curve(result.steps[:4]).knee == 300
    # without bisection the knee is the step below the first that broke
    result, asked = _run(_knee_at(370))
    assert (result.knee, asked) == (300, [100, 200, 300, 400])


def test_a_back_off_holds_the_last_rate_that_held_before_each_probe_after_a_broken_step() -> None:
    result, asked = _run(_knee_at(370), bisect=3, back_off_s=2)
    # 400 broke: back to 300, then 350 (held: straight on to 375); 375 broke: back to 350, then 362.5
    assert asked == [100, 200, 300, 400, 300, 350, 375, 350, 362.5]
    assert [s.rate for s in result.steps] == [100, 200, 300, 400, 350, 375, 362.5]  # back-offs are not judged
    assert result.knee == 362.5


def test_a_back_off_lasts_until_the_broken_steps_backlog_drained_or_four_times_its_length() -> None:
    config = CapacityConfig(
        start_rate=100, step=100, max_rate=1000, min_step_s=2, max_step_s=2, latency_ms=20, bisect=1, back_off_s=2
    )
    for backlog, intervals in ((3, 1 + 3), (100, 1 + 8)):  # drained after 3 intervals; never (8 = 4 x 2 s)
        search = CapacitySearch(config, NAMES)
        stream = [_sample(i, 100, 100, 5.0) for i in range(3)] + [_sample(3 + i, 200, 200, 80.0) for i in range(3)]
        assert [search.observe(s) for s in stream][-1] == 100  # 200 broke: back off to 100
        asked = None
        for i in range(20):
            asked = search.observe(_sample(10 + i, 100, 100, 5.0, behind=max(0, backlog - i)))
            if asked is not None:
                break
        assert (asked, i + 1) == (150, intervals)


def test_executors_all_busy_while_the_database_answers_in_time_is_the_clients_limit() -> None:
    def capped(rate: float) -> tuple[float, float, float]:
        """4 executors, 40 ms an operation: at most 100/s; past it arrivals queue in the client."""
        achieved = min(rate, 100.0)
        return achieved, 40.0 if rate <= 100 else 400.0, 40.0

    knob = "updater.parallelism"
    result, _ = _run(capped, InFlightCap(4, knob), start_rate=50, step=50, latency_ms=None)
    assert (result.knee, result.limited_by) == (100, Limit.CLIENT)
    assert result.broke_by == ["achieved 100.0/s is below 90 % of 150/s"]
    assert result.steps[-1].in_flight == pytest.approx(4.0, rel=0.01)  # 100/s x 40 ms (Little's law)
    assert "every one of their 4 executors was busy" in result.note and "raise updater.parallelism" in result.note
    # many executors, few busy: the database's
    result, _ = _run(capped, InFlightCap(64, knob), start_rate=50, step=50, latency_ms=None)
    assert result.limited_by is Limit.DATABASE
    # every executor busy, but because the database answered past the limit: the database's
    result, _ = _run(
        lambda rate: (min(rate, 100.0), 400.0 if rate <= 100 else 700.0, 40.0 if rate <= 100 else 600.0),
        InFlightCap(4, knob),
        start_rate=50,
        step=50,
        latency_ms=500,
    )
    assert (result.knee, result.limited_by) == (100, Limit.DATABASE)


def test_achieved_is_judged_against_the_arrivals_the_schedule_produced() -> None:
    config = CapacityConfig(start_rate=100, step=100, max_rate=1000, min_step_s=2, max_step_s=2)
    search = CapacitySearch(config, NAMES)

    def interval(seq: int, rate: float, scheduled: float, achieved: float) -> Sample:
        sample = _sample(seq, rate, achieved, 5.0)
        sample.gauges[Gauge.UPDATER_SCHEDULED_TPS] = scheduled
        return sample

    # at 100/s the Poisson schedule happened to produce 85 arrivals a second, and all ran: held
    assert [search.observe(interval(i, 100, 85, 85)) for i in range(3)] == [None, None, 200]
    # at 200/s it produced 200 a second and 150 ran (the rest fell behind): broke
    assert [search.observe(interval(3 + i, 200, 200, 150)) for i in range(3)] == [None, None, None]
    assert search.result is not None and search.result.knee == 100
    broke = "achieved 150.0/s is below 90 % of the 200.0/s the schedule asked for (target 200/s)"
    assert search.result.broke_by == [broke]
