"""Conditions on a run's figures, written ``NAME<OP>NUMBER`` (``updater.p99_ms<50``): the one
parser of ``--threshold`` (judged on the whole run, engine/thresholds.py) and of ``--abort-on``
(judged interval by interval while the run goes, engine/abort_rules.py).

Names (see engine/thresholds.py's ``metrics_of`` for what each figure is):
- ``<op>.<stat>_ms`` for every Op (``updater.txn.p99_ms``), with the short forms ``updater``
  (updater.txn), ``updater_intended``, ``poll`` (watcher.poll), ``notify`` (watcher.notify),
  ``reader`` and ``reader_intended``; stats p50 p90 p95 p99 p999 max mean;
- every rate by its Gauge name (``updater.tps``, ``watcher.changes_ps``, ``errors_ps``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from spanload.model.errors import RunInvalid
from spanload.model.samples import Op
from spanload.model.workload import duration_ms

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

    def verdict(self, metrics: dict[str, float]) -> dict[str, object]:
        """For ``--json``: the expression, the figure it judged (None when the run lacks it), pass or fail."""
        failure = self.check(metrics)
        return {
            "expression": self.text,
            "metric": self.metric,
            "figure": metrics.get(self.metric),
            "passed": failure is None,
            "detail": failure,
        }

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


_ABORT = re.compile(r"^(.*?)(?:\s+for\s+(\S+))?\s*$")


@dataclass(frozen=True)
class AbortRule:
    """``updater.p99_ms>500 for 30s``: the run stops itself once the condition held for ``for_s``
    seconds of intervals in a row (without ``for``: in one interval)."""

    text: str
    condition: Threshold  # the condition that is a breach (not, as for a threshold, a pass)
    for_s: float

    def breached(self, metrics: dict[str, float]) -> bool | None:
        """Whether the condition holds in these figures; None when they lack its figure."""
        value = metrics.get(self.condition.metric)
        return None if value is None else OPERATORS[self.condition.op](value, self.condition.limit)


def parse_abort(text: str) -> AbortRule:
    """``'updater.p99_ms>500 for 30s'`` as a rule. Raises :class:`ThresholdError` saying why."""
    match = _ABORT.match(text)
    assert match is not None  # the pattern matches any text
    expression, duration = match.groups()
    try:
        for_s = 0.0 if duration is None else duration_ms(duration) / 1000
    except ValueError as err:
        raise ThresholdError(f"abort rule {text!r}: after 'for', {err}") from None
    try:
        condition = parse(expression)
    except ThresholdError as err:
        raise ThresholdError(f"abort rule {text!r}: {err} (then optionally 'for 30s')") from None
    return AbortRule(text=text, condition=condition, for_s=for_s)
