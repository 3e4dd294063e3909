"""The live websocket's snapshot, and the union of every message it sends."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from spanload.api.schemas.runs import RunPublic
from spanload.model.events import PreloadStatus
from spanload.model.live import (
    ConfigChangeMessage,
    DroppedMessage,
    EventMessage,
    EventPublic,
    PreloadMessage,
    SampleMessage,
    StatusMessage,
    SummaryMessage,
)
from spanload.model.samples import Sample


class SnapshotMessage(BaseModel):
    """The first message on connect: the run as it is, its events, and its samples so far
    (downsampled, min/max preserving, to at most ``max_points``)."""

    type: Literal["snapshot"] = "snapshot"
    run: RunPublic
    events: list[EventPublic]
    samples: list[Sample]
    total_samples: int
    downsampled: bool
    preload: PreloadStatus | None = Field(
        default=None, description="progress of the load phase, while the run is preloading"
    )


LiveMessage = Annotated[
    SnapshotMessage
    | SampleMessage
    | StatusMessage
    | ConfigChangeMessage
    | EventMessage
    | PreloadMessage
    | SummaryMessage
    | DroppedMessage,
    Field(discriminator="type"),
]
