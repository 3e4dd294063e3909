"""Open-loop pacing: Poisson arrivals at a target rate, dispatched to a fixed pool of threads.

The pacer never waits for an operation to finish before scheduling the next one. Each operation
carries its *intended* start; when every thread is busy, due operations queue up and show as
``behind`` and as intended-start latency, never as a silently lower rate (coordinated omission).
"""

from __future__ import annotations

import collections
import logging
import random
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

MAX_BACKLOG = 1_000_000  # due operations kept; beyond this they are counted as dropped


def share(total: float, worker: int, workers: int) -> float:
    """This worker's part of a rate split evenly between ``workers`` processes."""
    return total / workers


def share_threads(total: int, worker: int, workers: int) -> int:
    """This worker's part of a thread count: the remainder goes to the first workers; at least 1."""
    return max(1, total // workers + (1 if worker < total % workers else 0))


class PoissonSchedule:
    """Intended start times of a Poisson process whose rate can change at any moment.

    Exponential gaps are memoryless, so when the rate changes the next arrival is redrawn
    from the moment of the change: the new rate applies at once, not after the old gap.
    """

    def __init__(self, rate_per_s: float, start: float, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        self._rate = rate_per_s
        self.next_at = start + self._gap()

    @property
    def rate(self) -> float:
        return self._rate

    def _gap(self) -> float:
        return self._rng.expovariate(self._rate) if self._rate > 0 else float("inf")

    def set_rate(self, rate_per_s: float, now: float) -> None:
        if rate_per_s != self._rate:
            self._rate = rate_per_s
            self.next_at = now + self._gap()

    def restart(self, now: float) -> None:
        """Forget arrivals that fell due while paused: the schedule resumes from ``now``."""
        self.next_at = now + self._gap()

    def pop_due(self, now: float) -> list[float]:
        """Intended start times of every arrival due at or before ``now``, oldest first."""
        due: list[float] = []
        while self.next_at <= now:
            due.append(self.next_at)
            self.next_at += self._gap()
        return due


Operation = Callable[[float, float], None]  # (intended_start, actual_start) -> None; times from perf_counter


class Pacer:
    """Runs ``operation`` on Poisson arrivals with up to ``parallelism`` running at once.

    There is no dispatcher thread: each pool thread claims the next arrival, sleeps until its
    intended start and runs it, so an operation costs one lock and one timed wait. When every
    thread is busy, arrivals fall due unclaimed; they are kept (``behind``) and run late, each
    timed from its intended start. ``operation(intended, actual)`` runs on a pool thread.
    """

    def __init__(
        self,
        name: str,
        operation: Operation,
        rate_per_s: float,
        parallelism: int,
        think_time_s: float = 0.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.name = name
        self._operation = operation
        self._clock = clock
        self._cond = threading.Condition()
        self._schedule = PoissonSchedule(rate_per_s, clock())
        self._due: collections.deque[float] = collections.deque()  # fell due, not yet claimed
        self._think_time_s = think_time_s
        self._paused = False
        self._stopping = False
        self._started = False
        self._generation = 0  # bumped by every change that invalidates claimed future arrivals
        self._running = 0
        self._wanted_threads = parallelism
        self._threads: list[threading.Thread] = []
        self._thread_ids = 0
        self.dropped = 0
        self.scheduled = 0  # arrivals the schedule produced (they ran, wait in the backlog, or were dropped)

    # -- control -------------------------------------------------------------------------------

    def start(self) -> None:
        with self._cond:
            self._started = True
            self._schedule.restart(self._clock())
            self._grow_locked()

    def set_rate(self, rate_per_s: float) -> None:
        with self._cond:
            if rate_per_s != self._schedule.rate:
                self._schedule.set_rate(rate_per_s, self._clock())
                self._changed_locked()

    def set_parallelism(self, parallelism: int) -> None:
        with self._cond:
            self._wanted_threads = parallelism
            if self._started:
                self._grow_locked()
            # No _changed_locked(): claimed arrivals stay valid (voiding them would skip them);
            # a surplus thread runs the one it holds, then exits at its next claim.
            self._cond.notify_all()

    def set_think_time(self, think_time_s: float) -> None:
        with self._cond:
            self._think_time_s = think_time_s

    def pause(self) -> None:
        with self._cond:
            self._paused = True
            self._due.clear()
            self._changed_locked()

    def resume(self) -> None:
        with self._cond:
            if self._paused:
                self._paused = False
                self._schedule.restart(self._clock())
                self._changed_locked()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop scheduling, drop what is due, and wait for running operations to finish."""
        with self._cond:
            self._stopping = True
            self._due.clear()
            self._changed_locked()
            threads = list(self._threads)
        deadline = time.monotonic() + timeout_s
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    # -- gauges --------------------------------------------------------------------------------

    @property
    def rate(self) -> float:
        return 0.0 if self._paused else self._schedule.rate

    @property
    def behind(self) -> int:
        """Operations that are due but have not started, because every thread is busy."""
        with self._cond:
            if not self._paused and self._started:
                self._collect_due_locked(self._clock())
            return len(self._due)

    @property
    def in_flight(self) -> int:
        with self._cond:
            return self._running

    # -- threads -------------------------------------------------------------------------------

    def _changed_locked(self) -> None:
        self._generation += 1
        self._cond.notify_all()

    def _collect_due_locked(self, now: float) -> None:
        due = self._schedule.pop_due(now)
        self.scheduled += len(due)
        room = MAX_BACKLOG - len(self._due)
        if len(due) > room:
            self.dropped += len(due) - room
            due = due[:room]
        self._due.extend(due)

    def _grow_locked(self) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]
        while len(self._threads) < self._wanted_threads:
            self._thread_ids += 1
            thread = threading.Thread(target=self._work_loop, name=f"{self.name}-{self._thread_ids}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def _exits_locked(self, me: threading.Thread) -> bool:
        """True if thread ``me`` must exit: the pacer stops, or it is a thread too many (it leaves)."""
        if self._stopping:
            return True
        if len(self._threads) > self._wanted_threads and me in self._threads:
            self._threads.remove(me)
            return True
        return False

    def _claim_locked(self) -> float | None:
        """The intended start of this thread's next operation, once it is due; None: exit."""
        me = threading.current_thread()
        while True:
            if self._exits_locked(me):
                return None
            if self._paused or self._schedule.rate <= 0:
                self._cond.wait()
                continue
            now = self._clock()
            self._collect_due_locked(now)
            if self._due:
                return self._due.popleft()
            intended = self._schedule.next_at
            self._schedule.pop_due(intended)  # claim it: the schedule moves on to the next arrival
            generation = self._generation
            while not self._stopping and self._generation == generation:
                wait = intended - self._clock()
                if wait <= 0:
                    self.scheduled += 1  # counted when due, so a voided claim never counts
                    return intended
                self._cond.wait(wait)
            # rate, parallelism, pause or stop changed while waiting: the claim is void

    def _work_loop(self) -> None:
        while True:
            with self._cond:
                intended = self._claim_locked()
                if intended is None:
                    return
                self._running += 1
                think_s = self._think_time_s
            try:
                self._operation(intended, self._clock())
            except Exception:  # an operation records its own errors; this only guards the thread
                logger.exception("%s: operation raised", self.name)
            finally:
                with self._cond:
                    self._running -= 1
            if think_s > 0:
                time.sleep(think_s)


class PacedLoad:
    """Base of the updater and the reader: a :class:`Pacer` that a run pause, or the workload's
    own ``enabled: false``, holds still."""

    def __init__(self, pacer: Pacer, enabled: bool) -> None:
        self._pacer = pacer
        self._enabled = enabled
        self._run_paused = False

    def start(self) -> None:
        self._sync_paused()  # first, so that a disabled workload never runs an operation
        self._pacer.start()

    def set_enabled(self, enabled: bool) -> None:
        self._enabled = enabled
        self._sync_paused()

    def set_paused(self, paused: bool) -> None:
        """Pause or resume for the whole run (``enabled: false`` keeps it paused either way)."""
        self._run_paused = paused
        self._sync_paused()

    def _sync_paused(self) -> None:
        if self._run_paused or not self._enabled:
            self._pacer.pause()
        else:
            self._pacer.resume()

    def stop(self) -> None:
        self._pacer.stop()

    def take_counts(self) -> tuple[int, int]:
        """(scheduled, dropped) since the last call: arrivals the schedule produced, and those
        dropped because the backlog was full."""
        with self._pacer._cond:
            scheduled, self._pacer.scheduled = self._pacer.scheduled, 0
            dropped, self._pacer.dropped = self._pacer.dropped, 0
        return scheduled, dropped


class ClosedLoopPacer(Pacer):
    """Closed loop: ``parallelism`` executors run ``operation`` back to back, each pausing
    ``think_time_s`` after an execution. No schedule: an execution's intended start is its actual
    start, and nothing is ever behind or counted as scheduled."""

    def __init__(
        self,
        name: str,
        operation: Operation,
        parallelism: int,
        think_time_s: float = 0.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(name, operation, 0.0, parallelism, think_time_s, clock)

    @property
    def rate(self) -> float:
        return 0.0

    def _claim_locked(self) -> float | None:
        me = threading.current_thread()
        while True:
            if self._exits_locked(me):
                return None
            if self._paused:
                self._cond.wait()
                continue
            return self._clock()
