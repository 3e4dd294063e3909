"""Capacity search (``config.capacity``): raise the rate step by step until a stop condition breaks.

:class:`CapacitySearch` is the whole logic, fed the run's samples in order and nothing else (so it
is checked against a synthetic stream whose knee is known). Each step:

- counts only intervals whose target gauge is the step's rate, and not the first of them (the
  interval in which the change landed);
- holds at least ``min_step_s`` of such intervals, then until its percentile is stable: the merged
  HdrHistogram of its latest intervals (half of ``min_step_s``'s worth) gives a percentile within
  ``stability_pct`` of the same number of intervals before them (latency timed from the intended
  start, so queueing counts); past ``max_step_s`` it is judged anyway, marked unstable;
- is judged against the stop conditions: the percentile above ``latency_ms``, failed operations
  above ``errors_pct``, achieved below ``achieved_pct`` of the target and of the arrivals the
  Poisson schedule produced (where reported: their own spread is no shortfall, and what fell
  behind the schedule counts against it), ``server.cpu_fraction`` above ``server_cpu_pct``.

A step that held raises the rate by ``step``; after the first that broke, ``bisect`` more steps
halve the gap between the highest rate that held and the lowest that broke (each after
``back_off_s`` at the rate that held, when the step before it broke, and longer until the broken
step's backlog drained: arrivals still behind would count against the probe). The knee is the highest rate
that held below the lowest that broke. The verdict names who the limit was, the client before the
database: the busiest worker at ``CLIENT_CPU_BUSY`` of a core; or every executor the workers have
(parallelism, max_in_flight) busy on the mean (Little's law: achieved times the mean latency from
the actual start) while the database answered within ``latency_ms``; or the workers and a local
Spanner on the same machine using its cores between them; else the database. "Behind" (arrivals
due but not started) is in the step table and the note.

:class:`CapacityRunner` runs it in the engine with the live patches a user would send.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hdrh.histogram import HdrHistogram

from spanload.engine.profiles import Steering
from spanload.model import metrics, op_metrics
from spanload.model.capacity import (
    CLIENT_CPU_BUSY,
    IN_FLIGHT_BUSY,
    MACHINE_BUSY,
    CapacityConfig,
    CapacityResult,
    CapacityStep,
    Limit,
)
from spanload.model.conditions import OPERATORS, parse
from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.errors import RunConflict
from spanload.model.events import EventKind
from spanload.model.op_metrics import OpGauge, OpHistogram
from spanload.model.pacing import resolve
from spanload.model.profile import patch_for
from spanload.model.samples import Gauge, Op, Sample
from spanload.model.workload import is_ref, ref_name
from spanload.workers.pacing import share_threads

logger = logging.getLogger(__name__)

SAME = 1e-6
BACK_OFF_LONGEST = 4  # a back-off waits for the backlog to drain at most this many times back_off_s


@dataclass(frozen=True)
class Names:
    """The metrics of the operation whose rate the search raises."""

    latency: str  # from the intended start
    service: str  # from the actual start
    failed: str
    target: str
    achieved: str
    scheduled: str  # arrivals the schedule produced, per second
    behind: str

    @staticmethod
    def of(config: RunConfig) -> Names:
        c = config.capacity
        if config.definition is None or c is None or c.operation is None:
            return Names(
                Op.UPDATER_TXN_INTENDED,
                Op.UPDATER_TXN,
                Op.UPDATER_TXN_FAILED,
                Gauge.UPDATER_TARGET_TPS,
                Gauge.UPDATER_TPS,
                Gauge.UPDATER_SCHEDULED_TPS,
                Gauge.UPDATER_BEHIND,
            )
        op = c.operation
        return Names(
            op_metrics.name(OpHistogram.INTENDED, op),
            op_metrics.name(OpHistogram.LATENCY, op),
            op_metrics.name(OpHistogram.FAILED, op),
            op_metrics.name(OpGauge.TARGET_PS, op),
            op_metrics.name(OpGauge.PS, op),
            op_metrics.name(OpGauge.SCHEDULED_PS, op),
            op_metrics.name(OpGauge.BEHIND, op),
        )


@dataclass(frozen=True)
class InFlightCap:
    """The operations the workers can have in flight between them, and the knob that sets it."""

    executors: int
    knob: str


@dataclass
class _Step:
    rate: float
    back_off_then: float | None = None  # a back-off: held back_off_s, not judged, then this rate
    seen: int = 0
    histograms: list[HdrHistogram] = field(default_factory=list)
    service: list[HdrHistogram] = field(default_factory=list)
    done: float = 0.0
    scheduled: float | None = None  # arrivals, where the workers report them
    failed: int = 0
    seconds: float = 0.0
    server_cpu: list[float] = field(default_factory=list)
    behind: float = 0.0
    cpu_base: list[float] | None = None
    cpu_last: list[float] | None = None
    machine_base: float | None = None
    machine_last: float | None = None
    window: int = 0  # intervals compared for stability, fixed once min_step_s is reached
    judged: list[Sample] = field(default_factory=list)  # the intervals counted, for the ``also`` conditions


def _merged(histograms: list[HdrHistogram]) -> HdrHistogram:
    out = metrics.new_histogram()
    for h in histograms:
        out.add(h)
    return out


class CapacitySearch:
    def __init__(
        self,
        capacity: CapacityConfig,
        names: Names,
        machine_cores: int | None = None,
        in_flight_cap: InFlightCap | None = None,
    ) -> None:
        """``machine_cores``: the cores the workers share with the target (a local Spanner on this
        machine), None when the target runs elsewhere; ``in_flight_cap``: the operations the
        workers can run at once, where they have such a cap."""
        self.capacity = capacity
        self.names = names
        self.machine_cores = machine_cores
        self.in_flight_cap = in_flight_cap
        self.conditions = [parse(text) for text in capacity.also]
        self.steps: list[CapacityStep] = []
        self.result: CapacityResult | None = None
        self._step = _Step(capacity.start_rate)
        self._low: float | None = None  # the highest rate that held (below the lowest that broke)
        self._high: tuple[CapacityStep, Limit, str] | None = None  # the lowest that broke, its limit and note
        self._probes = 0  # bisection steps begun

    @property
    def rate(self) -> float:
        return self._step.rate

    def observe(
        self, sample: Sample, worker_cpu_s: list[float] | None = None, machine_cpu_s: float | None = None
    ) -> float | None:
        """Take the next interval (and each worker's cumulative CPU seconds, and the whole
        machine's, where known). Returns the next step's rate when a step held; sets :attr:`result`
        when the search is over."""
        step = self._step
        target = sample.gauges.get(self.names.target)
        if self.result is not None or target is None or abs(target - step.rate) > SAME:
            return None
        step.seen += 1
        step.cpu_last, step.machine_last = worker_cpu_s, machine_cpu_s
        if step.seen == 1:  # the interval the change landed in: part old rate, part new
            step.cpu_base, step.machine_base = worker_cpu_s, machine_cpu_s
            return None
        if step.back_off_then is not None:  # until the backlog drained, within BACK_OFF_LONGEST back-offs
            step.seconds += sample.interval_s
            drained = sample.gauges.get(self.names.behind, 0.0) < 1
            back_off = self.capacity.back_off_s
            over = step.seconds + SAME >= back_off and (drained or step.seconds + SAME >= BACK_OFF_LONGEST * back_off)
            return self._begin(step.back_off_then) if over else None
        if (encoded := sample.hdr.get(self.names.latency)) is not None:
            step.histograms.append(metrics.decode(encoded))
        if (encoded := sample.hdr.get(self.names.service)) is not None:
            step.service.append(metrics.decode(encoded))
        failed = sample.latency.get(self.names.failed)
        step.failed += failed.count if failed is not None else 0
        step.done += sample.gauges.get(self.names.achieved, 0.0) * sample.interval_s
        if (scheduled := sample.gauges.get(self.names.scheduled)) is not None:
            step.scheduled = (step.scheduled or 0.0) + scheduled * sample.interval_s
        step.seconds += sample.interval_s
        step.judged.append(sample)
        step.behind = max(step.behind, sample.gauges.get(self.names.behind, 0.0))
        if (cpu := sample.gauges.get(Gauge.SERVER_CPU_FRACTION)) is not None:
            step.server_cpu.append(cpu)
        if step.seconds + SAME < self.capacity.min_step_s:
            return None
        stable = self._stable(step)
        if not stable and step.seconds + SAME < self.capacity.max_step_s:
            return None
        return self._judge(step, stable)

    def _percentile(self, histogram: HdrHistogram) -> float | None:
        value: float | None = getattr(metrics.percentiles(histogram), self.capacity.percentile)
        return value

    def _stable(self, step: _Step) -> bool:
        """The percentile of the step's latest intervals (half of ``min_step_s``'s worth) within
        ``stability_pct`` of the same number of intervals before them."""
        if step.window == 0:
            step.window = max(1, len(step.histograms) // 2)
        n = step.window
        if len(step.histograms) < 2 * n:
            return False
        early = self._percentile(_merged(step.histograms[-2 * n : -n]))
        late = self._percentile(_merged(step.histograms[-n:]))
        if early is None or late is None:
            return False
        return abs(late - early) <= self.capacity.stability_pct / 100 * max(early, late)

    def _also(self, step: _Step) -> list[str]:
        """The ``also`` conditions that held over the step: a latency from its intervals' merged
        histogram of that operation, any other figure as its mean over the intervals that have it."""
        out: list[str] = []
        for condition in self.conditions:
            op, _, stat = condition.metric.rpartition(".")
            if stat.endswith("_ms") and any(op in s.hdr for s in step.judged):
                merged = _merged([metrics.decode(s.hdr[op]) for s in step.judged if op in s.hdr])
                value = getattr(metrics.percentiles(merged), stat[:-3])
            else:
                values = [s.gauges[condition.metric] for s in step.judged if condition.metric in s.gauges]
                value = sum(values) / len(values) if values else None
            if value is not None and OPERATORS[condition.op](value, condition.limit):
                out.append(f"{condition.metric} {value:.6g} ({condition.text})")
        return out

    def _client_cpu(self, step: _Step) -> list[float] | None:
        """Each worker's CPU over the step's judged intervals, in cores."""
        if step.cpu_base is None or step.cpu_last is None or len(step.cpu_base) != len(step.cpu_last):
            return None
        return [(b - a) / step.seconds for a, b in zip(step.cpu_base, step.cpu_last, strict=True)]

    def _judge(self, step: _Step, stable: bool) -> float | None:
        c = self.capacity
        p = metrics.percentiles(_merged(step.histograms))
        service = metrics.percentiles(_merged(step.service))
        achieved = step.done / step.seconds
        attempts = step.done + step.failed
        errors_pct = 100 * step.failed / attempts if attempts else 0.0
        server_cpu = sum(step.server_cpu) / len(step.server_cpu) if step.server_cpu else None
        judged = getattr(p, c.percentile)
        broke: list[str] = []
        if c.latency_ms is not None and judged is not None and judged > c.latency_ms:
            broke.append(f"{c.percentile} {judged:.1f} ms is above {c.latency_ms:g} ms")
        if c.errors_pct is not None and errors_pct > c.errors_pct:
            broke.append(f"errors {errors_pct:.2f} % are above {c.errors_pct:g} %")
        if c.achieved_pct is not None and achieved < c.achieved_pct / 100 * step.rate:
            # against the arrivals the (Poisson) schedule produced, where known: their own spread is no shortfall
            if step.scheduled is None:
                broke.append(f"achieved {achieved:.1f}/s is below {c.achieved_pct:g} % of {step.rate:g}/s")
            elif step.done < c.achieved_pct / 100 * step.scheduled:
                asked = step.scheduled / step.seconds
                broke.append(
                    f"achieved {achieved:.1f}/s is below {c.achieved_pct:g} % of the {asked:.1f}/s "
                    f"the schedule asked for (target {step.rate:g}/s)"
                )
        if c.server_cpu_pct is not None and server_cpu is not None and 100 * server_cpu > c.server_cpu_pct:
            broke.append(f"server CPU {100 * server_cpu:.0f} % is above {c.server_cpu_pct:g} %")
        broke += self._also(step)
        workers_cpu = self._client_cpu(step)
        judged_step = CapacityStep(
            rate=step.rate,
            achieved=achieved,
            p50=p.p50,
            p95=p.p95,
            p99=p.p99,
            errors_pct=errors_pct,
            server_cpu=server_cpu,
            client_cpu=max(workers_cpu) if workers_cpu else None,
            client_cpu_total=sum(workers_cpu) if workers_cpu else None,
            machine_cpu=None
            if step.machine_base is None or step.machine_last is None
            else (step.machine_last - step.machine_base) / step.seconds,
            behind=step.behind,
            in_flight=achieved * service.mean / 1000 if service.mean is not None else None,
            seconds=step.seconds,
            stable=stable,
            held=not broke,
            broke_by=broke,
        )
        self.steps.append(judged_step)
        if not broke:
            self._low = step.rate if self._low is None else max(self._low, step.rate)
        elif self._high is None or step.rate < self._high[0].rate:
            self._high = (judged_step, *self._verdict(judged_step, getattr(service, c.percentile)))
        return self._next(judged_step)

    def _begin(self, rate: float) -> float:
        self._step = _Step(rate)
        return rate

    def _next(self, judged: CapacityStep) -> float | None:
        """The rate of the step after ``judged``: up by ``step`` until one breaks, then (with
        ``bisect``) halfway between the highest that held and the lowest that broke, after a
        back-off at the one that held; None when the search is over."""
        c = self.capacity
        if self._high is None:
            following = judged.rate + c.step
            if following > c.max_rate + SAME:
                self.result = self._result(Limit.MAX_RATE, [], f"nothing broke up to max_rate {c.max_rate:g}/s")
                return None
            return self._begin(following)
        high, limit, note = self._high
        probe = None if self._low is None else round((self._low + high.rate) / 2, 3)
        if self._probes >= c.bisect or self._low is None or probe is None or not self._low < probe < high.rate:
            self.result = self._result(limit, high.broke_by, note)
            return None
        self._probes += 1
        if c.back_off_s > 0 and not judged.held:
            self._step = _Step(self._low, back_off_then=probe)
            return self._low
        return self._begin(probe)

    def _verdict(self, step: CapacityStep, service_ms: float | None) -> tuple[Limit, str]:
        """Who a broken step's limit was: the client (a worker at a core, or every executor busy
        while the database answered within the limit), the machine, or the database."""
        rate, behind = step.rate, step.behind
        behind_text = f", up to {behind:.0f} arrivals behind the schedule" if behind >= 1 else ""
        client_cpu, client_total, server_cpu = step.client_cpu, step.client_cpu_total, step.server_cpu
        if client_cpu is not None and client_cpu >= CLIENT_CPU_BUSY:
            return Limit.CLIENT, (
                f"the workers could not produce {rate:g}/s (the busiest worker used {client_cpu:.0%} of a core"
                f"{behind_text}): the limit is the client, not the database; add worker processes or use runtime go"
            )
        cap, latency_ms = self.in_flight_cap, self.capacity.latency_ms
        answered = latency_ms is None or (service_ms is not None and service_ms <= latency_ms)
        busy = cap is not None and step.in_flight is not None and step.in_flight >= IN_FLIGHT_BUSY * cap.executors
        if busy and answered and cap is not None and step.in_flight is not None:
            return Limit.CLIENT, (
                f"the workers could not produce {rate:g}/s: every one of their {cap.executors} executors was busy "
                f"({step.in_flight:.1f} in flight on the mean{behind_text}) while the database answered within "
                f"the limit: the limit is the client's concurrency, not the database; raise {cap.knob} "
                "or add worker processes"
            )
        cores = self.machine_cores
        if cores and client_total is not None and server_cpu is not None:
            ours = client_total + server_cpu
            used = max(ours, step.machine_cpu or 0.0)
            others = f", other processes {used - ours:.2f}" if used - ours >= 0.05 else ""
            if used >= MACHINE_BUSY * cores:
                return Limit.MACHINE, (
                    f"the workers ({client_total:.2f} cores), the local Spanner ({server_cpu:.2f}){others}: "
                    f"{used:.2f} of this machine's {cores} cores in use at {rate:g}/s{behind_text}: the limit is "
                    "the machine they share, not the database's design"
                )
        return Limit.DATABASE, f"the database broke at {rate:g}/s{behind_text}"

    def _result(self, limit: Limit, broke: list[str], note: str = "") -> CapacityResult:
        return CapacityResult(knee=self._low, limited_by=limit, broke_by=broke, note=note, steps=list(self.steps))

    def final(self) -> CapacityResult:
        """The result, or, for a run that ended first, the steps judged so far."""
        return self.result or self._result(Limit.STOPPED, [], f"the run ended during the step at {self.rate:g}/s")


def machine_cpu_s() -> float | None:
    """The CPU seconds every process of this machine used since it started (Linux /proc/stat);
    None where the OS does not say."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal ...: all but idle and iowait were busy
    busy = sum(int(v) for i, v in enumerate(fields[1:9]) if i not in (3, 4))
    return busy / os.sysconf("SC_CLK_TCK")


def in_flight_cap(config: RunConfig) -> InFlightCap | None:
    """The operations the workers can run at once between them: the updater's parallelism (each
    worker runs its share, at least one), or the open-loop operation's max_in_flight; None for a
    closed-loop operation (its concurrency is what the search raises)."""
    c = config.capacity
    workers = config.processes
    if config.definition is None or c is None or c.operation is None:
        total = config.updater.parallelism
        return InFlightCap(sum(share_threads(total, w, workers) for w in range(workers)), "updater.parallelism")
    op = config.definition.operations[c.operation]
    if op.rate is None:
        return None
    override = config.operations.get(c.operation)
    total = resolve(config.definition, c.operation, config.knob_values(), override).max_in_flight
    by_knob = is_ref(op.max_in_flight) and (override is None or override.max_in_flight is None)
    # the field to raise: the knob it reads (a built-in's parallelism), else the operation's own
    knob = f"knobs.{ref_name(str(op.max_in_flight))}" if by_knob else f"operations.{c.operation}.max_in_flight"
    return InFlightCap(sum(share_threads(total, w, workers) for w in range(workers)), knob)


class CapacityRunner:
    """A capacity search in a running engine: the rate set by live patches (``who``: capacity),
    each step's verdict an event, the run stopped when the search is over."""

    def __init__(
        self,
        config: RunConfig,
        steering: Steering,
        worker_cpu: Callable[[], list[float] | None],
        machine_cores: int | None,
    ) -> None:
        assert config.capacity is not None
        self.search = CapacitySearch(config.capacity, Names.of(config), machine_cores, in_flight_cap(config))
        self.operation = config.capacity.operation
        self.definition = config.definition
        self.steering = steering
        self.worker_cpu = worker_cpu
        self._tasks: set[asyncio.Task[Any]] = set()

    async def begin(self) -> None:
        await self._set(self.search.rate)

    async def _set(self, rate: float) -> None:
        try:
            await self.steering.patch(ConfigPatch.model_validate(patch_for(self.operation, self.definition, rate)))
        except RunConflict as err:
            logger.info("capacity patch not applied: %s", err)

    def observe(self, sample: Sample) -> None:
        if self.search.result is not None:
            return
        judged = len(self.search.steps)
        following = self.search.observe(sample, self.worker_cpu(), machine_cpu_s())
        if len(self.search.steps) > judged:
            step = self.search.steps[-1]
            self.steering.event(EventKind.CAPACITY, step.model_dump(mode="json"))
        if following is not None:
            task = asyncio.get_running_loop().create_task(self._set(following))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if self.search.result is not None:
            self.steering.stop()
