"""Comparison of runs: config diff, series aligned by elapsed time, metric deltas against a baseline."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from spanload.control import noise
from spanload.model.breakdown import Breakdown, is_split, unsplit
from spanload.model.config import ClientInterface, RunConfig, Workload
from spanload.model.definition_origin import OriginKind
from spanload.model.live import LiveChange
from spanload.model.samples import Sample, Summary
from spanload.model.series import PERCENTILE_FIELDS, flatten

Better = Literal["lower", "higher"] | None

_HIGHER_IS_BETTER_RATES = {
    "tpcc.tpmc",
    "updater.tps",
    "updater.mutations_ps",
    "watcher.changes_ps",
    "watcher.polls_ps",
    "reader.rps",
}
TPCC_TYPE_FIELDS = ("completed", "share_pct", "aborts", "retries", "errors")
_LOWER_IS_BETTER_RATES = {
    "updater.behind",
    "watcher.lag_ms",
    "errors_ps",
    "aborts_ps",
    "sessions.waiting",
    "server.poll_avg_latency_s",
    "server.txn_avg_commit_latency_s",
    "server.commit_latency_s",
    "server.cpu_per_commit_ms",
    "server.cpu_per_change_ms",
    "server.watch_cpu_per_change_ms",
}
_HIGHER_IS_BETTER_TOTALS = {"transactions", "mutations", "received_changes", "polls", "reads"}


def flatten_config(config: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten_config(value, f"{path}."))
        else:
            out[path] = value
    return out


def current_form(config: dict[str, Any]) -> dict[str, Any]:
    """A stored config as the current model writes it (an old ``schema: singers`` becomes
    ``workload: change_watcher``, sections added since take their defaults), so that runs saved
    before a field was renamed or added differ only where they really differ. As stored if it no
    longer validates."""
    try:
        return RunConfig.model_validate(config).model_dump(mode="json", by_alias=True)
    except (ValidationError, ValueError):
        return config


def workload_of(config: dict[str, Any]) -> Workload:
    """A stored config's workload (the default for a config that no longer validates); a run of a
    report workload's built-in definition (or its PostgreSQL twin) is that report workload's, whose
    figures it carries under their names (the aggregator's legacy names)."""
    try:
        parsed = RunConfig.model_validate(config)
    except (ValidationError, ValueError):
        return Workload.CHANGE_WATCHER
    origin = parsed.definition_origin
    if origin is not None and origin.source is OriginKind.BUILTIN:
        name = origin.definition.removesuffix("_pg")
        if name in {w.value for w in Workload}:
            return Workload(name)
    return parsed.workload


def interface_of(config: dict[str, Any]) -> ClientInterface | None:
    """The stored config's ``client.interface`` (``googlesql`` for a run stored before it existed;
    None if it names none this version knows)."""
    try:
        return ClientInterface(config.get("client", {}).get("interface", ClientInterface.GOOGLESQL.value))
    except ValueError:
        return None


def config_diff(
    configs: Sequence[dict[str, Any]], changed: Sequence[Sequence[LiveChange]] | None = None
) -> list[tuple[str, list[Any], list[Any]]]:
    """Fields whose start value differs between any two configs (each in its current form), and
    fields any run changed live (``changed``: each run's live changes), with each run's value at start
    and at the end."""
    flat = [flatten_config(current_form(c)) for c in configs]
    ends: list[dict[str, Any]] = [{c.field: c.at_end for c in run} for run in (changed or [[] for _ in configs])]
    fields = sorted({f for c in flat for f in c} | {f for e in ends for f in e})
    out = []
    for field in fields:
        values = [c.get(field) for c in flat]
        at_end = [e.get(field, v) for v, e in zip(values, ends, strict=True)]
        if any(v != values[0] for v in values[1:]) or any(field in e for e in ends):
            out.append((field, values, at_end))
    return out


def align(runs: Sequence[Sequence[Sample]], max_points: int) -> tuple[list[float], list[dict[str, list[float | None]]]]:
    """Put every run on one elapsed-time axis: points every ``step`` seconds, where step is the
    coarsest report interval or what keeps the axis within ``max_points``; each point holds the
    mean of the run's samples that ended within that step (None where it had none)."""
    longest = max((s[-1].elapsed_s for s in runs if s), default=0.0)
    interval = max((s[0].interval_s for s in runs if s), default=1.0)
    step = max(interval, longest / max_points if max_points else longest)
    points = max(1, math.ceil(round(longest / step, 9))) if longest > 0 else 0
    axis = [round((k + 1) * step, 6) for k in range(points)]
    aligned: list[dict[str, list[float | None]]] = []
    for samples in runs:
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * points)
        counts: dict[str, list[int]] = defaultdict(lambda: [0] * points)
        for sample in samples:
            k = min(points - 1, max(0, math.ceil(round(sample.elapsed_s / step, 9)) - 1))
            for name, value in flatten(sample).items():
                sums[name][k] += value
                counts[name][k] += 1
        aligned.append(
            {
                name: [sums[name][k] / counts[name][k] if counts[name][k] else None for k in range(points)]
                for name in sorted(sums)
            }
        )
    return axis, aligned


def _better(metric: str) -> Better:
    kind, _, rest = metric.partition(".")
    if kind == "latency":
        return "lower" if rest.rsplit(".", 1)[-1] in PERCENTILE_FIELDS[1:] else None
    if kind == "rates":
        if rest in _HIGHER_IS_BETTER_RATES:
            return "higher"
        return "lower" if rest in _LOWER_IS_BETTER_RATES else None
    if kind == "tpcc":
        field = rest.rsplit(".", 1)[-1]
        if field in {"aborts", "retries", "errors"}:
            return "lower"
        return "higher" if field in {"tpmc", "completed"} else None
    if kind == "totals":
        if rest in _HIGHER_IS_BETTER_TOTALS:
            return "higher"
        return "lower" if rest in {"errors", "aborts"} else None
    return None


def flatten_summary(summary: Summary) -> dict[str, float]:
    out: dict[str, float] = {"duration_s": summary.duration_s}
    for op, pct in summary.latency.items():
        for field in PERCENTILE_FIELDS:
            value = getattr(pct, field)
            if value is not None:
                out[f"latency.{op}.{field}"] = float(value)
    for gauge, value in summary.rates.items():
        out[f"rates.{gauge}"] = float(value)
    for field, total in summary.totals.model_dump().items():
        out[f"totals.{field}"] = float(total)
    if summary.tpcc is not None:
        out["tpcc.tpmc"] = summary.tpcc.tpmc
        for kind, figures in summary.tpcc.by_type.items():
            for field in TPCC_TYPE_FIELDS:
                out[f"tpcc.{kind}.{field}"] = float(getattr(figures, field))
    return out


@dataclass(frozen=True)
class MetricDelta:
    """One metric across the compared runs (the API's MetricComparison); lists hold one entry per
    run, the baseline first."""

    metric: str
    better: Better
    values: list[float | None]
    delta: list[float | None]
    percent_change: list[float | None]
    unavailable: list[str | None]  # why a run has no value (model/server_minute.py), where it says
    uncertainty: list[float | None]  # how far the delta's 99 % interval reaches towards zero (control/noise.py)
    significant: list[bool | None]  # None: not assessed (the baseline, totals, too few intervals)


def metric_deltas(
    summaries: Sequence[Summary | None], samples: Sequence[Sequence[Sample]] | None = None
) -> list[MetricDelta]:
    """Per metric: each run's value, its delta from the first run's, that delta in percent (None
    where either value is missing, or the baseline is 0), and, given the runs' samples, the delta's
    uncertainty from both runs' interval-to-interval variation and whether it lies beyond it."""
    flat = [flatten_summary(s) if s is not None else {} for s in summaries]
    reasons: list[dict[str, str]] = [
        {f"rates.{g}": why for g, why in s.unavailable.items()} if s is not None else {} for s in summaries
    ]
    runs_noise = [noise.RunNoise(s, seed=str(i)) for i, s in enumerate(samples or [[] for _ in summaries])]
    names = sorted({n for f in flat for n in f} | {n for r in reasons for n in r})
    out = []
    for name in names:
        values = [f.get(name) for f in flat]
        base = values[0]
        deltas = [None if base is None or v is None else v - base for v in values]
        percents = [None if d is None or not base else 100.0 * d / abs(base) for d in deltas]
        judged = [
            None if i == 0 or d is None else noise.noise(runs_noise[0], run, name, d)
            for i, (d, run) in enumerate(zip(deltas, runs_noise, strict=True))
        ]
        out.append(
            MetricDelta(
                metric=name,
                better=_better(name),
                values=values,
                delta=deltas,
                percent_change=percents,
                unavailable=[None if v is not None else r.get(name) for v, r in zip(values, reasons, strict=True)],
                uncertainty=[None if j is None else j.margin for j in judged],
                significant=[None if j is None else j.significant for j in judged],
            )
        )
    return out


def common_breakdowns(
    summaries: Sequence[Summary | None],
) -> tuple[list[dict[str, Breakdown]], dict[str, str]]:
    """Each run's breakdown per operation kind, decomposed the same way in every run: where some
    runs split the server's time by SPANNER_SYS and others cannot, every run shows it whole, and the
    note for that operation kind says which runs lacked the split and why."""
    runs = [dict(s.breakdown) if s is not None else {} for s in summaries]
    notes: dict[str, str] = {}
    for op in sorted({op for r in runs for op in r}):
        present = [(i, r[op]) for i, r in enumerate(runs) if op in r and r[op].count]
        split = [i for i, b in present if is_split(b)]
        if not split or len(split) == len(present):
            continue
        whole = [i for i, _ in present if i not in split]
        for r in runs:
            if op in r:
                r[op] = unsplit(r[op])
        why = "; ".join(f"#{i + 1}: {_no_split_reason(summaries[i])}" for i in whole)
        notes[op] = (
            f"The server's time is shown whole for every run: {_runs(whole)} no SPANNER_SYS split of {op} ({why})."
        )
    return runs, notes


def _runs(indexes: Sequence[int]) -> str:
    names = ", ".join(f"#{i + 1}" for i in indexes)
    return f"{names} {'has' if len(indexes) == 1 else 'have'}"


def _no_split_reason(summary: Summary | None) -> str:
    reasons = set(summary.unavailable.values()) if summary is not None else set()
    return "; ".join(sorted(reasons)) if reasons else "SPANNER_SYS gave no latency of its statements"
