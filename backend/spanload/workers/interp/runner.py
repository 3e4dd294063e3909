"""The interpreter's load: each operation of a definition its own paced load, with its own metrics.

An open-loop operation runs on a :class:`~spanload.workers.pacing.Pacer` at this worker's share of
its rate with up to its share of ``max_in_flight`` executions at once; a closed-loop one on a
:class:`~spanload.workers.pacing.ClosedLoopPacer` with its share of ``concurrency`` executors. A
``patch`` re-resolves every operation's pacing (:func:`spanload.model.pacing.resolve`) and, when
knobs changed, recompiles the operations (generators whose knobs did not change are kept), from the
next execution on. Execution ``n`` of operation ``op`` on worker ``w`` draws from
``stream(seed, "op/<op>/<w>", n)``.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from typing import Any

from spanload.model.config import RunConfig
from spanload.model.op_metrics import OpCounter, OpGauge, OpHistogram, name
from spanload.model.pacing import OperationPacing, ResolvedPacing, resolve
from spanload.model.protocol import Counter
from spanload.model.workload import KnobValue, WorkloadDefinition
from spanload.spanner import deadline, request_tags, timing
from spanload.workers.interp.generators import Sequence
from spanload.workers.interp.ledger import FreshKeys, WriteLedger, writer_id
from spanload.workers.interp.operation import CompiledOperation, DrawCache, Writes, compile_operation
from spanload.workers.interp.prng import label_base, operation_label, stream_at
from spanload.workers.pacing import ClosedLoopPacer, PacedLoad, Pacer, share, share_threads
from spanload.workers.stats import UNKNOWN_OUTCOME, WorkerStats

logger = logging.getLogger(__name__)

US_PER_S = 1_000_000


class OperationLoad(PacedLoad):
    """One operation's executions on this worker."""

    def __init__(
        self,
        plan: CompiledOperation,
        pacing: ResolvedPacing,
        database: Callable[[], Any],
        stats: WorkerStats,
        seq: Sequence,
        seed: int,
        worker: int,
        workers: int,
    ) -> None:
        op = plan.name
        self.name = op
        self._database = database
        self._stats = stats
        self._seq = seq
        self._worker, self._workers = worker, workers
        self._base = label_base(seed, operation_label(op, worker))
        self._executions = itertools.count()
        self._latency = name(OpHistogram.LATENCY, op)
        self._failed = name(OpHistogram.FAILED, op)
        self._done = name(OpCounter.DONE, op)
        self._rows = name(OpCounter.ROWS, op)
        self.scheduled_counter = name(OpCounter.SCHEDULED, op)
        self._target = name(OpGauge.TARGET_PS, op)
        self._behind = name(OpGauge.BEHIND, op)
        self._in_flight = name(OpGauge.IN_FLIGHT, op)
        self.plan = plan
        self.open_loop = pacing.rate is not None
        pacer: Pacer
        if pacing.rate is not None:
            pacer = Pacer(
                f"op-{op}",
                self._execute,
                share(pacing.rate, worker, workers),
                share_threads(pacing.max_in_flight, worker, workers),
            )
        else:
            assert pacing.concurrency is not None
            pacer = ClosedLoopPacer(
                f"op-{op}",
                self._execute,
                share_threads(pacing.concurrency, worker, workers),
                pacing.think_time_ms / 1000,
            )
        super().__init__(pacer, pacing.enabled)

    def set_plan(self, plan: CompiledOperation) -> None:
        plan.on_retries = self._retried
        self.plan = plan  # one reference swap: an execution uses the plan it started with

    def set_pacing(self, pacing: ResolvedPacing) -> None:
        if pacing.rate is not None:
            self._pacer.set_rate(share(pacing.rate, self._worker, self._workers))
            self._pacer.set_parallelism(share_threads(pacing.max_in_flight, self._worker, self._workers))
        elif pacing.concurrency is not None:
            self._pacer.set_parallelism(share_threads(pacing.concurrency, self._worker, self._workers))
            self._pacer.set_think_time(pacing.think_time_ms / 1000)
        self.set_enabled(pacing.enabled)

    def gauges(self) -> dict[str, float]:
        pacer = self._pacer
        out = {self._in_flight: float(pacer.in_flight)}
        if self.open_loop:
            out[self._target] = pacer.rate
            out[self._behind] = float(pacer.behind)
        return out

    def _retried(self, n: int) -> None:
        self._stats.count(Counter.RETRIES, n)

    def _execute(self, intended: float, actual: float) -> None:
        plan = self.plan
        rng = stream_at(self._base, next(self._executions))
        writes: Writes = []
        request_tags.use(self.name)
        timing.begin()
        try:
            drawn = plan.draw(rng, self._seq, writes)
            with deadline.operation():
                rows, written = plan.execute(self._database(), drawn)
        except Exception as err:
            if writes and plan.ledger is not None:
                plan.ledger.failed(writes, outcome_unknown=isinstance(err, UNKNOWN_OUTCOME))
            self._stats.failed(self._failed, err, (time.perf_counter() - actual) * US_PER_S)
            timing.take()
            logger.debug("%s failed: %s", self.name, err)
            return
        if writes and plan.ledger is not None:
            plan.ledger.committed(writes)
        self._stats.succeeded(self._latency, actual, intended)
        counts = {self._done: 1}
        if rows:
            counts[self._rows] = rows
        if plan.writes:  # the legacy totals, in the same report as the execution (see operations_in)
            counts[Counter.TRANSACTIONS] = 1
            if written:
                counts[Counter.MUTATIONS] = written
        self._stats.count_many(counts)


class Interpreter:
    """Every operation of a definition on this worker."""

    def __init__(
        self,
        database: Callable[[], Any],
        definition: WorkloadDefinition,
        config: RunConfig,
        stats: WorkerStats,
        worker: int,
        workers: int,
        run_id: str = "",
    ) -> None:
        self.definition = definition  # the start message's: generators are cached by identity
        self._draws = DrawCache()
        self._knobs = config.knob_values()
        self.writer_id = writer_id(run_id, worker)
        # this worker's versioned writes (versioned_key, fresh_key), whichever operation drew them
        self.ledger = WriteLedger(worker, workers, 0, fresh_keys=FreshKeys(run_id, workers))
        seed = config.seed or 0
        seq = Sequence(worker, workers)
        self.operations: dict[str, OperationLoad] = {}
        for op in definition.operations:
            plan = self._compile(op, self._knobs)
            load = OperationLoad(plan, self._pacing(op, config), database, stats, seq, seed, worker, workers)
            load.set_plan(plan)
            self.operations[op] = load

    def _compile(self, op: str, knobs: dict[str, KnobValue]) -> CompiledOperation:
        return compile_operation(self.definition, op, knobs, self._draws, self.ledger, self.writer_id)

    @property
    def versioned(self) -> bool:
        """An operation draws versioned_key or fresh_key: the writers' ledger goes to the reconciliation."""
        return any(load.plan.ledger is not None for load in self.operations.values())

    def _pacing(self, op: str, config: RunConfig) -> ResolvedPacing:
        override: OperationPacing | None = config.operations.get(op)
        return resolve(self.definition, op, self._knobs, override)

    def start(self) -> None:
        for load in self.operations.values():
            load.start()

    def apply(self, config: RunConfig) -> None:
        """A live patch: new knob values and per-operation overrides, from the next execution on.
        Raises :class:`DefinitionError` (and changes nothing) when the knobs make an operation
        impossible to run."""
        knobs: dict[str, KnobValue] = config.knob_values()
        if knobs != self._knobs:  # every operation compiles before any changes: all or nothing
            plans = {op: self._compile(op, knobs) for op in self.operations}
            self._knobs = knobs
            for op, load in self.operations.items():
                load.set_plan(plans[op])
        for op, load in self.operations.items():
            load.set_pacing(self._pacing(op, config))

    def set_paused(self, paused: bool) -> None:
        for load in self.operations.values():
            load.set_paused(paused)

    def stop(self) -> None:
        for load in self.operations.values():
            load.stop()

    def gauges(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for load in self.operations.values():
            out.update(load.gauges())
        return out

    def take_counts(self) -> tuple[dict[str, int], int]:
        """(each operation's arrivals scheduled since the last call, arrivals dropped)."""
        scheduled: dict[str, int] = {}
        dropped = 0
        for load in self.operations.values():
            n, d = load.take_counts()
            if n:
                scheduled[load.scheduled_counter] = n
            dropped += d
        return scheduled, dropped
