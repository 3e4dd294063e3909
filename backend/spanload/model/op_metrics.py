"""Metric names of a workload definition's operations, declared once.

Every operation ``op`` of a definition has its own histograms, counters and gauges, named by these
templates (``{op}`` is the operation's name). The Go worker's copy is generated from this module
(``goworker/internal/protocol/names_gen.go``, by ``python -m spanload.model.names_go``) and a test
fails when the two differ; the UI reads the same names from the OpenAPI schema.
"""

from __future__ import annotations

from enum import StrEnum

OP_PREFIX = "op."


class OpHistogram(StrEnum):
    """Latency histograms (HdrHistogram, microseconds) of one operation."""

    LATENCY = "op.{op}"  # successful executions, from the actual start
    INTENDED = "op.{op}_intended"  # from the intended (scheduled) start: queueing included
    SERVER = "op.{op}_server"  # server-timing summed over the execution's RPCs, where sent
    FAILED = "op.{op}.failed"  # failed executions, from the actual start


class OpCounter(StrEnum):
    """Per-interval deltas of one operation."""

    DONE = "op.{op}.done"  # executions that succeeded
    SCHEDULED = "op.{op}.scheduled"  # arrivals the open-loop schedule produced
    ROWS = "op.{op}.rows"  # rows read or written by its successful executions


class OpGauge(StrEnum):
    """Values at an interval's end (workers), or rates the aggregator derives from the counters."""

    TARGET_PS = "op.{op}.target_ps"  # the executions per second asked for (open loop)
    BEHIND = "op.{op}.behind"  # arrivals due but not started
    IN_FLIGHT = "op.{op}.in_flight"
    PS = "op.{op}.ps"  # achieved executions per second (aggregator: DONE / interval)
    SCHEDULED_PS = "op.{op}.scheduled_ps"  # aggregator: SCHEDULED / interval


def name(template: StrEnum, op: str) -> str:
    """``name(OpHistogram.LATENCY, "place_order")`` -> ``"op.place_order"``."""
    return template.value.replace("{op}", op)


RATE_OF: dict[OpGauge, OpCounter] = {OpGauge.PS: OpCounter.DONE, OpGauge.SCHEDULED_PS: OpCounter.SCHEDULED}
"""The gauges the aggregator derives from each operation's counters, per second of interval."""


def split(metric: str) -> tuple[str, StrEnum] | None:
    """``"op.place_order.done"`` -> ``("place_order", OpCounter.DONE)``; None for other names."""
    if not metric.startswith(OP_PREFIX):
        return None
    for family in (OpCounter, OpGauge, OpHistogram):
        for template in family:
            head, _, tail = template.value.partition("{op}")
            if metric.startswith(head) and metric.endswith(tail) and len(metric) > len(head) + len(tail):
                op = metric[len(head) : len(metric) - len(tail)] if tail else metric[len(head) :]
                if tail or ("." not in op and not op.endswith(("_intended", "_server"))):
                    return op, template
    return None
