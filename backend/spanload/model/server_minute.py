"""When a SPANNER_SYS minute belongs to a run: the one rule, used by the aggregator, the summary
and compare alike.

SPANNER_SYS's ``*_TOP_MINUTE`` tables hold closed one-minute intervals of the whole database, not
of a run. A minute counts for a run only if it lies wholly inside the run's measured phase (it starts
at or after ``begin`` and ends by the run's latest interval); a minute that began before (the
previous run's, or the preload's) would otherwise show as this run's figure. Workers send each
minute's ``INTERVAL_END`` with its figures (``Report.sys_interval_end``) and judge nothing; the
aggregator keeps or drops them here. A figure the run wants but has no minute for is n/a with its
reason (:func:`unavailable`), never a value carried from elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from spanload.model.samples import Gauge, Totals

MINUTE_S = 60.0

POLL_GAUGES = (Gauge.SERVER_POLL_AVG_LATENCY_S, Gauge.SERVER_POLL_CPU_FRACTION)
TXN_GAUGES = (Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S, Gauge.SERVER_TXN_AVG_PARTICIPANTS)
MINUTE_GAUGES = frozenset(POLL_GAUGES + TXN_GAUGES)
"""Gauges read from SPANNER_SYS ``*_TOP_MINUTE`` tables (every other server gauge is per interval)."""

NO_COMPLETE_MINUTE = "no complete minute inside the run yet"
NO_MINUTE_FROM_TARGET = "the target's SPANNER_SYS gave no minute of this run"


def minute_inside(interval_end: float | None, begin: float, end: float) -> bool:
    """Does the minute ending at ``interval_end`` (unix seconds) lie wholly inside ``[begin, end]``?
    A minute whose end is unknown belongs to no run."""
    return interval_end is not None and interval_end - MINUTE_S >= begin and interval_end <= end


def minute_end(t: float) -> float:
    """The end of the SPANNER_SYS minute (aligned to the wall-clock minute) that holds time ``t``; a
    report interval belongs to the minute its end falls in."""
    return math.ceil(t / MINUTE_S) * MINUTE_S


def has_complete_minute(begin: float, end: float) -> bool:
    """Does ``[begin, end]`` hold a whole wall-clock minute (SPANNER_SYS's intervals are aligned to
    the minute)?"""
    first_end = math.ceil(begin / MINUTE_S) * MINUTE_S + MINUTE_S
    return first_end <= end


def unavailable(begin: float, end: float, present: Iterable[str], totals: Totals) -> dict[str, str]:
    """The minute gauges the run wants but lacks, each with why. Workers read SPANNER_SYS where a
    watcher runs: a run that polled wants the poll's figures, and the commit figures if it also
    committed."""
    wanted: list[Gauge] = []
    if totals.polls:
        wanted.extend(POLL_GAUGES)
        if totals.transactions:
            wanted.extend(TXN_GAUGES)
    have = set(present)
    reason = NO_MINUTE_FROM_TARGET if has_complete_minute(begin, end) else NO_COMPLETE_MINUTE
    return {g.value: reason for g in wanted if g not in have}
