"""The HTML report of a run, or of a comparison of 2 to 6 runs: one self-contained file (inline
CSS, inline SVG charts, no external URL) rendered by Jinja2 from the store, so that a reader who
was not there understands the run from the file alone (what ran, against what, how it went, what
changed while it ran). `GET /api/runs/{id}/report`, `spanload report` and `spanload run --html`."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy.orm import Session

from spanload import __version__
from spanload.control import compare
from spanload.control.live_changes import live_changes
from spanload.control.report.charts import (
    Marker,
    capacity_charts,
    compare_charts,
    distribution_charts,
    main_ops,
    run_charts,
)
from spanload.engine import thresholds as threshold_checks
from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.key_figures import key_figures
from spanload.model.presets import get_preset
from spanload.model.samples import Summary
from spanload.model.series import downsample
from spanload.model.stored_config import read_stored
from spanload.model.units import series_unit
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store import summaries
from spanload.store.models import EventRow, RunRow

MAX_POINTS = 600  # per series: enough for a chart 700 px wide, small enough for a file to mail


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("spanload.control.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["ms"] = lambda v: "-" if v is None else (f"{v:,.2f}" if v < 100 else f"{v:,.0f}")
    env.filters["num"] = lambda v: "-" if v is None else (f"{v:,}" if isinstance(v, int) else f"{v:,.4g}")
    env.filters["when"] = lambda t: (
        "-" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    )
    env.filters["hms"] = lambda s: (
        "-" if s is None else f"{int(s) // 3600:d}:{int(s) % 3600 // 60:02d}:{int(s) % 60:02d}"
    )
    env.filters["value"] = lambda v: json.dumps(v) if not isinstance(v, str) else v
    return env


ENV = _environment()


def _events(rows: Sequence[EventRow]) -> list[dict[str, Any]]:
    return [{"elapsed_s": e.elapsed_s, "t": e.t, "kind": e.kind, "who": e.who, "changes": e.changes} for e in rows]


def _markers(events: Sequence[EventRow]) -> list[Marker]:
    """Timeline points worth a line on the charts: live changes, and anything that is not a status."""
    return [
        Marker(
            e.elapsed_s,
            ", ".join(f"{k}={v}" for k, v in e.changes.items()) if e.kind == EventKind.CONFIG_CHANGE.value else e.kind,
        )
        for e in events
        if e.kind != EventKind.STATUS.value
    ]


def _baseline(config: dict[str, Any], preset: str | None) -> tuple[str, dict[str, Any]]:
    """What the config is compared with: its preset's, else the defaults."""
    if preset is not None:
        try:
            return f"preset {preset}", get_preset(preset).config.model_dump(mode="json", by_alias=True)
        except LookupError:
            pass
    return "the defaults", RunConfig().model_dump(mode="json", by_alias=True)


def _config_diff(row: RunRow) -> tuple[str, list[dict[str, Any]]]:
    against, base = _baseline(row.config, row.preset)
    diff = compare.config_diff([base, row.config])
    return against, [{"field": f, "from": v[0], "to": v[1]} for f, v, _ in diff]


def _latency_rows(summary: Summary | None) -> list[tuple[str, Any]]:
    if summary is None:
        return []
    return [(op, p) for op, p in sorted(summary.latency.items()) if p.count]


def _rates(summary: Summary | None) -> list[tuple[str, float, str]]:
    if summary is None:
        return []
    out = []
    for name, value in sorted(summary.rates.items()):
        unit = series_unit(f"rates.{name}")
        out.append((unit.name.removeprefix("rates."), unit.of(value), unit.unit))
    return out


def threshold_verdicts(session: Session, row: RunRow, expressions: Sequence[str]) -> list[dict[str, Any]]:
    """Each ``--threshold`` expression's verdict on the finished run ``row`` (as `spanload run`
    computes them), for a report asked of a serve; none while the run is going. Raises
    :class:`ThresholdError` (422) for an expression that does not parse or names no figure."""
    checks = [threshold_checks.parse(text) for text in expressions]
    threshold_checks.check_names(checks, read_stored(row.config).config)
    summary = summaries.summary_of(session, row) if not row.status.is_active else None
    if summary is None:
        return []
    figures = threshold_checks.metrics_of(summary)
    return [check.verdict(figures) for check in checks]


def run_report(session: Session, row: RunRow, thresholds: Sequence[dict[str, Any]] = ()) -> str:
    """The run's report as one HTML document; ``thresholds``: the verdicts of `spanload run
    --threshold` (expression, metric, figure, passed), shown first when given."""
    summary = summaries.summary_of(session, row) if not row.status.is_active else None
    samples = sample_store.list_samples(session, row.id)
    events = run_store.list_events(session, row.id)
    shown = downsample(samples, MAX_POINTS)
    charts = run_charts(shown, _markers(events))
    if summary is not None:
        ops = main_ops(op for op, p in summary.latency.items() if p.count)
        charts += distribution_charts(sample_store.whole_run_histograms(session, row.id), ops)
    if summary is not None and summary.capacity is not None:
        charts += capacity_charts(summary.capacity)
    against, diff = _config_diff(row)
    return ENV.get_template("run.html.j2").render(
        title=f"Spanload run {row.name}",
        run=row,
        config=read_stored(row.config).config,
        config_json=json.dumps(row.config, indent=2),
        summary=summary,
        latency=_latency_rows(summary),
        thresholds=list(thresholds),
        headline_ops=[] if summary is None else main_ops(op for op, p in summary.latency.items() if p.count),
        rates=_rates(summary),
        charts=charts,
        samples=len(samples),
        shown=len(shown),
        events=_events(events),
        live_changes=live_changes(row.config, events),
        diff_against=against,
        config_diff=diff,
        generated=time.time(),
        version=__version__,
    )


def _scaled(delta: compare.MetricDelta) -> dict[str, Any]:
    """A compared metric in the report's units (a latency in seconds in ms, renamed)."""
    unit = series_unit(delta.metric)
    out = dataclasses.asdict(delta)

    def scale(values: list[float | None]) -> list[float | None]:
        return [None if v is None else unit.of(v) for v in values]

    out.update(metric=unit.name, unit=unit.unit, values=scale(delta.values), delta=scale(delta.delta))
    return out


def compare_report(session: Session, rows: Sequence[RunRow]) -> str:
    """2 to 6 runs side by side: the first is the baseline."""
    runs_summaries = [summaries.summary_of(session, row) for row in rows]
    runs_samples = [sample_store.list_samples(session, row.id) for row in rows]
    deltas = compare.metric_deltas(runs_summaries, runs_samples)
    present = {m.metric: m for m in deltas}
    keys = [(m, label) for m, label in key_figures(compare.workload_of(r.config) for r in rows) if m in present]
    chartable = [
        (m.replace("rates.", "gauges.", 1), label, series_unit(m.replace("rates.", "gauges.", 1)).unit)
        for m, label in keys
        if m.startswith(("latency.", "rates."))
    ]
    labels = [f"{i + 1}. {row.name}" for i, row in enumerate(rows)]
    charts = compare_charts(labels, [downsample(s, MAX_POINTS) for s in runs_samples], chartable)
    events = run_store.config_change_events(session, [r.id for r in rows])
    changes = [live_changes(r.config, events[r.id]) for r in rows]
    diff = compare.config_diff([r.config for r in rows], changes)
    return ENV.get_template("compare.html.j2").render(
        title=f"Spanload comparison of {len(rows)} runs",
        runs=rows,
        labels=labels,
        summaries=runs_summaries,
        key_metrics=[(_scaled(present[m]), label) for m, label in keys],
        metrics=[_scaled(m) for m in deltas],
        charts=charts,
        config_diff=[{"field": f, "values": v, "at_end": e} for f, v, e in diff],
        generated=time.time(),
        version=__version__,
    )
