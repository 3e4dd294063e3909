"""The report's charts: which series a run has, and their geometry for inline SVG (the template
draws it). One ``path`` per series, so a reader (and a test) can count them against the run's."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

from spanload.model import op_metrics
from spanload.model.capacity import CapacityResult
from spanload.model.samples import INTENDED_SUFFIX, Gauge, Op, Sample
from spanload.model.units import gauge_unit

WIDTH, HEIGHT = 1000, 240
LEFT, RIGHT, TOP, BOTTOM = 60, 14, 12, 30
COLORS = ("#2563eb", "#f59e0b", "#dc2626", "#059669", "#7c3aed", "#db2777", "#0d9488", "#65a30d")

Extract = Callable[[Sample], float | None]


@dataclass
class Series:
    label: str
    points: list[tuple[float, float | None]]
    color: str = ""
    path: str = ""


@dataclass
class Marker:
    x: float
    label: str
    px: float = 0.0


@dataclass
class Chart:
    """A line chart: ``series`` over x (elapsed seconds, or a capacity step's rate)."""

    id: str
    title: str
    unit: str
    series: list[Series]
    x_label: str = "elapsed (s)"
    markers: list[Marker] = field(default_factory=list)
    x_ticks: list[tuple[float, str]] = field(default_factory=list)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM
    x_names: list[str] = field(default_factory=list)  # names of x = 0, 1, 2... instead of numbers


def _step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) that cuts ``span`` into about ``count`` parts."""
    if span <= 0:
        return 1.0
    raw = span / count
    magnitude = float(10 ** math.floor(math.log10(raw)))
    return next(m * magnitude for m in (1, 2, 5, 10) if raw <= m * magnitude)


def _ticks(lo: float, hi: float, count: int) -> list[float]:
    """Round values from the first multiple of the step at or above ``lo`` up to ``hi``."""
    step = _step(hi - lo, count)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + k * step, 10) for k in range(int((hi - first) / step + 1e-9) + 1)]


def _label(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def lay_out(chart: Chart) -> Chart:
    """Scale the points into the plot area and write each series' SVG path (gaps where a value is
    missing), the axes' ticks and the markers' positions."""
    xs = [x for s in chart.series for x, _ in s.points]
    ys = [y for s in chart.series for _, y in s.points if y is not None]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    x1 = x1 if x1 > x0 else x0 + 1.0
    top = max(ys, default=1.0) or 1.0
    y_step = _step(top, 4)
    y1 = math.ceil(top / y_step - 1e-9) * y_step
    width, height = chart.right - chart.left, chart.bottom - chart.top

    def px(x: float) -> float:
        return round(chart.left + (x - x0) / (x1 - x0) * width, 1)

    def py(y: float) -> float:
        return round(chart.bottom - y / y1 * height, 1)

    for i, series in enumerate(chart.series):
        series.color = COLORS[i % len(COLORS)]
        parts, pen_down = [], False
        for x, y in series.points:
            if y is None:
                pen_down = False
                continue
            parts.append(f"{'L' if pen_down else 'M'}{px(x)},{py(y)}")
            pen_down = True
        series.path = " ".join(parts)
    chart.y_ticks = [(py(y), _label(y)) for y in _ticks(0.0, y1, 4)]
    if chart.x_names:
        chart.x_ticks = [(px(float(i)), name) for i, name in enumerate(chart.x_names)]
    else:
        chart.x_ticks = [(px(x), _label(x)) for x in _ticks(x0, x1, 8)]
    for marker in chart.markers:
        marker.px = px(min(max(marker.x, x0), x1))
    return chart


def _gauge(name: str) -> Extract:
    unit = gauge_unit(name)
    return lambda s: unit.of(s.gauges[name]) if name in s.gauges else None


def _latency(op: str, stat: str) -> Extract:
    def get(s: Sample) -> float | None:
        p = s.latency.get(op)
        return None if p is None or not p.count else getattr(p, stat)

    return get


def main_ops(names: Iterable[str]) -> list[str]:
    """The operations whose latency a reader looks at first: successes from their actual start."""
    seen = sorted(set(names))
    builtin = [o.value for o in (Op.UPDATER_TXN, Op.READER_READ, Op.WATCHER_POLL, Op.WATCHER_NOTIFY)]
    others = [
        op
        for op in seen
        if op not in builtin
        and not op.endswith(("_intended", "_server", ".failed"))
        and (op_metrics.split(op) is not None or op.startswith("tpcc."))
    ]
    return [op for op in builtin if op in seen] + others


def _present(gauges: Sequence[str], names: Sequence[str]) -> list[tuple[str, Extract]]:
    return [(name, _gauge(name)) for name in names if name in gauges]


def run_charts(samples: Sequence[Sample], markers: Sequence[Marker] = ()) -> list[Chart]:
    """A run's charts over elapsed time: throughput, each operation's latency, the watcher's
    changes, errors, sessions; a chart without data is left out."""
    gauges = sorted({g for s in samples for g in s.gauges})
    op_rates = [
        g
        for g in gauges
        if (hit := op_metrics.split(g)) and hit[1] in (op_metrics.OpGauge.PS, op_metrics.OpGauge.TARGET_PS)
    ]
    throughput = [Gauge.UPDATER_TPS, Gauge.UPDATER_TARGET_TPS, Gauge.READER_RPS, Gauge.READER_TARGET_RPS]
    specs: list[tuple[str, str, str, list[tuple[str, Extract]]]] = [
        ("throughput", "Throughput: achieved against target", "/s", _present(gauges, [*throughput, *op_rates]))
    ]
    for op in main_ops(op for s in samples for op, p in s.latency.items() if p.count):
        lines = [(stat, _latency(op, stat)) for stat in ("p50", "p90", "p99", "max")]
        lines.append(("p99 from the intended start", _latency(op + INTENDED_SUFFIX, "p99")))
        specs.append((f"latency-{op}", f"Latency of {op}", "ms", lines))
    specs += [
        ("watcher", "Changes the watchers received", "/s", _present(gauges, [Gauge.WATCHER_CHANGES_PS])),
        (
            "errors",
            "Errors, aborts and retries",
            "/s",
            _present(gauges, [Gauge.ERRORS_PS, Gauge.ABORTS_PS, Gauge.RETRIES_PS]),
        ),
        (
            "sessions",
            "Session pool",
            "count",
            _present(gauges, [Gauge.SESSIONS_IN_USE, Gauge.SESSIONS_IDLE, Gauge.SESSIONS_WAITING]),
        ),
    ]
    charts = []
    for chart_id, title, unit, lines in specs:
        series = [Series(label, [(s.elapsed_s, get(s)) for s in samples]) for label, get in lines]
        series = [s for s in series if any(y is not None for _, y in s.points)]
        if series:
            chart = Chart(
                chart_id.replace(".", "-"), title, unit, series, markers=[Marker(m.x, m.label) for m in markers]
            )
            charts.append(lay_out(chart))
    return charts


def capacity_charts(result: CapacityResult) -> list[Chart]:
    """A capacity search's curve: achieved against offered rate, and latency per step."""
    if not result.steps:
        return []
    steps = result.steps
    achieved = Chart(
        "capacity-throughput",
        "Capacity: achieved against offered rate",
        "/s",
        [
            Series("achieved", [(s.rate, s.achieved) for s in steps]),
            Series("offered", [(s.rate, s.rate) for s in steps]),
        ],
        x_label="offered rate (/s)",
    )
    latency = Chart(
        "capacity-latency",
        "Capacity: latency per step",
        "ms",
        [Series(f"{name}", [(s.rate, getattr(s, name)) for s in steps]) for name in ("p50", "p95", "p99")],
        x_label="offered rate (/s)",
    )
    knee = [] if result.knee is None else [Marker(result.knee, f"knee {result.knee:g}/s")]
    achieved.markers, latency.markers = knee, [Marker(m.x, m.label) for m in knee]
    return [lay_out(achieved), lay_out(latency)]


def compare_charts(
    labels: Sequence[str], runs: Sequence[Sequence[Sample]], metrics: Sequence[tuple[str, str, str]]
) -> list[Chart]:
    """One chart per (series, title, unit) of ``metrics``, one line per run (label), on elapsed time.
    A series is ``latency.<op>.<stat>`` or ``gauges.<gauge>``."""
    charts = []
    for name, title, unit in metrics:
        section, _, rest = name.partition(".")
        if section == "latency":
            op, _, stat = rest.rpartition(".")
            get = _latency(op, stat)
        else:
            get = _gauge(rest)
        series = [
            Series(label, [(s.elapsed_s, get(s)) for s in samples]) for label, samples in zip(labels, runs, strict=True)
        ]
        if any(y is not None for s in series for _, y in s.points):
            charts.append(lay_out(Chart(name.replace(".", "-"), title, unit, series)))
    return charts


DISTRIBUTION = (0.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0)
MAGNITUDES = 20.0  # operations whose largest values differ by more share no distribution chart


def distribution_charts(histograms: dict[str, HdrHistogram], ops: Sequence[str]) -> list[Chart]:
    """Each operation's whole-run latency at percentiles spread toward the tail (HdrHistogram's
    percentile distribution), from the histograms merged over every interval. Operations of other
    magnitudes (a change notification's second against a commit's milliseconds) get their own
    chart, so that no line lies flat on the axis."""
    series = [
        Series(op, [(float(i), histograms[op].get_value_at_percentile(p) / 1000) for i, p in enumerate(DISTRIBUTION)])
        for op in ops
        if op in histograms and histograms[op].get_total_count()
    ]
    groups: list[list[Series]] = []
    for one in sorted(series, key=_top, reverse=True):
        if groups and _top(groups[-1][0]) <= MAGNITUDES * _top(one):
            groups[-1].append(one)
        else:
            groups.append([one])
    names = ["min" if p == 0 else "max" if p == 100 else f"p{p:g}" for p in DISTRIBUTION]
    charts = []
    for i, group in enumerate(sorted(groups, key=lambda g: _top(g[0]))):
        title = "Latency distribution over the whole run" + (
            f" ({', '.join(s.label for s in group)})" if len(groups) > 1 else ""
        )
        chart = Chart(
            f"distribution-{i}", title, "ms", sorted(group, key=lambda s: ops.index(s.label)), x_label="percentile"
        )
        chart.x_names = names
        charts.append(lay_out(chart))
    return charts


def _top(series: Series) -> float:
    return max((y for _, y in series.points if y is not None), default=0.0) or 1e-9
