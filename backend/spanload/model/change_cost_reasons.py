"""Why a run that watched has no server CPU per change (engine/change_cost.py): each of the two
figures is n/a with its reason in the summary (``Summary.unavailable``), never blank or 0.

- ``server.cpu_per_change_ms`` comes from the local Spanner's counters (SPANNER_SYS.SPANLOAD_COUNTERS),
  which no other target has.
- ``server.watch_cpu_per_change_ms`` comes from SPANNER_SYS's ``QUERY_STATS_TOP_MINUTE``: the
  emulator has none, Cloud Spanner's needs the right to read it, and a run needs a closed minute
  inside it.
- Either is per change received: a run that received none has neither.

The target's kind comes first (it decides for every run on it), then a failed read of SPANNER_SYS
(the worker's error, e.g. PERMISSION_DENIED), then the run's own figures.
"""

from __future__ import annotations

from collections.abc import Iterable

from spanload.model.config import TargetKind
from spanload.model.samples import Gauge, Totals
from spanload.model.server_minute import NO_COMPLETE_MINUTE, NO_MINUTE_FROM_TARGET, has_complete_minute

COST_GAUGES = (Gauge.SERVER_CPU_PER_CHANGE_MS, Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS)

NO_CHANGES = "no changes were received"
EMULATOR_NO_CPU = "the emulator counts no server CPU"
EMULATOR_NO_SYS = "the emulator has no SPANNER_SYS statistics"
NO_COUNTERS = "the target's SPANNER_SYS.SPANLOAD_COUNTERS gave no CPU of this run"
CLOUD_NO_CPU = (
    "Cloud Spanner counts no server CPU per interval (the local Spanner's counters do); "
    "see server.watch_cpu_per_change_ms"
)


def sys_unreadable(error: str) -> str:
    return f"SPANNER_SYS could not be read: {error}"


def unavailable_costs(
    target: TargetKind,
    begin: float,
    end: float,
    present: Iterable[str],
    totals: Totals,
    sys_error: str | None = None,
) -> dict[str, str]:
    """The change-cost gauges a run that watched lacks (``present``: the summary's rates), each
    with why; ``sys_error``: the workers' last failed read of SPANNER_SYS."""
    have = set(present)
    out: dict[str, str] = {}
    for gauge in COST_GAUGES:
        if gauge in have:
            continue
        if target is TargetKind.EMULATOR:
            why = EMULATOR_NO_CPU if gauge is Gauge.SERVER_CPU_PER_CHANGE_MS else EMULATOR_NO_SYS
        elif target is TargetKind.CLOUD and gauge is Gauge.SERVER_CPU_PER_CHANGE_MS:
            why = CLOUD_NO_CPU
        elif sys_error:
            why = sys_unreadable(sys_error)
        elif totals.received_changes == 0:
            why = NO_CHANGES
        elif gauge is Gauge.SERVER_CPU_PER_CHANGE_MS:
            why = NO_COUNTERS
        elif not has_complete_minute(begin, end):
            why = NO_COMPLETE_MINUTE
        else:
            why = NO_MINUTE_FROM_TARGET
        out[gauge.value] = why
    return out
