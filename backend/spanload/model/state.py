"""The life cycle of a run, and the interface between the supervisor and whoever keeps its results."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.errors import RunConflict
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.samples import Sample, Summary

if TYPE_CHECKING:
    from spanload.model.profile import ProfileEdit, ProfileStatus


class RunState(StrEnum):
    PENDING = "pending"
    STARTING = "starting"
    PRELOADING = "preloading"  # the load phase: filling the tables before the measured phase
    RUNNING = "running"
    PAUSED = "paused"
    STOPPING = "stopping"
    FINISHED = "finished"
    FAILED = "failed"
    INTERRUPTED = "interrupted"  # the control plane died while the run was going

    @property
    def is_active(self) -> bool:
        return self in ACTIVE_STATES


ACTIVE_STATES = frozenset(
    {RunState.PENDING, RunState.STARTING, RunState.PRELOADING, RunState.RUNNING, RunState.PAUSED, RunState.STOPPING}
)
TERMINAL_STATES = frozenset(RunState) - ACTIVE_STATES


class RunAction(StrEnum):
    """What a user can ask of a run; :data:`ALLOWED` says in which states."""

    CHANGE = "change"
    PAUSE = "pause"
    RESUME = "resume"
    STOP = "stop"
    DELETE = "delete"


ALLOWED: dict[RunAction, frozenset[RunState]] = {
    RunAction.CHANGE: frozenset({RunState.STARTING, RunState.PRELOADING, RunState.RUNNING, RunState.PAUSED}),
    RunAction.PAUSE: frozenset({RunState.RUNNING}),
    RunAction.RESUME: frozenset({RunState.PAUSED}),
    RunAction.STOP: frozenset(
        {RunState.PENDING, RunState.STARTING, RunState.PRELOADING, RunState.RUNNING, RunState.PAUSED}
    ),
    RunAction.DELETE: TERMINAL_STATES,
}


def check_action(run_id: str, state: RunState, action: RunAction) -> None:
    """The one rule of which run states accept which actions, for the API and the engine alike.
    Raises :class:`RunConflict` saying what state the run is in."""
    if state not in ALLOWED[action]:
        raise RunConflict(f"cannot {action.value} run {run_id!r}: it is {state.value}")


class RunSink(Protocol):
    """Receives everything a run produces. The control plane stores it and fans it out;
    the headless CLI prints it. Called from the supervisor's event loop; must not block."""

    def on_sample(self, run_id: str, sample: Sample) -> None: ...

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None: ...

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None: ...

    def on_summary(self, run_id: str, summary: Summary) -> None: ...

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        """A point on the run's timeline that is neither a status nor a config change."""
        ...

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        """Progress of the load phase (not a timeline point: its start and end are events)."""
        ...


class RunEngine(Protocol):
    """What the control plane needs of the load engine (the Supervisor, or the engine thread around it)."""

    async def start(self, run_id: str, config: RunConfig) -> None: ...

    async def patch(self, run_id: str, patch: ConfigPatch, who: str) -> RunConfig: ...

    async def edit_profile(self, run_id: str, edit: ProfileEdit) -> ProfileStatus: ...

    async def pause(self, run_id: str) -> None: ...

    async def resume(self, run_id: str) -> None: ...

    async def stop(self, run_id: str) -> object: ...

    async def shutdown(self) -> None: ...
