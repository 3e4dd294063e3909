"""How much of a delta between two runs is noise: a bootstrap over each run's report intervals.

The choice, and why:

- **Resample intervals, not operations.** The operations of one interval share its conditions (a
  split, a compaction, a neighbour on the machine), so they are not independent draws: resampling
  single operations would make nearly every delta between two busy runs "significant". The
  interval-to-interval variation of a run is what a rerun of the same config would vary by, and it is
  what the issue asks the uncertainty to come from.
- **Over per-interval values, not merged histograms.** Every stored sample keeps its interval's
  percentiles and gauges for good, while interval histograms are rolled up as a run ages; and
  re-merging HdrHistograms per replicate costs ~47k buckets each, in Python. A replicate's latency
  percentile is the count-weighted mean of its intervals' percentiles: a rougher estimate of the
  spread of the merged percentile, wider for tails (an interval's p99 moves more than the run's), so
  it errs towards "not significant", the safe side.
- **Blocks of consecutive intervals** (at most :data:`MAX_BLOCKS` per run), so neighbouring intervals
  that move together are resampled together and long runs cost no more than short ones.

A delta is significant when the central 99 % of the bootstrap's deltas (each run resampled on its
own) excludes zero: the percentile bootstrap's test. Its uncertainty is how far that interval reaches
from the delta towards zero, so a delta is significant exactly when it exceeds its uncertainty. Half
the interval's width would not do: a hint experiment's poll at the server, 7.23 ms hinted against
119.74 ms unhinted, was called noise by it (half-width 117.23); a few stalled intervals skew a run's
replicates, so half the width can exceed a delta whose whole interval lies above zero.

Each metric is judged on its own: among the ~80 metrics of two identical configs, about one may
still come out significant by chance (at 95 %, four).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from spanload.model.samples import Sample

MAX_BLOCKS = 60
MIN_BLOCKS = 5  # fewer intervals with a value: too few to tell noise from a difference
REPLICATES = 400
CONFIDENCE = 0.99  # a compare lists ~80 metrics: at 95 % four would be coloured by chance each time
SEED = 23  # one fixed seed: the same comparison gives the same answer every time it is asked

# Latency fields whose interval values are means over the interval's operations; others (count,
# max) have no interval-level mean to resample.
_LATENCY_FIELDS = ("p50", "p90", "p95", "p99", "p999", "mean")


@dataclass(frozen=True)
class Noise:
    """A delta's uncertainty: how far its 99 % bootstrap interval reaches from it towards zero, in the
    metric's unit; significant when the interval excludes zero (then ``margin`` < ``|delta|``)."""

    margin: float
    significant: bool


def _series(sample: Sample) -> dict[str, tuple[float, float]]:
    """Per summary metric name (``latency.<op>.p50``, ``rates.<gauge>``): this interval's value and
    its weight (operations for latencies, 1 for rates)."""
    out: dict[str, tuple[float, float]] = {}
    for op, pct in sample.latency.items():
        if not pct.count:
            continue
        for field in _LATENCY_FIELDS:
            value = getattr(pct, field)
            if value is not None:
                out[f"latency.{op}.{field}"] = (float(value), float(pct.count))
    for gauge, value in sample.gauges.items():
        out[f"rates.{gauge}"] = (float(value), 1.0)
    if "tpcc.tpmc" in sample.gauges:
        out["tpcc.tpmc"] = (float(sample.gauges["tpcc.tpmc"]), 1.0)
    return out


class RunNoise:
    """One run's blocks of consecutive intervals and its bootstrap replicates per metric.

    The blocks are drawn once per run (the same resampled intervals for every metric, as a rerun
    would vary them all at once) and each metric's replicates are kept, so a baseline compared with
    five runs is resampled once."""

    def __init__(self, samples: Sequence[Sample], seed: str) -> None:
        size = max(1, -(-len(samples) // MAX_BLOCKS))
        self.n = -(-len(samples) // size) if samples else 0
        self.blocks: dict[str, list[tuple[float, float]]] = {}  # metric -> (weighted sum, weight) per block
        for b, start in enumerate(range(0, len(samples), size)):
            for sample in samples[start : start + size]:
                for name, (value, weight) in _series(sample).items():
                    row = self.blocks.setdefault(name, [(0.0, 0.0)] * self.n)
                    total, w = row[b]
                    row[b] = (total + value * weight, w + weight)
        rng = random.Random(f"{SEED}:{seed}")
        self.draws = [rng.choices(range(self.n), k=self.n) for _ in range(REPLICATES)] if self.n else []
        self._replicates: dict[str, list[float] | None] = {}

    def replicates(self, metric: str) -> list[float] | None:
        """The metric's weighted mean in each replicate that drew a block holding it; None where
        fewer than :data:`MIN_BLOCKS` blocks hold it."""
        if metric not in self._replicates:
            row = self.blocks.get(metric, [])
            if sum(1 for _, w in row if w > 0) < MIN_BLOCKS:
                self._replicates[metric] = None
            else:
                out = []
                for draw in self.draws:
                    total = weight = 0.0
                    for i in draw:
                        t, w = row[i]
                        total += t
                        weight += w
                    if weight:
                        out.append(total / weight)
                self._replicates[metric] = out
        return self._replicates[metric]


def noise(baseline: RunNoise, other: RunNoise, metric: str, delta: float) -> Noise | None:
    """The uncertainty of ``delta`` (other minus baseline) from both runs' interval variation; None
    where either run has fewer than :data:`MIN_BLOCKS` blocks with the metric."""
    a, b = baseline.replicates(metric), other.replicates(metric)
    if a is None or b is None:
        return None
    deltas = sorted(y - x for x, y in zip(a, b, strict=False))
    tail = (1 - CONFIDENCE) / 2
    low = deltas[int(tail * (len(deltas) - 1))]
    high = deltas[int((1 - tail) * (len(deltas) - 1))]
    if delta > 0:
        return Noise(margin=max(0.0, delta - low), significant=low > 0)
    if delta < 0:
        return Noise(margin=max(0.0, high - delta), significant=high < 0)
    return Noise(margin=max(high, -low, 0.0), significant=False)
