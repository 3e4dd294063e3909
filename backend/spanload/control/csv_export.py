"""A run as CSV: one row per interval (``intervals_csv``), and its whole-run figures beside them
(``summary_csv``: one ``name,value,unit`` row per figure). Every header carries its unit, in the
units of model/units.py: durations in ms, rates per second, points in time in unix seconds."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from spanload.model.samples import Sample, Summary
from spanload.model.series import PERCENTILE_FIELDS, flatten
from spanload.model.units import BOOL, COUNT, MS, PER_MIN, PER_S, UNIX_S, Unit, gauge_unit, series_unit
from spanload.store.models import RunRow

FIXED_COLUMNS = (Unit("seq", "index"), Unit("t", UNIX_S), Unit("elapsed", MS, 1000.0), Unit("interval", MS, 1000.0))
SUMMARY_COLUMNS = ("name", "value", "unit")


def _number(value: float | int) -> str:
    """A float as Python writes it (``repr``, round-trips exactly); whole counts without ``.0``."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def _write(rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def intervals_csv(samples: Sequence[Sample]) -> str:
    flat = [flatten(s) for s in samples]
    series = sorted({c for r in flat for c in r})
    units = [series_unit(c) for c in series]
    header = [u.header for u in (*FIXED_COLUMNS, *units)]
    rows: list[Sequence[object]] = [header]
    for sample, values in zip(samples, flat, strict=True):
        fixed = (sample.seq, sample.t, sample.elapsed_s, sample.interval_s)
        cells = [_number(u.of(v)) for u, v in zip(FIXED_COLUMNS, fixed, strict=True)]
        cells += [_number(u.of(values[c])) if c in values else "" for u, c in zip(units, series, strict=True)]
        rows.append(cells)
    return _write(rows)


def summary_rows(row: RunRow, summary: Summary | None) -> list[tuple[str, str, str]]:
    """The run's identity and whole-run figures, each with its unit (empty for text)."""
    out: list[tuple[str, str, str]] = [
        ("run.id", row.id, ""),
        ("run.name", row.name, ""),
        ("run.status", row.status.value, ""),
        ("run.preset", row.preset or "", ""),
        ("run.target", row.target_kind, ""),
        ("run.created_at", _number(row.created_at), UNIX_S),
        ("run.started_at", "" if row.started_at is None else _number(row.started_at), UNIX_S),
        ("run.duration", _number(row.last_elapsed_s * 1000.0), MS),
        ("run.samples", str(row.sample_count), COUNT),
    ]
    if row.failure_reason:
        out.append(("run.failure_reason", row.failure_reason, ""))
    if summary is None:
        return out
    for op, p in sorted(summary.latency.items()):
        for field in PERCENTILE_FIELDS:
            value = getattr(p, field)
            if value is not None:
                out.append((f"latency.{op}.{field}", _number(float(value)), COUNT if field == "count" else MS))
    for name, value in sorted(summary.rates.items()):
        unit = gauge_unit(name)
        out.append((f"rates.{unit.name}", _number(unit.of(value)), unit.unit))
    out += [(f"totals.{k}", str(v), COUNT) for k, v in summary.totals.model_dump().items()]
    out += [(f"errors.{code}", str(n), COUNT) for code, n in sorted(summary.errors_by_code.items())]
    r = summary.reconciliation
    if r is not None:
        for key, value in r.model_dump().items():
            if isinstance(value, bool):
                out.append((f"reconciliation.{key}", str(int(value)), BOOL))
            elif isinstance(value, int):
                out.append((f"reconciliation.{key}", str(value), COUNT))
    if summary.tpcc is not None:
        out.append(("tpcc.tpmc", _number(summary.tpcc.tpmc), PER_MIN))
    if summary.capacity is not None:
        knee = summary.capacity.knee
        out.append(("capacity.knee", "" if knee is None else _number(knee), PER_S))
        out.append(("capacity.limited_by", summary.capacity.limited_by.value, ""))
    return out


def summary_csv(row: RunRow, summary: Summary | None) -> str:
    return _write([SUMMARY_COLUMNS, *summary_rows(row, summary)])
