"""A run's latency-throughput curve (model/capacity.py's :class:`CapacityCurve`), for the export,
the HTML report and the API: from the finished search's result, or, while it runs, from the
steps judged so far (each one a ``capacity`` event on the run's timeline)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from spanload.model.capacity import CapacityCurve, CapacityStep, curve
from spanload.model.events import EventKind
from spanload.store import runs as run_store
from spanload.store import summaries
from spanload.store.models import EventRow, RunRow


def steps_of(events: Sequence[EventRow]) -> list[CapacityStep]:
    """The judged steps on a run's timeline, in the order they were judged."""
    return [CapacityStep.model_validate(e.changes) for e in events if e.kind == EventKind.CAPACITY.value]


def curve_of(session: Session, run: RunRow, events: Sequence[EventRow] | None = None) -> CapacityCurve | None:
    """The run's curve; None for a run without a capacity search."""
    summary = None if run.status.is_active else summaries.summary_of(session, run)
    if summary is not None and summary.capacity is not None:
        return curve(summary.capacity.steps, summary.capacity)
    steps = steps_of(run_store.list_events(session, run.id) if events is None else events)
    if not steps:
        return None
    return curve(steps)
