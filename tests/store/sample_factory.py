"""Realistic samples for store tests: real HdrHistograms (the workers' range and precision) filled
from latency distributions like the Change Watcher report's, at a preset's rates."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hdrh.histogram import HdrHistogram

from spanload.model import metrics
from spanload.model.breakdown import Breakdown, OpTiming, SessionWait, breakdown
from spanload.model.samples import Gauge, Op, Percentiles, Sample, Totals


@dataclass(frozen=True)
class Load:
    """Per-second operation counts of a workload."""

    transactions: int = 50  # the "very high" preset: 50 tx/s of 200 mutations, 8 watchers
    mutations_per_txn: int = 200
    polls: int = 8


def _draw(op: Op, rng: random.Random) -> float:
    """One latency in microseconds."""
    match op:
        case Op.UPDATER_TXN | Op.READER_READ:
            return rng.lognormvariate(8.5, 0.5)  # ~5 ms
        case Op.UPDATER_TXN_INTENDED | Op.READER_READ_INTENDED:
            return rng.lognormvariate(8.6, 0.6)
        case Op.WATCHER_POLL:
            return rng.lognormvariate(9.5, 0.7)  # ~13 ms
        case _:
            return rng.uniform(0, 1_000_000) + rng.lognormvariate(9.0, 0.5)  # up to one poll interval


@dataclass
class _Interval:
    txns: int
    mutations: int
    histograms: dict[Op, HdrHistogram]
    encoded: dict[str, str]
    latency: dict[str, Percentiles]


class SampleFactory:
    """Makes consecutive samples; keeps a reference histogram of every value recorded per op.

    Filling histograms in Python costs ~1 us a value, so a factory made with ``templates=N`` fills N
    intervals once and draws each sample's histograms from them (the reference still counts every
    value each sample carries)."""

    def __init__(
        self, load: Load = Load(), seed: int = 7, started_at: float = 1_800_000_000.0, templates: int | None = None
    ) -> None:
        self.load = load
        self.rng = random.Random(seed)
        self.started_at = started_at
        self.totals = Totals()
        self.reference: dict[str, HdrHistogram] = {}
        self._templates = [self._interval() for _ in range(templates or 0)]

    def _interval(self) -> _Interval:
        load, rng = self.load, self.rng
        txns = max(0, int(rng.gauss(load.transactions, load.transactions**0.5)))
        mutations = sum(rng.randint(1, 2 * load.mutations_per_txn) for _ in range(txns))
        counts = {
            Op.UPDATER_TXN: txns,
            Op.UPDATER_TXN_INTENDED: txns,
            Op.WATCHER_POLL: load.polls,
            Op.WATCHER_NOTIFY: mutations,
        }
        histograms = {}
        for op, n in counts.items():
            h = metrics.new_histogram()
            for _ in range(n):
                h.record_value(metrics.clamp_us(_draw(op, rng)))
            histograms[op] = h
        return _Interval(
            txns,
            mutations,
            histograms,
            {op.value: metrics.encode(h) for op, h in histograms.items()},
            {op.value: metrics.percentiles(h) for op, h in histograms.items()},
        )

    def sample(self, seq: int) -> Sample:
        load, rng = self.load, self.rng
        interval = rng.choice(self._templates) if self._templates else self._interval()
        txns, mutations, histograms = interval.txns, interval.mutations, interval.histograms
        for op, h in histograms.items():
            self.reference.setdefault(op.value, metrics.new_histogram()).add(h)
        self.totals = Totals(
            transactions=self.totals.transactions + txns,
            mutations=self.totals.mutations + mutations,
            received_changes=self.totals.received_changes + mutations,
            polls=self.totals.polls + load.polls,
        )
        return Sample(
            seq=seq,
            t=self.started_at + seq + 1,
            elapsed_s=float(seq + 1),
            interval_s=1.0,
            latency=dict(interval.latency),
            gauges={
                Gauge.UPDATER_TARGET_TPS.value: float(load.transactions),
                Gauge.UPDATER_TPS.value: float(txns),
                Gauge.UPDATER_MUTATIONS_PS.value: float(mutations),
                Gauge.UPDATER_BEHIND.value: float(rng.randint(0, 3)),
                Gauge.WATCHER_CHANGES_PS.value: float(mutations),
                Gauge.WATCHER_ROWS_PER_POLL.value: mutations / max(1, load.polls),
                Gauge.WATCHER_POLLS_PS.value: float(load.polls),
                Gauge.WATCHER_LAG_MS.value: rng.uniform(0, 1000),
                Gauge.SESSIONS_IN_USE.value: float(rng.randint(0, 8)),
                Gauge.SESSIONS_IDLE.value: float(rng.randint(90, 100)),
                Gauge.SESSIONS_WAITING.value: 0.0,
                Gauge.ERRORS_PS.value: 0.0,
                Gauge.ABORTS_PS.value: float(rng.randint(0, 1)),
            },
            totals=self.totals,
            hdr=dict(interval.encoded),
            breakdown={
                op: self._breakdown(n) for op, n in ((Op.UPDATER_TXN, txns), (Op.WATCHER_POLL, load.polls)) if n
            },
        )

    def _breakdown(self, count: int) -> Breakdown:
        """Parts of the kind a real run has (random means in microseconds, summed over ``count``)."""
        rng = self.rng
        timing = OpTiming(
            count=count,
            queue_us=count * rng.uniform(0, 500),
            server_us=count * rng.uniform(200, 2000),
            server_count=count,
            session_wait=SessionWait.NOT_APPLICABLE,
        )
        timing.total_us = timing.queue_us + timing.server_us + count * rng.uniform(500, 3000)
        return breakdown(timing)
