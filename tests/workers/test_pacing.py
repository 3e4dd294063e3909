"""Open-loop pacing: Poisson arrivals at the target rate, backlog shown instead of a lower rate."""

from __future__ import annotations

import itertools
import random
import threading
import time

import pytest

from spanload.workers.pacing import Pacer, PoissonSchedule
from tests.helpers import wait_for


def test_arrivals_average_the_target_rate() -> None:
    schedule = PoissonSchedule(5.0, start=0.0, rng=random.Random(7))
    arrivals = schedule.pop_due(10_000.0)
    assert len(arrivals) == pytest.approx(50_000, rel=0.02)
    assert arrivals == sorted(arrivals)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    mean = sum(gaps) / len(gaps)
    variance = sum((g - mean) ** 2 for g in gaps) / len(gaps)
    assert variance**0.5 == pytest.approx(mean, rel=0.05)  # exponential gaps: sd equals mean


def test_a_rate_change_applies_from_the_moment_of_the_change() -> None:
    schedule = PoissonSchedule(0.001, start=0.0, rng=random.Random(1))  # next arrival far away
    schedule.set_rate(100.0, now=5.0)
    assert 5.0 < schedule.next_at < 6.0
    assert len(schedule.pop_due(15.0)) == pytest.approx(1000, rel=0.1)


def test_restart_forgets_arrivals_that_fell_due_while_paused() -> None:
    schedule = PoissonSchedule(10.0, start=0.0, rng=random.Random(2))
    schedule.restart(now=100.0)
    assert schedule.next_at > 100.0


def test_a_saturated_pool_shows_a_backlog_and_intended_start_before_actual_start() -> None:
    gate = threading.Event()
    starts: list[tuple[float, float]] = []

    def operation(intended: float, actual: float) -> None:
        starts.append((intended, actual))
        gate.wait()

    pacer = Pacer("test", operation, rate_per_s=200.0, parallelism=2)
    pacer.start()
    try:
        wait_for(lambda: pacer.behind >= 20 or None, 10, "a backlog behind two blocked threads")
        assert pacer.in_flight == 2
    finally:
        gate.set()
        pacer.stop()
    assert all(intended <= actual for intended, actual in starts)


def test_pause_stops_scheduling_and_clears_the_backlog() -> None:
    lock = threading.Lock()
    intended_starts: list[float] = []

    def operation(intended: float, actual: float) -> None:
        with lock:
            intended_starts.append(intended)

    def calls() -> int:
        with lock:
            return len(intended_starts)

    pacer = Pacer("test", operation, rate_per_s=100.0, parallelism=1)
    pacer.start()
    try:
        wait_for(lambda: calls() >= 5 or None, 10, "5 operations at 100/s")
        pacer.pause()
        paused_at = time.perf_counter()  # the pacer's clock
        wait_for(lambda: pacer.in_flight == 0 or None, 10, "the operation in flight to end")
        assert pacer.behind == 0 and pacer.rate == 0.0
        during = calls()
        time.sleep(0.5)  # 50 arrivals would fall due at 100/s if pause did not stop scheduling
        assert calls() == during, f"{calls() - during} operations ran while paused"
        pacer.resume()
        assert pacer.rate == 100.0
        wait_for(lambda: calls() >= during + 5 or None, 10, "operations to run again after resume")
    finally:
        pacer.stop()
    with lock:
        after_resume = intended_starts[during:]
    # the arrivals that fell due while paused were dropped, not run late after resume
    assert min(after_resume) >= paused_at + 0.5, "an arrival scheduled during the pause ran after resume"


def test_parallelism_can_shrink_and_grow_live() -> None:
    pacer = Pacer("test", lambda i, a: None, rate_per_s=50.0, parallelism=4)
    pacer.start()
    try:
        pacer.set_parallelism(1)
        wait_for(lambda: sum(t.is_alive() for t in pacer._threads) == 1 or None, 10, "surplus threads to exit")
        pacer.set_parallelism(3)
        assert sum(t.is_alive() for t in pacer._threads) == 3
    finally:
        pacer.stop()
