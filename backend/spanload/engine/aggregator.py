"""Merge the worker processes' interval reports into one :class:`Sample` per interval.

Histograms are added count by count (never averaging percentiles). Interval ``seq`` is emitted as
soon as every live worker reported it, or when it is overdue; a late report is folded into the
next interval still open, so nothing is lost or counted twice.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from hdrh.histogram import HdrHistogram

from spanload.engine.change_cost import ChangeCost, MinuteChangeCost, interval_cpu_s, per_change_ms
from spanload.model import metrics, op_metrics, server_minute, tpcc
from spanload.model.breakdown import (
    Breakdown,
    OpTiming,
    SysLatencies,
    breakdown,
    merge_timings,
    pgadapter_by_minute,
)
from spanload.model.change_cost_reasons import unavailable_costs
from spanload.model.config import TargetKind
from spanload.model.op_metrics import OpCounter, OpGauge
from spanload.model.protocol import OPERATION_COUNTERS, Counter, Report
from spanload.model.samples import Gauge, Percentiles, Sample, Summary, Totals
from spanload.model.warmup import is_warmup

logger = logging.getLogger(__name__)

OVERDUE_INTERVALS = 1.5  # emit a partial interval this long after its end if a worker is late

# Worker gauges that add up across processes; every other worker gauge takes the maximum.
SUMMED_GAUGES = frozenset(
    {
        Gauge.UPDATER_TARGET_TPS,
        Gauge.UPDATER_BEHIND,
        Gauge.READER_TARGET_RPS,
        Gauge.READER_BEHIND,
        Gauge.SESSIONS_IN_USE,
        Gauge.SESSIONS_IDLE,
        Gauge.SESSIONS_WAITING,
        Gauge.TPCC_TERMINALS,
    }
)

# Rates derived from counters: gauge -> counter per second.
RATE_GAUGES = {
    Gauge.UPDATER_TPS: Counter.TRANSACTIONS,
    Gauge.UPDATER_SCHEDULED_TPS: Counter.SCHEDULED,
    Gauge.READER_SCHEDULED_RPS: Counter.READS_SCHEDULED,
    Gauge.UPDATER_MUTATIONS_PS: Counter.MUTATIONS,
    Gauge.WATCHER_CHANGES_PS: Counter.RECEIVED_CHANGES,
    Gauge.WATCHER_POLLS_PS: Counter.POLLS,
    Gauge.READER_RPS: Counter.READS,
    Gauge.ERRORS_PS: Counter.ERRORS,
    Gauge.ABORTS_PS: Counter.ABORTS,
    Gauge.RETRIES_PS: Counter.RETRIES,
}

# The per-worker breakdown of a sample (Sample.by_worker): rates from counters, and targets (and
# each definition operation's rate and target, by_worker).
WORKER_RATES = {
    Gauge.UPDATER_TPS: Counter.TRANSACTIONS,
    Gauge.READER_RPS: Counter.READS,
    Gauge.WATCHER_CHANGES_PS: Counter.RECEIVED_CHANGES,
}
WORKER_GAUGES = (Gauge.UPDATER_TARGET_TPS, Gauge.READER_TARGET_RPS)


# A definition's per-operation gauges that add up across processes (op_metrics); the rest take the maximum.
SUMMED_OP_GAUGES = frozenset({OpGauge.TARGET_PS, OpGauge.BEHIND, OpGauge.IN_FLIGHT})


def _op_counter(name: str) -> tuple[str, StrEnum] | None:
    """``("place_order", OpCounter.DONE)`` for ``"op.place_order.done"``; None for other counters."""
    parts = op_metrics.split(name) if name.startswith(op_metrics.OP_PREFIX) else None
    return parts if parts is not None and isinstance(parts[1], OpCounter) else None


def operations_in(counters: dict[str, int]) -> int:
    """The operations a report's counters count: transactions, polls and reads of the built-in
    workloads, and every definition operation's executions (``op.<op>.done``). A definition's
    writing executions also count ``transactions``, in the same report: not twice."""
    executions = 0
    for name, value in counters.items():
        parts = _op_counter(name)
        if parts is not None and parts[1] is OpCounter.DONE:
            executions += value
    counted = [c for c in OPERATION_COUNTERS if not (executions and c is Counter.TRANSACTIONS)]
    return executions + sum(counters.get(name, 0) for name in counted)


def op_rates(counters: dict[str, int], seconds: float) -> dict[str, float]:
    """Each operation's rates derived from its counters (``op.<op>.ps``...), per second of ``seconds``."""
    out: dict[str, float] = {}
    counted = {c: g for g, c in op_metrics.RATE_OF.items()}
    for name, value in counters.items():
        parts = _op_counter(name)
        if parts is not None and parts[1] in counted:
            out[op_metrics.name(counted[parts[1]], parts[0])] = value / seconds  # type: ignore[index]
    return out


def _summed(name: str) -> bool:
    if name in SUMMED_GAUGES:
        return True
    parts = op_metrics.split(name) if name.startswith(op_metrics.OP_PREFIX) else None
    return parts is not None and parts[1] in SUMMED_OP_GAUGES


def by_worker(reports: Iterable[Report], interval_s: float) -> dict[str, dict[str, float]]:
    """Each worker's own rates and targets in one interval (a late report adds to its worker's)."""
    counters: dict[int, dict[str, int]] = {}
    out: dict[str, dict[str, float]] = {}
    for report in reports:
        _add_counts(counters.setdefault(report.worker, {}), report.counters)
        values = out.setdefault(str(report.worker), {})
        values.update({g.value: report.gauges[g] for g in WORKER_GAUGES if g in report.gauges})
        values.update({name: v for name, v in report.gauges.items() if _is_target(name)})
    for worker, counts in counters.items():
        out[str(worker)].update({g.value: counts[c] / interval_s for g, c in WORKER_RATES.items() if c in counts})
        out[str(worker)].update(op_rates(counts, interval_s))  # a definition's operations, each its own
    return out


def _is_target(name: str) -> bool:
    """A definition operation's target rate (``op.<op>.target_ps``)."""
    parts = op_metrics.split(name) if name.startswith(op_metrics.OP_PREFIX) else None
    return parts is not None and parts[1] is OpGauge.TARGET_PS


@dataclass
class _Pending:
    reports: list[Report] = field(default_factory=list)

    def workers(self) -> set[int]:
        return {r.worker for r in self.reports}


def _add_counts(into: dict[str, int], more: dict[str, int]) -> None:
    for key, value in more.items():
        into[key] = into.get(key, 0) + value


def _totals_from(counters: dict[str, int]) -> Totals:
    return Totals(
        transactions=counters.get(Counter.TRANSACTIONS, 0),
        mutations=counters.get(Counter.MUTATIONS, 0),
        received_changes=counters.get(Counter.RECEIVED_CHANGES, 0),
        polls=counters.get(Counter.POLLS, 0),
        reads=counters.get(Counter.READS, 0),
        errors=counters.get(Counter.ERRORS, 0),
        aborts=counters.get(Counter.ABORTS, 0),
    )


def merge_gauges(reports: Iterable[Report]) -> dict[str, float]:
    """Worker gauges across processes: summed where they add up, else the maximum."""
    out: dict[str, float] = {}
    for report in reports:
        for name, value in report.gauges.items():
            if name in out:
                out[name] = out[name] + value if _summed(name) else max(out[name], value)
            else:
                out[name] = value
    return out


class Aggregator:
    """Collects reports of one run and produces samples and the whole-run summary."""

    def __init__(
        self,
        started_at: float,
        interval_s: float,
        workers: int,
        via_pgadapter: bool = False,
        warmup_s: float = 0.0,
        legacy: dict[str, str] | None = None,
        target: TargetKind = TargetKind.LOCAL,
        watches: bool = False,
    ) -> None:
        """``legacy`` (legacy name -> figure, model/builtin_convert.py ``legacy_names``): on a run of a
        built-in definition, each interval and the summary also carry the operation's figures under
        the updater's and reader's names (``updater.txn``, ``updater.tps``...), so the live page,
        profiles, capacity searches, exports and compares that read them keep working."""
        self.started_at = started_at
        self.legacy = legacy or {}
        # a run that watches wants its server CPU per change: n/a with its reason where the target
        # gives none (model/change_cost_reasons.py); sys_error: the workers' last failed SPANNER_SYS read
        self.target, self.watches = target, watches
        self.sys_error: str | None = None
        self.warmup_s = warmup_s  # its intervals (model.warmup) stay out of the summary's figures
        self._measured_from = started_at  # end of the last warm-up interval emitted
        # the first measured interval's start: a SPANNER_SYS minute priced for the breakdown starts at or after it
        self._measured_begin = started_at + (math.ceil(warmup_s / interval_s) * interval_s if warmup_s > 0 else 0.0)
        self._measured_counters: dict[str, int] = {}  # counters of the intervals after the warm-up
        self.via_pgadapter = via_pgadapter  # client.interface pgadapter: the breakdown's PGAdapter part
        self.interval_s = interval_s
        self.live_workers: set[int] = set(range(workers))
        self._pending: dict[int, _Pending] = {}
        self._next_seq = 0
        self._whole: dict[str, HdrHistogram] = {}
        self._counters: dict[str, int] = {}
        self._errors: dict[str, int] = {}
        self._gauge_sums: dict[str, float] = {}
        self._gauge_intervals: dict[str, int] = {}  # intervals that had each gauge (missing is not zero)
        self.last_t = started_at
        self._operations: dict[int, int] = {}
        self._cpu_s: dict[int, float] = {}
        self._timings: dict[str, OpTiming] = {}  # whole run
        self.sys_latencies: SysLatencies | None = None  # the latest a worker sent
        # pgadapter runs: each SPANNER_SYS minute inside the measured phase (by INTERVAL_END) and the
        # operations' sums of the measured intervals that ended in each minute, priced minute by minute.
        # One entry a minute for the whole run: kept only for these runs, which need them (the others
        # price the run at the latest minute, and a week's run kept ~30 MB of them: issue 30)
        self._minute_latencies: dict[float, SysLatencies] = {}
        self._minute_timings: dict[float, dict[str, OpTiming]] = {}
        self._change_cost = ChangeCost()  # measured intervals' server CPU and changes received
        self._minute_cost = MinuteChangeCost()  # the watcher's SPANNER_SYS CPU per change

    def add(self, report: Report) -> list[Sample]:
        """Take one worker report; return the samples that became complete, in order."""
        worker = report.worker
        self._operations[worker] = self._operations.get(worker, 0) + operations_in(report.counters)
        if report.cpu_s is not None:  # cumulative: the latest is the whole
            self._cpu_s[worker] = max(self._cpu_s.get(worker, 0.0), report.cpu_s)
        if report.sys_error:
            self.sys_error = report.sys_error
        report = self._own_minute(report)
        self._minute_cost.note_minute(report.sys_interval_end, report.gauges)
        if report.sys_latencies is not None:
            self.sys_latencies = report.sys_latencies
            end = report.sys_interval_end
            if (
                self.via_pgadapter
                and end is not None
                and server_minute.minute_inside(end, self._measured_begin, report.t)
            ):
                self._minute_latencies[end] = report.sys_latencies
        seq = max(report.seq, self._next_seq)  # late: fold into the first interval still open
        self._pending.setdefault(seq, _Pending()).reports.append(report)
        return self._emit_ready(now=None)

    def _own_minute(self, report: Report) -> Report:
        """The report without its SPANNER_SYS minute figures unless the minute lies wholly inside
        this run (they are then missing, a gap, never a figure of another run's minute)."""
        if server_minute.minute_inside(report.sys_interval_end, self.started_at, report.t):
            return report
        if report.sys_latencies is None and not server_minute.MINUTE_GAUGES & report.gauges.keys():
            return report
        gauges = {k: v for k, v in report.gauges.items() if k not in server_minute.MINUTE_GAUGES}
        return report.model_copy(update={"gauges": gauges, "sys_latencies": None})

    def counters(self) -> dict[str, int]:
        """Every counter's total over the intervals emitted so far."""
        return dict(self._counters)

    def worker_usage(self, worker: int) -> tuple[int, float | None]:
        """Operations (transactions + polls + reads) one worker reported, and its latest CPU seconds."""
        return self._operations.get(worker, 0), self._cpu_s.get(worker)

    def flush_overdue(self, now: float) -> list[Sample]:
        """Emit intervals whose end is more than ``OVERDUE_INTERVALS`` ago, complete or not."""
        return self._emit_ready(now=now)

    def flush_all(self) -> list[Sample]:
        """Emit everything pending (end of run)."""
        out: list[Sample] = []
        for seq in sorted(self._pending):
            out.append(self._emit(seq))
        return out

    def _emit_ready(self, now: float | None) -> list[Sample]:
        out: list[Sample] = []
        while True:
            seq = self._next_seq
            pending = self._pending.get(seq)
            interval_end = self.started_at + (seq + 1) * self.interval_s
            complete = pending is not None and self.live_workers <= pending.workers()
            overdue = now is not None and now > interval_end + OVERDUE_INTERVALS * self.interval_s
            if complete or (overdue and pending is not None):
                out.append(self._emit(seq))
            elif overdue and any(s > seq for s in self._pending):
                self._next_seq += 1  # an interval nobody reported: skip it
            else:
                return out

    def _emit(self, seq: int) -> Sample:
        pending = self._pending.pop(seq, _Pending())
        self._next_seq = max(self._next_seq, seq + 1)
        counters: dict[str, int] = {}
        errors: dict[str, int] = {}
        for report in pending.reports:
            _add_counts(counters, report.counters)
            _add_counts(errors, report.errors_by_code)
        for old, new in self.legacy.items():  # the reads total of a built-in's read operation
            if new in counters:
                counters.setdefault(old, counters[new])
        merged = metrics.merge_maps(r.hdr for r in pending.reports)
        for old, new in self.legacy.items():
            if new in merged and old not in merged:
                merged[old] = merged[new]
        timings = merge_timings(r.timings for r in pending.reports)
        interval_s = max((r.interval_s for r in pending.reports), default=self.interval_s) or self.interval_s
        t = max((r.t for r in pending.reports), default=self.started_at + (seq + 1) * self.interval_s)
        warmup = is_warmup(seq, self.interval_s, self.warmup_s)
        gauges = merge_gauges(pending.reports)
        for gauge, counter in RATE_GAUGES.items():
            if counter in counters:
                gauges[gauge] = counters[counter] / interval_s
        gauges.update(op_rates(counters, interval_s))
        if counters.get(Counter.POLLS):
            gauges[Gauge.WATCHER_ROWS_PER_POLL] = counters.get(Counter.ROWS_POLLED, 0) / counters[Counter.POLLS]
        if (tpmc := tpcc.tpmc(counters, interval_s)) is not None:
            gauges[tpcc.TPMC_GAUGE] = tpmc
        changes = counters.get(Counter.RECEIVED_CHANGES, 0)
        cpu_s = interval_cpu_s(gauges, interval_s)
        if cpu_s is not None and (cost := per_change_ms(cpu_s, changes)) is not None:
            gauges[Gauge.SERVER_CPU_PER_CHANGE_MS] = cost
        for old, new in self.legacy.items():
            if new in gauges:
                gauges.setdefault(old, gauges[new])

        _add_counts(self._counters, counters)
        _add_counts(self._errors, errors)
        if warmup:
            self._measured_from = max(self._measured_from, t)
        else:
            _add_counts(self._measured_counters, counters)
            self._change_cost.add(gauges, changes, interval_s)
            self._timings = merge_timings((self._timings, timings))
            if self.via_pgadapter:
                minute = server_minute.minute_end(t)
                self._minute_timings[minute] = merge_timings((self._minute_timings.get(minute, {}), timings))
            for op, histogram in merged.items():
                if op not in self._whole:  # not setdefault: its default would be a new histogram each time
                    self._whole[op] = metrics.new_histogram()
                self._whole[op].add(histogram)
            for name, value in gauges.items():
                self._gauge_sums[name] = self._gauge_sums.get(name, 0.0) + value
                self._gauge_intervals[name] = self._gauge_intervals.get(name, 0) + 1
        self.last_t = max(self.last_t, t)
        if (watch_cost := self._minute_cost.add_interval(t, changes, self._measured_from)) is not None:
            gauges[Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS] = watch_cost
        return Sample(
            seq=seq,
            t=t,
            elapsed_s=t - self.started_at,
            interval_s=interval_s,
            latency={op: metrics.percentiles(h) for op, h in merged.items()},
            gauges=gauges,
            errors_by_code=errors,
            totals=_totals_from(self._counters),
            by_worker=by_worker(pending.reports, interval_s),
            hdr={op: metrics.encode(h) for op, h in merged.items()},
            # through PGAdapter the split needs the interval's own minute, not closed yet: not split here
            breakdown={op: breakdown(t, self._interval_sys(), self.via_pgadapter) for op, t in timings.items()},
            warmup=warmup,
        )

    def _unavailable(self, rates: dict[str, float], totals: Totals) -> dict[str, str]:
        """The figures the run wants but lacks, each with why."""
        out = server_minute.unavailable(self.started_at, self.last_t, rates, totals)
        if self.watches:
            out |= unavailable_costs(self.target, self.started_at, self.last_t, rates, totals, self.sys_error)
        return out

    def summary(self) -> Summary:
        """Whole-run figures from the histograms merged over every emitted interval after the warm-up
        (model.warmup): latency, rates and breakdown; the totals count every interval."""
        duration = max(self.last_t - self.started_at, 0.0)
        measured_s = max(self.last_t - self._measured_from, 0.0)
        measured = self._measured_counters
        rates: dict[str, float] = {}
        if measured_s > 0:
            for gauge, counter in RATE_GAUGES.items():
                if counter in measured:
                    rates[gauge] = measured[counter] / measured_s
            rates.update(op_rates(measured, measured_s))
            if (tpmc := tpcc.tpmc(measured, measured_s)) is not None:  # a count over the time, as the others
                rates[tpcc.TPMC_GAUGE] = tpmc
        polls = measured.get(Counter.POLLS, 0)
        if polls:
            rates[Gauge.WATCHER_ROWS_PER_POLL] = measured.get(Counter.ROWS_POLLED, 0) / polls
        if (cost := self._change_cost.whole_ms()) is not None:  # a ratio of sums, not the mean below
            rates[Gauge.SERVER_CPU_PER_CHANGE_MS] = cost
        if (watch_cost := self._minute_cost.whole_ms()) is not None:
            rates[Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS] = watch_cost
        for name, total in self._gauge_sums.items():
            # other gauges: the mean over the intervals that have a value (server stats come once a
            # minute at best; an interval without them is missing, not zero)
            rates.setdefault(name, total / self._gauge_intervals[name])
        latency: dict[str, Percentiles] = {op: metrics.percentiles(h) for op, h in self._whole.items()}
        totals = _totals_from(self._counters)
        return Summary(
            duration_s=duration,
            warmup_s=self._measured_from - self.started_at,
            latency=latency,
            rates=rates,
            unavailable=self._unavailable(rates, totals),
            totals=totals,
            errors_by_code=dict(self._errors),
            breakdown={op: self._whole_breakdown(op, t) for op, t in self._timings.items()},
        )

    def _interval_sys(self) -> SysLatencies | None:
        return None if self.via_pgadapter else self.sys_latencies

    def _whole_breakdown(self, op: str, timing: OpTiming) -> Breakdown:
        """The run's breakdown of ``op``; through PGAdapter, priced minute by minute (pgadapter_by_minute)."""
        if not self.via_pgadapter:
            return breakdown(timing, self.sys_latencies)
        minutes = {end: ops[op] for end, ops in self._minute_timings.items() if op in ops}
        return pgadapter_by_minute(timing, minutes, self._minute_latencies)
