"""``--threshold 'updater.p99_ms<50'``: pass/fail checks on a run's whole-run figures.

Names a threshold can use (see :func:`metrics_of`):
- ``<op>.<stat>_ms`` for every Op (``updater.txn.p99_ms``), with the short forms ``updater``
  (updater.txn), ``updater_intended``, ``poll`` (watcher.poll), ``notify`` (watcher.notify),
  ``reader`` and ``reader_intended``; stats p50 p90 p95 p99 p999 max mean;
- every whole-run rate by its Gauge name (``updater.tps``, ``watcher.changes_ps``, ``errors_ps``);
- ``totals.<name>`` (``totals.errors``) and ``reconciliation.<name>`` (``reconciliation.ok`` is 1 or 0).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from spanload.model.errors import RunInvalid
from spanload.model.samples import Op, Summary

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
}
ALIASES = {
    "updater": Op.UPDATER_TXN,
    "updater_intended": Op.UPDATER_TXN_INTENDED,
    "poll": Op.WATCHER_POLL,
    "notify": Op.WATCHER_NOTIFY,
    "reader": Op.READER_READ,
    "reader_intended": Op.READER_READ_INTENDED,
}
STATS = ("p50", "p90", "p95", "p99", "p999", "max", "mean")
_SHAPE = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*(<=|>=|==|!=|<|>)\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*$")


class ThresholdError(RunInvalid):
    """A threshold that cannot be parsed; the message says why."""


@dataclass(frozen=True)
class Threshold:
    text: str
    metric: str
    op: str
    limit: float

    def check(self, metrics: dict[str, float]) -> str | None:
        """None if it holds, else a sentence saying how it failed."""
        value = metrics.get(self.metric)
        if value is None:
            return f"threshold '{self.text}' failed: the run has no figure for {self.metric}"
        if OPERATORS[self.op](value, self.limit):
            return None
        return f"threshold '{self.text}' failed: {self.metric} was {value:.6g}"


def parse(text: str) -> Threshold:
    match = _SHAPE.match(text)
    if match is None:
        raise ThresholdError(
            f"threshold {text!r} is not of the form NAME<OP>NUMBER (for example 'updater.p99_ms<50'); "
            f"OP is one of {', '.join(OPERATORS)}"
        )
    name, op, number = match.groups()
    try:
        limit = float(number)
    except ValueError:
        raise ThresholdError(f"threshold {text!r}: {number!r} is not a number") from None
    return Threshold(text=text, metric=_canonical(name), op=op, limit=limit)


def _canonical(name: str) -> str:
    head, _, stat = name.rpartition(".")
    if stat.endswith("_ms") and stat[:-3] in STATS:
        if head in ALIASES:
            return f"{ALIASES[head]}.{stat}"
        if head in {op.value for op in Op}:
            return name
        raise ThresholdError(
            f"threshold name {name!r}: {head!r} is not an operation; use one of "
            f"{', '.join([*ALIASES, *(op.value for op in Op)])}"
        )
    return name


def metrics_of(summary: Summary) -> dict[str, float]:
    """Every figure of a summary a threshold can name, flat."""
    out: dict[str, float] = {}
    for op, p in summary.latency.items():
        for stat in STATS:
            value = getattr(p, stat)
            if value is not None:
                out[f"{op}.{stat}_ms"] = float(value)
    out.update({k: float(v) for k, v in summary.rates.items()})
    for key, value in summary.totals.model_dump().items():
        out[f"totals.{key}"] = float(value)
    out["errors"] = float(summary.totals.errors)
    if summary.reconciliation is not None:
        for key, value in summary.reconciliation.model_dump().items():
            if isinstance(value, bool | int | float):
                out[f"reconciliation.{key}"] = float(value)
    return out
