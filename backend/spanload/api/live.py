"""WS /api/runs/{id}/live: a snapshot on connect, then every sample, status change and config change.

Each viewer drains its own bounded backlog from the hub. A viewer that falls behind is sent a
``dropped`` message and closed; it never slows the run or the other viewers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect, status
from pydantic import TypeAdapter

from spanload.api.deps import HubDep, SessionsDep
from spanload.api.schemas.live import LiveMessage, SnapshotMessage
from spanload.api.schemas.runs import MAX_POINTS, event_public, run_public
from spanload.control.hub import Viewer
from spanload.model.errors import RunNotFound
from spanload.model.live import ConfigChangeMessage, DroppedMessage, EventMessage, SampleMessage, StatusMessage
from spanload.model.series import downsample
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store import summaries

logger = logging.getLogger(__name__)

router = APIRouter(tags=["live"])

WS_RUN_NOT_FOUND = 4404
MAX_CLOSE_REASON_BYTES = 123  # RFC 6455: a close frame's reason fits in 123 bytes
SNAPSHOT_MAX_POINTS = 2000


def _snapshot(sessions: Any, hub: Any, run_id: str, max_points: int) -> SnapshotMessage | None:
    with sessions() as session:
        row = run_store.get_run(session, run_id)
        if row is None:
            return None
        samples = sample_store.list_samples(session, run_id)
        summary = None if row.status.is_active else summaries.summary_of(session, row)
        points = downsample(samples, max_points)
        events = run_store.list_events(session, run_id)
        # The status is read after the events, from the hub (run_public): _stream skips the status
        # messages these events already hold, so a status read before them (the row's, above) could
        # miss a change stored in between and leave the page on "starting" with its controls
        # disabled, the failure once blamed on this fold ("write-rate control stayed disabled").
        return SnapshotMessage(
            run=run_public(row, hub, summary=summary, events=events),
            events=[event_public(e) for e in events],
            samples=points,
            total_samples=len(samples),
            downsampled=len(points) < len(samples),
            preload=hub.preload.get(run_id),
        )


@router.websocket("/runs/{run_id}/live")
async def live(
    websocket: WebSocket,
    run_id: str,
    hub: HubDep,
    sessions: SessionsDep,
    max_points: Annotated[int, Query(ge=2, le=MAX_POINTS)] = SNAPSHOT_MAX_POINTS,
) -> None:
    viewer = hub.subscribe(run_id)
    try:
        await hub.flush()
        snapshot = await asyncio.to_thread(_snapshot, sessions, hub, run_id, max_points)
        if snapshot is None:
            # Accepted, then closed: a browser sees a refused handshake only as 1006, never its reason.
            await websocket.accept()
            sentence = RunNotFound.of(run_id).detail
            fits = len(sentence.encode()) <= MAX_CLOSE_REASON_BYTES
            await websocket.close(
                code=WS_RUN_NOT_FOUND, reason=sentence if fits else "There is no such run on this server."
            )
            return
        await websocket.accept()
        await websocket.send_text(snapshot.model_dump_json())
        await _stream(websocket, viewer, snapshot)
    except WebSocketDisconnect:
        pass
    finally:
        hub.unsubscribe(viewer)


async def _stream(websocket: WebSocket, viewer: Viewer, snapshot: SnapshotMessage) -> None:
    """Send what the hub queues for this viewer, skipping what the snapshot already held, until
    the viewer disconnects or is dropped."""
    last_seq = max((s.seq for s in snapshot.samples), default=-1)
    last_event = max((e.t for e in snapshot.events), default=None)
    receiver = asyncio.create_task(_drain_incoming(websocket))
    try:
        while not receiver.done():
            getter = asyncio.ensure_future(viewer.queue.get())
            done, _ = await asyncio.wait({getter, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                return
            message = getter.result()
            match message:
                case SampleMessage(sample=sample) if sample.seq <= last_seq:
                    continue
                case StatusMessage(event=event) | ConfigChangeMessage(event=event) | EventMessage(event=event) if (
                    last_event is not None and event.t <= last_event
                ):
                    continue
            await websocket.send_text(message.text())
            if isinstance(message, DroppedMessage):
                await websocket.close(code=status.WS_1013_TRY_AGAIN_LATER, reason="viewer too slow")
                return
    finally:
        receiver.cancel()
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect):
            await receiver


async def _drain_incoming(websocket: WebSocket) -> None:
    """Read (and ignore) what the viewer sends, so that a disconnect is noticed at once."""
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return


@router.get("/live/schema", tags=["live"])
def live_message_schema() -> dict[str, Any]:
    """JSON Schema of every message the live websocket sends (discriminated by ``type``)."""
    schema: dict[str, Any] = TypeAdapter(LiveMessage).json_schema()
    return schema
