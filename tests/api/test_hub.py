"""The hub: samples are stored as they arrive and fanned out; a slow viewer is dropped with a notice
while the others, and the store, get everything."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from spanload.control.hub import VIEWER_BACKLOG_MAX, Hub
from spanload.main import create_app
from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.live import DroppedMessage, EventMessage, SampleMessage
from spanload.model.samples import Sample
from spanload.model.state import RunState
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from spanload.store.writer import StoreWriter
from tests.api.conftest import local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine

BACKLOG = 8
SAMPLES = 50


def test_slow_viewer_is_dropped_with_a_notice_and_others_get_everything(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'hub.db'}"
    upgrade_to_head(url)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with sessions() as s:
        run_store.create_run(s, "r1", RunConfig())

    async def scenario() -> tuple[list[int], list[object], int]:
        writer = StoreWriter(sessions)
        hub = Hub(writer, viewer_backlog=BACKLOG)
        hub.on_state("r1", RunState.RUNNING, None)
        fast, slow = hub.subscribe("r1"), hub.subscribe("r1")
        received: list[int] = []

        async def drain() -> None:
            while True:
                message = await fast.queue.get()
                if isinstance(message, SampleMessage):
                    received.append(message.sample.seq)
                    if message.sample.seq == SAMPLES - 1:
                        return

        reader = asyncio.create_task(drain())
        for seq in range(SAMPLES):  # the slow viewer never reads
            hub.on_sample("r1", Sample(seq=seq, t=1000.0 + seq, elapsed_s=seq + 1.0, interval_s=1.0))
            await asyncio.sleep(0)
        await reader
        slow_messages = [slow.queue.get_nowait() for _ in range(slow.queue.qsize())]
        viewers_left = hub.viewer_count("r1")
        await hub.flush()
        writer.close()
        return received, slow_messages, viewers_left

    received, slow_messages, viewers_left = asyncio.run(scenario())
    assert received == list(range(SAMPLES))
    assert len(slow_messages) == 1 and isinstance(slow_messages[0], DroppedMessage)
    assert slow_messages[0].backlog == BACKLOG
    assert viewers_left == 1
    with sessions() as s:
        assert [x.seq for x in sample_store.list_samples(s, "r1")] == list(range(SAMPLES))
    engine.dispose()


def test_the_live_socket_closes_a_slow_viewer_with_1013_after_the_notice(tmp_path: Path) -> None:
    """Through the real route and hub: a burst larger than the viewer's backlog, published in one go
    on the socket's event loop (the socket cannot drain in between), drops that viewer: it gets the
    `dropped` notice, then close code 1013 (try again later; 1008 is the token refusal)."""
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        run_id = client.post("/api/runs", json={"preset": "light"}).json()["id"]
        hub: Hub = app.state.hub
        with client.websocket_connect(f"/api/runs/{run_id}/live") as ws:
            assert ws.receive_json()["type"] == "snapshot"
            assert hub.viewer_count(run_id) == 1

            def burst() -> None:
                for seq in range(VIEWER_BACKLOG_MAX + 10):
                    hub.on_sample(run_id, Sample(seq=seq, t=1000.0 + seq, elapsed_s=seq + 1.0, interval_s=1.0))

            ws.portal.call(burst)
            notice = ws.receive_json()
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert notice["type"] == "dropped" and notice["backlog"] == VIEWER_BACKLOG_MAX
        assert closed.value.code == 1013 and closed.value.reason == "viewer too slow"
        assert hub.viewers_dropped == 1 and hub.viewer_count(run_id) == 0
        with client.websocket_connect(f"/api/runs/{run_id}/live") as again:  # a reconnect gets the snapshot
            snapshot = again.receive_json()
        assert snapshot["type"] == "snapshot" and snapshot["total_samples"] == VIEWER_BACKLOG_MAX + 10


def test_a_stalled_worker_event_is_stored_on_the_timeline_and_fanned_out(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'hub.db'}"
    upgrade_to_head(url)
    sessions = make_sessionmaker(make_engine(url))
    with sessions() as s:
        run_store.create_run(s, "r2", RunConfig())
    changes: dict[str, object] = {"worker": 1, "pid": 4242, "silent_s": 3.4}

    async def scenario() -> list[object]:
        writer = StoreWriter(sessions)
        hub = Hub(writer)
        hub.on_state("r2", RunState.RUNNING, None)
        viewer = hub.subscribe("r2")
        hub.on_event("r2", EventKind.STALLED, changes)
        await hub.flush()
        writer.close()
        return [viewer.queue.get_nowait() for _ in range(viewer.queue.qsize())]

    messages = asyncio.run(scenario())
    assert len(messages) == 1 and isinstance(messages[0], EventMessage)
    assert (messages[0].event.kind, messages[0].event.changes) == (EventKind.STALLED, changes)
    with sessions() as s:
        stored = [(e.kind, e.changes) for e in run_store.list_events(s, "r2")]
    assert stored == [("status", {"status": "running"}), ("stalled", changes)]


def test_a_read_after_a_live_status_message_sees_that_status_while_the_store_lags(tmp_path: Path) -> None:
    """Plain GETs do not wait for the store writer; the engine's newest state still wins while the run
    is going, so a client that saw `running` on the socket never reads `preloading` back (CI saw that)."""
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    release = threading.Event()
    with local_client(app) as client:
        run_id = client.post("/api/runs", json={"preset": "light"}).json()["id"]
        hub: Hub = app.state.hub
        client.portal.call(hub.flush)  # type: ignore[union-attr]
        stored = client.get(f"/api/runs/{run_id}").json()["status"]

        def busy(_session: object) -> None:
            release.wait(10)

        hub.writer.submit(busy)  # the writer is busy: nothing new is stored
        try:
            client.portal.call(hub.on_state, run_id, RunState.PRELOADING, None)  # type: ignore[union-attr]
            one = client.get(f"/api/runs/{run_id}").json()["status"]
            listed = {r["id"]: r["status"] for r in client.get("/api/runs").json()["data"]}[run_id]
        finally:
            release.set()
        client.portal.call(hub.flush)  # type: ignore[union-attr]
        client.portal.call(hub.on_state, run_id, RunState.FAILED, "boom")  # type: ignore[union-attr]
        client.portal.call(hub.flush)  # type: ignore[union-attr]
        failed = client.get(f"/api/runs/{run_id}").json()
    assert stored == "running"
    assert (one, listed) == ("preloading", "preloading")
    assert (failed["status"], failed["failure_reason"]) == ("failed", "boom")
