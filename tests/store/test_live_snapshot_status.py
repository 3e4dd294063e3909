"""The live snapshot's status is never older than the events it holds (issue 27's "write-rate control
stayed disabled for 30 s"). The live socket skips the status messages whose events the snapshot
already holds; a snapshot that read the run's status before its events, while the run started in
between, said "starting" and then skipped the "running" message: the page stayed on "starting", its
controls disabled. The snapshot reads the events first and the engine's newest state after them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from spanload.api import live
from spanload.model.config import RunConfig
from spanload.model.live import EventKind
from spanload.model.state import RunState
from spanload.store import runs as run_store


def test_a_run_that_starts_while_the_snapshot_is_read_is_running_in_it(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    with sessions() as session:
        run_store.create_run(session, "r1", RunConfig(preset="light", name="first"))
        run_store.set_status(session, "r1", RunState.STARTING)
    hub = SimpleNamespace(latest={}, states={"r1": RunState.STARTING}, preload={})
    list_events = run_store.list_events

    def run_starts_meanwhile(session: Session, run_id: str) -> Any:
        # The engine tells the hub, and the store's writer stores it, between the snapshot's reads.
        hub.states[run_id] = RunState.RUNNING
        with sessions() as writer:
            run_store.set_status(writer, run_id, RunState.RUNNING)
        return list_events(session, run_id)

    monkeypatch.setattr(run_store, "list_events", run_starts_meanwhile)
    snapshot = live._snapshot(sessions, hub, "r1", 10)
    assert snapshot is not None
    statuses = [e.changes["status"] for e in snapshot.events if e.kind is EventKind.STATUS]
    assert (snapshot.run.status, statuses[-1]) == (RunState.RUNNING, "running")
