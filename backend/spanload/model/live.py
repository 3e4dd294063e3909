"""The messages of the live websocket (``WS /api/runs/{id}/live``). Each has a ``type`` field;
the UI types its socket from these models."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from spanload.model.events import EventKind, PreloadStatus
from spanload.model.samples import Sample, Summary
from spanload.model.state import RunState


class LiveChangeStep(BaseModel):
    elapsed_s: float = Field(description="seconds into the run")
    value: Any = Field(description="the field's value from then on")


class LiveChange(BaseModel):
    """One config field a run changed while it ran: its value at start, at the end, and each change."""

    field: str = Field(description="dotted path, e.g. updater.transactions_per_second")
    at_start: Any
    at_end: Any
    steps: list[LiveChangeStep]


class EventPublic(BaseModel):
    """A point on a run's timeline: a live config change, a status change, or its target going
    down or coming back."""

    id: int | None = Field(default=None, description="store id; None on a live message not yet stored")
    t: datetime
    elapsed_s: float
    kind: EventKind
    who: str | None = None
    changes: dict[str, Any] = Field(
        description="flat field -> new value; {status, reason}; or for the target {address, restarts, reason | down_s}"
    )


class LiveBase(BaseModel):
    """A live message; its JSON is made once however many viewers it goes to."""

    _text: str | None = PrivateAttr(default=None)

    def text(self) -> str:
        if self._text is None:
            self._text = self.model_dump_json()
        return self._text


class SampleMessage(LiveBase):
    type: Literal["sample"] = "sample"
    sample: Sample
    published_at: float = Field(description="unix seconds when the control plane fanned it out")


class StatusMessage(LiveBase):
    type: Literal["status"] = "status"
    status: RunState
    reason: str | None = None
    event: EventPublic


class ConfigChangeMessage(LiveBase):
    type: Literal["config_change"] = "config_change"
    event: EventPublic
    config: dict[str, Any] | None = Field(default=None, description="the run's config after the change")


class EventMessage(LiveBase):
    """Another point on the run's timeline: its target went down or came back, a worker stalled."""

    type: Literal["event"] = "event"
    event: EventPublic


class PreloadMessage(LiveBase):
    """Progress of the load phase, about twice a second while it runs and once when it is done."""

    type: Literal["preload"] = "preload"
    preload: PreloadStatus


class SummaryMessage(LiveBase):
    type: Literal["summary"] = "summary"
    summary: Summary


class DroppedMessage(LiveBase):
    """Sent to a viewer that fell too far behind, just before the server closes its socket.
    Reconnect to get a fresh snapshot."""

    type: Literal["dropped"] = "dropped"
    reason: str
    backlog: int


LiveUpdate = (
    SampleMessage
    | StatusMessage
    | ConfigChangeMessage
    | EventMessage
    | PreloadMessage
    | SummaryMessage
    | DroppedMessage
)
LiveUpdateMessage = Annotated[LiveUpdate, Field(discriminator="type")]
