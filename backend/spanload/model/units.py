"""The unit of every series a sample or a summary holds, for exports and the HTML report.

One unit per quantity: every duration in milliseconds (k6's and Gatling's exports do the same),
every rate per second, a point in time in unix seconds. A series whose name carries another unit
(``server.commit_latency_s``) is converted and loses the suffix (``server.commit_latency`` in ms).
The rules go by the names' suffixes, which model/samples.py, model/op_metrics.py and model/tpcc.py
declare; a test fails when a new name falls through to ``count`` without meaning to.
"""

from __future__ import annotations

from dataclasses import dataclass

MS, PER_S, PER_MIN, RATIO, COUNT, BOOL, UNIX_S = "ms", "/s", "/min", "ratio", "count", "1 or 0", "unix s"

_RATE_ENDINGS = ("_ps", ".ps", "tps", "rps")  # updater.tps, reader.target_rps, errors_ps, op.<op>.ps


@dataclass(frozen=True)
class Unit:
    name: str  # the series' name without a unit suffix it was converted from
    unit: str
    scale: float = 1.0  # stored value x scale = the value in ``unit``

    @property
    def header(self) -> str:
        return f"{self.name} [{self.unit}]"

    def of(self, value: float) -> float:
        return value * self.scale if self.scale != 1.0 else value


def gauge_unit(name: str) -> Unit:
    """A gauge's (or a whole-run rate's) unit, from its name."""
    if name.endswith("_ms"):
        return Unit(name.removesuffix("_ms"), MS)
    if name.endswith("_s"):
        return Unit(name.removesuffix("_s"), MS, 1000.0)
    if name.endswith(_RATE_ENDINGS):
        return Unit(name, PER_S)
    if name.endswith("_fraction"):
        return Unit(name, RATIO)
    if name == "tpcc.tpmc":
        return Unit(name, PER_MIN)
    return Unit(name, COUNT)  # sessions, behind, in flight, participants, splits, rows per poll


def series_unit(series: str) -> Unit:
    """The unit of a flattened series (model/series.py ``flatten``): ``latency.<op>.<field>``,
    ``gauges.<gauge>``, ``totals.<field>``, ``errors.<code>``."""
    section, _, rest = series.partition(".")
    if section == "latency":
        return Unit(series, COUNT if series.endswith(".count") else MS)
    if section in ("gauges", "rates"):
        inner = gauge_unit(rest)
        return Unit(f"{section}.{inner.name}", inner.unit, inner.scale)
    if section in ("totals", "errors"):
        return Unit(series, COUNT)
    return gauge_unit(series)  # tpcc.tpmc
