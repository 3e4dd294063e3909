"""``--threshold 'updater.p99_ms<50'``: pass/fail checks on a run's whole-run figures.

Names a threshold can use (see :func:`metrics_of`):
- ``<op>.<stat>_ms`` for every Op (``updater.txn.p99_ms``), with the short forms ``updater``
  (updater.txn), ``updater_intended``, ``poll`` (watcher.poll), ``notify`` (watcher.notify),
  ``reader`` and ``reader_intended``; stats p50 p90 p95 p99 p999 max mean;
- every whole-run rate by its Gauge name (``updater.tps``, ``watcher.changes_ps``, ``errors_ps``);
- ``totals.<name>`` (``totals.errors``) and ``reconciliation.<name>`` (``reconciliation.ok`` is 1 or 0).
"""

from __future__ import annotations

from spanload.model.conditions import ALIASES, OPERATORS, STATS, Threshold, ThresholdError, parse
from spanload.model.samples import Percentiles, Sample, Summary

__all__ = ["ALIASES", "OPERATORS", "STATS", "Threshold", "ThresholdError", "metrics_of", "metrics_of_sample", "parse"]


def _latency_figures(latency: dict[str, Percentiles]) -> dict[str, float]:
    out: dict[str, float] = {}
    for op, p in latency.items():
        for stat in STATS:
            value = getattr(p, stat)
            if value is not None:
                out[f"{op}.{stat}_ms"] = float(value)
    return out


def metrics_of_sample(sample: Sample) -> dict[str, float]:
    """Every figure of one interval a condition can name, flat: its latencies and its gauges."""
    out = _latency_figures(sample.latency)
    out.update(sample.gauges)
    return out


def metrics_of(summary: Summary) -> dict[str, float]:
    """Every figure of a summary a threshold can name, flat."""
    out = _latency_figures(summary.latency)
    out.update({k: float(v) for k, v in summary.rates.items()})
    for key, value in summary.totals.model_dump().items():
        out[f"totals.{key}"] = float(value)
    out["errors"] = float(summary.totals.errors)
    if summary.reconciliation is not None:
        for key, value in summary.reconciliation.model_dump().items():
            if isinstance(value, bool | int | float):
                out[f"reconciliation.{key}"] = float(value)
    return out
