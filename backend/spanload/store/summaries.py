"""Whole-run summaries recomputed from what the store holds (for runs that ended without one)."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy.orm import Session

from spanload.model import metrics, server_minute
from spanload.model.breakdown import Breakdown, combine
from spanload.model.change_cost_reasons import unavailable_costs
from spanload.model.samples import Summary, Totals
from spanload.model.stored_config import read_stored
from spanload.store import samples as sample_store
from spanload.store.models import RunRow


def recompute_summary(session: Session, run_id: str) -> Summary:
    """Latency from the merged histograms (exact), totals from the last interval, rates as the mean
    of every interval's gauges, errors summed over intervals."""
    histograms = sample_store.whole_run_histograms(session, run_id)
    samples = sample_store.list_samples(session, run_id)
    gauge_sums: dict[str, float] = defaultdict(float)
    gauge_counts: dict[str, int] = defaultdict(int)
    errors: dict[str, int] = defaultdict(int)
    breakdowns: dict[str, list[Breakdown]] = defaultdict(list)
    for sample in samples:
        for op, b in sample.breakdown.items():
            breakdowns[op].append(b)
        for gauge, value in sample.gauges.items():
            gauge_sums[gauge] += value
            gauge_counts[gauge] += 1
        for code, count in sample.errors_by_code.items():
            errors[code] += count
    run = session.get(RunRow, run_id)
    rates = {g: gauge_sums[g] / gauge_counts[g] for g in sorted(gauge_sums)}
    totals = samples[-1].totals if samples else Totals()
    last = samples[-1] if samples else None
    unavailable: dict[str, str] = {}
    if last is not None:
        begin = last.t - last.elapsed_s
        unavailable = server_minute.unavailable(begin, last.t, rates, totals)
        config = read_stored(run.config).config if run is not None else None
        if config is not None and config.watches():
            unavailable |= unavailable_costs(config.target.kind, begin, last.t, rates, totals)
    return Summary(
        duration_s=last.elapsed_s if last else (run.last_elapsed_s if run else 0.0),
        latency={op: metrics.percentiles(h) for op, h in sorted(histograms.items())},
        rates=rates,
        unavailable=unavailable,
        totals=totals,
        errors_by_code=dict(errors),
        breakdown={op: combine(bs) for op, bs in sorted(breakdowns.items())},
    )


def summary_of(session: Session, run: RunRow) -> Summary | None:
    """The stored summary, else one recomputed from the stored samples (None if there are none)."""
    if run.summary is not None:
        return Summary.model_validate(run.summary)
    if run.sample_count == 0:
        return None
    return recompute_summary(session, run.id)
