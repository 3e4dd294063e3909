"""``--threshold 'updater.p99_ms<50'``: pass/fail checks on a run's whole-run figures.

Names a threshold can use (see :func:`metrics_of`):
- ``<op>.<stat>_ms`` for every Op (``updater.txn.p99_ms``), with the short forms ``updater``
  (updater.txn), ``updater_intended``, ``poll`` (watcher.poll), ``notify`` (watcher.notify),
  ``reader`` and ``reader_intended``; stats p50 p90 p95 p99 p999 max mean;
- every whole-run rate by its Gauge name (``updater.tps``, ``watcher.changes_ps``, ``errors_ps``);
- ``totals.<name>`` (``totals.errors``) and ``reconciliation.<name>`` (``reconciliation.ok`` is 1 or 0).

A run of a built-in definition (a report workload's config, converted) has the updater's and
reader's figures too (the aggregator copies them from the operations that took those roles:
model/builtin_knobs.py ``LEGACY_FIGURES``), so ``updater.p99_ms<50`` keeps judging its writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from spanload.model import op_metrics, tpcc
from spanload.model.builtin_convert import legacy_names
from spanload.model.conditions import ALIASES, OPERATORS, STATS, Threshold, ThresholdError, parse
from spanload.model.config import RunConfig, Workload
from spanload.model.samples import Gauge, Op, Percentiles, Reconciliation, Sample, Summary, Totals

__all__ = [
    "ALIASES",
    "OPERATORS",
    "STATS",
    "Threshold",
    "ThresholdError",
    "check_names",
    "known_metrics",
    "legacy_names",
    "metrics_of",
    "metrics_of_sample",
    "parse",
]


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


def _latency_ops(config: RunConfig) -> list[str]:
    if config.definition is not None:
        names = list(config.definition.operations)
        legacy = [old for old in legacy_names(config) if old in {op.value for op in Op}]
        watch = [op.value for op in Op if op.value.startswith("watcher.")]  # poll, its server time, notify...
        return [op_metrics.name(h, n) for n in names for h in op_metrics.OpHistogram] + [*watch, *legacy]
    if config.workload is Workload.TPCC:
        return [o for t in tpcc.TxType for o in (t.op, t.op_intended, t.op_server, t.op_failed)]
    return [op.value for op in Op]


def known_metrics(config: RunConfig) -> list[str]:
    """Every name a threshold on a run of ``config`` can use, in the order ``--list-metrics``
    prints them: latencies, rates, totals, reconciliation. A run may still lack one of them (an
    operation that never ran), which fails its threshold with a sentence."""
    names = [f"{op}.{stat}_ms" for op in _latency_ops(config) for stat in STATS]
    names += [g.value for g in Gauge]
    if config.definition is not None:
        names += [op_metrics.name(g, n) for n in config.definition.operations for g in op_metrics.OpGauge]
    if config.workload is Workload.TPCC:
        names.append(tpcc.TPMC_GAUGE)
    names += [f"totals.{field}" for field in Totals.model_fields]
    names.append("errors")
    names += [
        f"reconciliation.{field}"
        for field, info in Reconciliation.model_fields.items()
        if info.annotation in (bool, int, float)
    ]
    return names


def check_names(checks: Sequence[Threshold], config: RunConfig) -> None:
    """Raises :class:`ThresholdError` (exit code 2) for a threshold naming a figure no run of
    ``config`` has, listing the names it can use, before the run starts."""
    known = known_metrics(config)
    unknown = [c for c in checks if c.metric not in known]
    if unknown:
        names = ", ".join(f"'{c.text}'" for c in unknown)
        raise ThresholdError(
            f"threshold {names} names no figure of this run; the names are (spanload run --list-metrics): "
            + ", ".join(known)
        )
