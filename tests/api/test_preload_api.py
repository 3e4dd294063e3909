"""The load phase through the API: a bad row count is a 422 naming the field, and a run that preloads
is `preloading` with its progress on the live websocket (snapshot and messages) before it runs."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from spanload.api.schemas.live import LiveMessage
from tests.api.conftest import start_run, wait_run

MESSAGES: TypeAdapter[Any] = TypeAdapter(LiveMessage)
ROWS = 60_000


def test_a_negative_or_huge_preload_is_a_422_naming_the_field(client: TestClient) -> None:
    before = client.get("/api/runs").json()["count"]
    for rows, words in ((-1, "greater than or equal to 0"), (2_000_000_000, "less than or equal to 1000000000")):
        response = client.post("/api/runs", json={"preset": "light", "overrides": {"preload": {"rows": rows}}})
        assert response.status_code == 422, response.text
        detail = str(response.json()["detail"])
        assert "preload.rows" in detail and words in detail, detail
    response = client.patch("/api/runs/none/config", json={"preload": {"rows": 5}})
    assert response.status_code == 422 and "preload" in str(response.json()["detail"])
    assert client.get("/api/runs").json()["count"] == before


def test_preload_progress_reaches_the_live_socket_then_the_run_runs(client: TestClient) -> None:
    run = start_run(client, preset="very-light", overrides={"preload": {"rows": ROWS}, "processes": 1})
    run_id = run["id"]
    wait_run(client, run_id, lambda r: r["status"] in ("preloading", "running"), "the load phase")
    seen: list[Any] = []
    with client.websocket_connect(f"/api/runs/{run_id}/live") as ws:
        snapshot = MESSAGES.validate_python(ws.receive_json())
        statuses = [e.changes.get("status") for e in snapshot.events if e.kind == "status"]
        assert statuses[:2] == ["starting", "preloading"], statuses
        while True:
            message = MESSAGES.validate_python(ws.receive_json())
            seen.append(message)
            if message.type == "status" and message.status == "running":
                break
    progress = [m.preload for m in seen if m.type == "preload"]
    if snapshot.preload is not None:  # none yet when the socket came before the first progress
        progress.insert(0, snapshot.preload)
    assert progress, [m.type for m in seen]
    assert progress[-1].done and progress[-1].rows_done == ROWS and progress[-1].percent == 100.0
    assert all(p.rows == ROWS for p in progress)
    assert [p.rows_done for p in progress] == sorted(p.rows_done for p in progress)
    events = [m.event for m in seen if m.type == "event"]
    finished = [e for e in events if e.kind == "preload_finished"]
    assert len(finished) == 1 and finished[0].changes["loaded"] == ROWS
    assert client.get(f"/api/runs/{run_id}").json()["status"] == "running"
    client.post(f"/api/runs/{run_id}/stop")
    done = wait_run(client, run_id, lambda r: r["status"] == "finished", "the stop")
    assert done["summary"]["totals"]["mutations"] < ROWS  # the load phase is not in the measured figures
