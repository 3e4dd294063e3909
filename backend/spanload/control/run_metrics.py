"""What ``/metrics`` exposes of each run, kept from the samples the hub receives.

A Prometheus histogram is cumulative since the run began, but a sample carries only its own
interval's HdrHistograms. So each sample's histograms are folded, as they arrive, into fixed
buckets (:data:`LATENCY_BUCKETS_S`) per run, operation and quantity: a run costs
``operations x quantities x (buckets + 2)`` integers, whatever its length. Keeping a merged
HdrHistogram per operation instead would cost ~47k counters each (3 digits over 1 us .. 1 h) to
answer the same ~18 questions a scrape asks. Bucket ``le=b`` counts the values whose HdrHistogram
bucket starts at or below ``b`` (HdrHistogram's 3-digit precision: a value up to 0.1 % above ``b``
can count in it).

A finished run keeps its series for ``retention_s`` (so that a scrape after its end sees its final
figures), then they are dropped: the labels' cardinality is the live runs plus the runs that ended
within the retention.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from enum import StrEnum

from spanload.model import metrics as hdr
from spanload.model import op_metrics
from spanload.model.op_metrics import OpHistogram
from spanload.model.samples import INTENDED_SUFFIX, SERVER_SUFFIX, Gauge, Op, Sample, Totals
from spanload.model.state import TERMINAL_STATES, RunState

LATENCY_BUCKETS_S = (
    0.0005,
    0.001,
    0.002,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.2,
    0.5,
    1.0,
    2.0,
    5.0,
    10.0,
    30.0,
    60.0,
    300.0,
)
US_PER_S = 1_000_000
FAILED_SUFFIX = ".failed"


class Quantity(StrEnum):
    """The latency quantities a histogram key names (one Prometheus family each)."""

    LATENCY = "latency"  # successful executions, from the actual start
    INTENDED = "intended"  # from the intended start: queueing included
    SERVER = "server"  # server-timing summed over the operation's RPCs
    FAILED = "failed"  # failed executions, from the actual start
    NOTIFY = "notify"  # the watcher's change-notification latency


_OP_QUANTITY = {
    OpHistogram.LATENCY: Quantity.LATENCY,
    OpHistogram.INTENDED: Quantity.INTENDED,
    OpHistogram.SERVER: Quantity.SERVER,
    OpHistogram.FAILED: Quantity.FAILED,
}


def classify(key: str) -> tuple[Quantity, str]:
    """A sample's histogram key -> (quantity, operation): ``"op.buy_server"`` -> (SERVER, "buy"),
    ``"updater.txn_intended"`` -> (INTENDED, "updater.txn"), ``"watcher.notify"`` -> (NOTIFY, ...)."""
    parsed = op_metrics.split(key)
    if parsed is not None and parsed[1] in _OP_QUANTITY:
        return _OP_QUANTITY[OpHistogram(parsed[1])], parsed[0]
    if key == Op.WATCHER_NOTIFY:
        return Quantity.NOTIFY, key
    for suffix, quantity in (
        (FAILED_SUFFIX, Quantity.FAILED),
        (INTENDED_SUFFIX, Quantity.INTENDED),
        (SERVER_SUFFIX, Quantity.SERVER),
    ):
        if key.endswith(suffix):
            return quantity, key[: -len(suffix)]
    return Quantity.LATENCY, key


@dataclass
class Buckets:
    """Cumulative counts per bound of :data:`LATENCY_BUCKETS_S`, plus the count and sum (s)."""

    cumulative: list[int] = field(default_factory=lambda: [0] * len(LATENCY_BUCKETS_S))
    count: int = 0
    sum_s: float = 0.0

    def add(self, encoded: str, mean_ms: float | None) -> None:
        histogram = hdr.decode(encoded)
        total = int(histogram.get_total_count())
        if total == 0:
            return
        last = histogram.get_counts_array_index(histogram.max_value) + 1
        running = list(itertools.accumulate(histogram.counts[:last]))
        for i, bound in enumerate(LATENCY_BUCKETS_S):
            index = histogram.get_counts_array_index(int(bound * US_PER_S))
            self.cumulative[i] += running[index] if index < last else total
        self.count += total
        self.sum_s += (mean_ms or 0.0) * total / 1000.0


@dataclass
class RunSeries:
    """One run's figures: the latest sample's gauges, and counters and histograms since it began."""

    state: RunState = RunState.STARTING
    latest: Sample | None = None
    histograms: dict[tuple[Quantity, str], Buckets] = field(default_factory=dict)
    errors_by_code: dict[str, int] = field(default_factory=dict)
    retries: int = 0
    totals: Totals = field(default_factory=Totals)
    ended_at: float | None = None

    def observe(self, sample: Sample) -> None:
        self.latest = sample
        for key, encoded in sample.hdr.items():
            pct = sample.latency.get(key)
            self.histograms.setdefault(classify(key), Buckets()).add(encoded, pct.mean if pct else None)
        for code, count in sample.errors_by_code.items():
            self.errors_by_code[code] = self.errors_by_code.get(code, 0) + count
        # the aggregator derives retries_ps from the interval's retries counter: this is that count
        self.retries += round(sample.gauges.get(Gauge.RETRIES_PS, 0.0) * sample.interval_s)
        self.totals = sample.totals


class RunMetrics:
    """Every run's :class:`RunSeries`, fed by the hub; finished runs dropped after the retention."""

    def __init__(self, retention_s: float) -> None:
        self.retention_s = retention_s
        self.runs: dict[str, RunSeries] = {}

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self.runs.setdefault(run_id, RunSeries()).observe(sample)

    def on_state(self, run_id: str, state: RunState, now: float) -> None:
        series = self.runs.setdefault(run_id, RunSeries())
        series.state = state
        series.ended_at = now if state in TERMINAL_STATES else None
        # not only at a scrape: without one, every run's series (its last sample with its histograms)
        # stayed for as long as serve ran (issue 30)
        self.prune(now)

    def prune(self, now: float) -> None:
        """Drop the runs that ended more than the retention ago."""
        for run_id in [
            r for r, s in self.runs.items() if s.ended_at is not None and now - s.ended_at > self.retention_s
        ]:
            del self.runs[run_id]
