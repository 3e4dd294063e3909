"""The kinds of point on a run's timeline, and the load phase's progress: what the supervisor tells
its sink (:class:`~spanload.model.state.RunSink`) besides samples, states and config changes, and
what the live socket carries on (:mod:`spanload.model.live`)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class EventKind(StrEnum):
    CONFIG_CHANGE = "config_change"
    STATUS = "status"
    TARGET_DOWN = "target_down"  # the local Spanner the run talks to died
    TARGET_UP = "target_up"  # ... and serve restarted it
    STALLED = "stalled"  # a worker went silent past the stall threshold (it may be busy, not dead)
    RECOVERED = "recovered"  # a stalled worker spoke again
    PRELOAD_STARTED = "preload_started"  # the load phase began: {rows, table_rows}
    PRELOAD_FINISHED = "preload_finished"  # ... and ended: {rows, loaded, skipped, seconds, rows_per_s, worker_cpu_s}
    PRELOAD_SKIPPED = "preload_skipped"  # the table already held enough rows: {rows, table_rows, message}
    ABORTED = "aborted"  # an abort rule held for its time: {rule, metric, value, for_s, breached_s, reason}
    CAPACITY = "capacity"  # a capacity search judged a step: the step's figures (model.capacity.CapacityStep)
    PROFILE = "profile"  # the load profile: {event: stage|skip|extend|abandon|end, stage, ...}
    WATCH_MODE = "watch_mode"  # the watch switched poll <-> change_stream live: {mode, previous, handover, error}


class PreloadStatus(BaseModel):
    """Progress of a run's load phase, across all its workers."""

    rows: int = Field(description="rows the phase loads (its target minus nothing: the whole of [0, rows))")
    rows_done: int = Field(description="rows written or found present so far")
    rows_per_s: float = Field(description="rows written per second since the phase began")
    percent: float = Field(description="rows_done / rows, 0..100")
    eta_s: float | None = Field(description="seconds left at the current rate; None before any progress")
    elapsed_s: float
    done: bool = False
