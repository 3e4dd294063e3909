"""One view of a run for every route (issue 27): GET, the list, export and compare show the state the
engine reported last even while the store's writer has not stored it yet, as the live snapshot does.
Export and compare read the stored state alone before, so a run paused a moment ago read "running"
there and "paused" in GET."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient

from spanload.control.hub import Hub
from spanload.model.state import RunState
from tests.api.conftest import start_run, wait_run


def test_every_route_shows_the_engines_newest_state_while_the_store_lags(client: TestClient) -> None:
    baseline = start_run(client, overrides={"duration_s": 1})
    run_id = start_run(client, overrides={"duration_s": 3})["id"]
    wait_run(client, run_id, lambda r: r["status"] == "running", "the run to be running")
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    gate = threading.Event()
    try:
        # The store's writer is held, so what the hub hears next is not stored yet.
        hub.writer.submit(lambda _session: gate.wait(30) and None)
        assert client.portal is not None
        client.portal.call(hub.on_state, run_id, RunState.PAUSED, None)
        compared = client.get("/api/compare", params={"ids": f"{baseline['id']},{run_id}"}).json()
        shown = {
            "get": client.get(f"/api/runs/{run_id}").json()["status"],
            "list": {r["id"]: r for r in client.get("/api/runs").json()["data"]}[run_id]["status"],
            "export": client.get(f"/api/runs/{run_id}/export").json()["run"]["status"],
            "compare": compared["runs"][1]["status"],
        }
    finally:
        gate.set()
    assert shown == {"get": "paused", "list": "paused", "export": "paused", "compare": "paused"}
    wait_run(client, run_id, lambda r: r["status"] in ("finished", "paused"), "the run to settle")
