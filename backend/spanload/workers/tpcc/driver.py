"""Runs the TPC-C mix in a worker process: terminals (closed loop) or Poisson arrivals (open loop).

``tpcc.mode: closed``: this worker's share of ``tpcc.terminals`` threads, each with a home
warehouse (terminal k of the run serves warehouse k mod W + 1), dealing its next transaction from
the process's deck as soon as the last one ended; with ``keying_think_times`` each waits the
spec's keying time before and a think time (negative exponential, capped at 10x its mean) after.
``tpcc.mode: open``: the Poisson pacer at this worker's share of ``tpcc.transactions_per_second``,
at most its share of ``terminals`` in flight, each arrival dealt from the deck with a random home
warehouse, timed from its intended start as well.

Each business transaction is timed into ``tpcc.<type>`` (successes and New-Order's deliberate
rollbacks, from the actual start), ``tpcc.<type>_intended`` (open mode), ``tpcc.<type>_server``
and ``tpcc.<type>.failed``; counted as ``tpcc.<type>`` (completed), ``.rollbacks``, ``.aborts``,
``.retries``, ``.errors`` and Delivery's ``.skipped``, and in the run's ``transactions`` total.
Closed mode reports ``tpcc.terminals``: the terminals that began a transaction and have not ended.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable

from google.api_core import exceptions as gexc

from spanload.model.config import TpccConfig, TpccMode
from spanload.model.protocol import Counter
from spanload.model.samples import Gauge
from spanload.model.tpcc import ABORTS, ERRORS, RETRIES, ROLLBACKS, SKIPPED, TxType
from spanload.spanner import deadline, request_tags, timing
from spanload.workers.pacing import PacedLoad, Pacer, share, share_threads
from spanload.workers.stats import WorkerStats
from spanload.workers.tpcc.common import Database, Outcome, Terminal
from spanload.workers.tpcc.delivery import delivery
from spanload.workers.tpcc.new_order import new_order
from spanload.workers.tpcc.order_status import order_status
from spanload.workers.tpcc.payment import payment
from spanload.workers.tpcc.rand import Deck, RunRandom
from spanload.workers.tpcc.statements import GOOGLESQL, Statements
from spanload.workers.tpcc.stock_level import stock_level

logger = logging.getLogger(__name__)

US_PER_S = 1_000_000
THINK_CAP = 10  # a think time is at most 10x its mean (clause 5.2.5.4)

TRANSACTIONS: dict[TxType, Callable[[Database, Terminal, Outcome], None]] = {
    TxType.NEW_ORDER: new_order,
    TxType.PAYMENT: payment,
    TxType.ORDER_STATUS: order_status,
    TxType.DELIVERY: delivery,
    TxType.STOCK_LEVEL: stock_level,
}
# Clause 5.2.5.7: keying time and mean think time, seconds.
KEYING_S = {TxType.NEW_ORDER: 18, TxType.PAYMENT: 3, TxType.ORDER_STATUS: 2, TxType.DELIVERY: 2, TxType.STOCK_LEVEL: 2}
THINK_MEAN_S = {
    TxType.NEW_ORDER: 12,
    TxType.PAYMENT: 12,
    TxType.ORDER_STATUS: 10,
    TxType.DELIVERY: 5,
    TxType.STOCK_LEVEL: 5,
}


def think_time(rng: random.Random, kind: TxType) -> float:
    mean = THINK_MEAN_S[kind]
    return min(-math.log(1.0 - rng.random()) * mean, THINK_CAP * mean)


class TpccRunner:
    """Runs one dealt transaction at a time for a caller and records it (``statements``: its
    queries in the database's dialect)."""

    def __init__(
        self,
        database: Callable[[], Database],
        config: TpccConfig,
        stats: WorkerStats,
        statements: Statements = GOOGLESQL,
    ) -> None:
        self._database = database
        self.config = config
        self._statements = statements
        self._stats = stats
        self.deck = Deck()

    def terminal(self, w_id: int, rng: random.Random | None = None) -> Terminal:
        rand = RunRandom(self.config.items, self.config.customers_per_district, rng)
        return Terminal(w_id, self.config.warehouses, rand, self._statements)

    def run_one(self, kind: TxType, terminal: Terminal, intended: float | None, actual: float) -> None:
        """Run one ``kind`` transaction for ``terminal``, started at ``actual`` and due at
        ``intended`` (None: a terminal's, due when it starts), and record it."""
        outcome = Outcome()
        stats = self._stats
        request_tags.use(kind.value)
        timing.begin()
        try:
            with deadline.operation():
                TRANSACTIONS[kind](self._database(), terminal, outcome)
        except Exception as err:
            stats.failed(kind.op_failed, err, (time.perf_counter() - actual) * US_PER_S)
            stats.count(kind.counter(ERRORS))
            aborts = outcome.retries + int(isinstance(err, gexc.Aborted))
            if aborts:
                stats.count(kind.counter(ABORTS), aborts)
            timing.take()
            logger.debug("%s failed: %s", kind.value, err)
            return
        stats.succeeded(kind.op, actual, intended)
        stats.count(kind.counter())
        stats.count(Counter.TRANSACTIONS)
        retries = outcome.retries
        if retries:
            stats.count(kind.counter(RETRIES), retries)
            stats.count(kind.counter(ABORTS), retries)
            stats.count(Counter.RETRIES, retries)
        if outcome.rolled_back:
            stats.count(kind.counter(ROLLBACKS))
        if outcome.skipped:
            stats.count(kind.counter(SKIPPED), outcome.skipped)


class Terminals:
    """Closed loop: threads that each run their next transaction when the last one ended."""

    def __init__(self, runner: TpccRunner, count: int, first: int) -> None:
        self._runner = runner
        self._first = first  # the run-wide number of this worker's first terminal
        self._cond = threading.Condition()
        self._wanted = count
        self._threads: list[threading.Thread] = []
        self._paused = True
        self._stopping = False
        self.running = 0
        self._began: set[int] = set()  # terminals that began a transaction and have not ended

    @property
    def terminals(self) -> int:
        """Terminals running: each began its first transaction, and its loop has not ended."""
        with self._cond:
            return len(self._began)

    def start(self) -> None:
        with self._cond:
            self._grow_locked()

    def set_count(self, count: int) -> None:
        with self._cond:
            self._wanted = count
            self._grow_locked()
            self._cond.notify_all()

    def set_paused(self, paused: bool) -> None:
        with self._cond:
            self._paused = paused
            self._cond.notify_all()

    def stop(self, timeout_s: float = 30.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            threads = list(self._threads)
        end = time.monotonic() + timeout_s
        for thread in threads:
            thread.join(max(0.0, end - time.monotonic()))

    def _grow_locked(self) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]
        numbers = {getattr(t, "terminal_number", -1) for t in self._threads}
        number = 0
        while len(self._threads) < self._wanted:
            while number in numbers:
                number += 1
            numbers.add(number)
            thread = threading.Thread(target=self._loop, args=(number,), name=f"tpcc-terminal-{number}", daemon=True)
            thread.terminal_number = number  # type: ignore[attr-defined]
            self._threads.append(thread)
            thread.start()

    def _wait_turn(self, number: int) -> bool:
        """Block while paused; False once this terminal should end (stop, or fewer wanted)."""
        with self._cond:
            while True:
                if self._stopping or number >= self._wanted:
                    return False
                if not self._paused:
                    self.running += 1
                    self._began.add(number)
                    return True
                self._cond.wait()

    def _loop(self, number: int) -> None:
        try:
            self._terminal(number)
        finally:
            with self._cond:
                self._began.discard(number)

    def _terminal(self, number: int) -> None:
        runner = self._runner
        warehouses = runner.config.warehouses
        terminal = runner.terminal((self._first + number) % warehouses + 1)
        while True:
            kind = runner.deck.deal()
            paced = runner.config.keying_think_times
            if paced and self._sleep(KEYING_S[kind]):
                return
            if not self._wait_turn(number):
                return
            try:
                runner.run_one(kind, terminal, None, time.perf_counter())
            finally:
                with self._cond:
                    self.running -= 1
            if paced and self._sleep(think_time(terminal.rng, kind)):
                return

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless stopped meanwhile; True if stopped."""
        with self._cond:
            end = time.monotonic() + seconds
            while not self._stopping and (left := end - time.monotonic()) > 0:
                self._cond.wait(left)
            return self._stopping


class TpccLoad:
    """This worker's part of a TPC-C run, driven like the updater (start, apply, pause, stop)."""

    def __init__(
        self,
        database: Callable[[], Database],
        config: TpccConfig,
        stats: WorkerStats,
        worker: int,
        workers: int,
        statements: Statements = GOOGLESQL,
    ) -> None:
        self.config = config
        self._worker = worker
        self._workers = workers
        self.runner = TpccRunner(database, config, stats, statements)
        self._terminals: Terminals | None = None
        self._pacer: Pacer | None = None
        self._paced: PacedLoad | None = None
        threads = share_threads(config.terminals, worker, workers)
        if config.mode is TpccMode.CLOSED:
            first = sum(share_threads(config.terminals, i, workers) for i in range(worker))
            self._terminals = Terminals(self.runner, threads, first)
        else:
            self._local = threading.local()
            rate = share(config.transactions_per_second, worker, workers)
            self._pacer = Pacer("tpcc", self._arrival, rate, threads)
            self._paced = PacedLoad(self._pacer, True)

    def _arrival(self, intended: float, actual: float) -> None:
        terminal: Terminal | None = getattr(self._local, "terminal", None)
        if terminal is None:
            terminal = self._local.terminal = self.runner.terminal(1)
        terminal.w_id = terminal.rng.randint(1, self.config.warehouses)
        self.runner.run_one(self.runner.deck.deal(), terminal, intended, actual)

    def start(self) -> None:
        if self._terminals is not None:
            self._terminals.start()
            self._terminals.set_paused(False)
        elif self._paced is not None:
            self._paced.start()

    def apply(self, config: TpccConfig) -> None:
        self.config = self.runner.config = config
        threads = share_threads(config.terminals, self._worker, self._workers)
        if self._terminals is not None:
            self._terminals.set_count(threads)
        elif self._pacer is not None:
            self._pacer.set_rate(share(config.transactions_per_second, self._worker, self._workers))
            self._pacer.set_parallelism(threads)

    def set_paused(self, paused: bool) -> None:
        if self._terminals is not None:
            self._terminals.set_paused(paused)
        elif self._paced is not None:
            self._paced.set_paused(paused)

    def stop(self) -> None:
        if self._terminals is not None:
            self._terminals.stop()
        elif self._paced is not None:
            self._paced.stop()

    def gauges(self) -> dict[str, float]:
        if self._pacer is not None:
            return {Gauge.UPDATER_TARGET_TPS: self._pacer.rate, Gauge.UPDATER_BEHIND: float(self._pacer.behind)}
        if self._terminals is not None:
            return {Gauge.TPCC_TERMINALS: float(self._terminals.terminals)}
        return {}

    def take_counts(self) -> tuple[int, int]:
        return self._paced.take_counts() if self._paced is not None else (0, 0)
