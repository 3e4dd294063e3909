"""GET /api/health shows the PGAdapters the runs of the pgadapter interface started (issue 24): "not
running" when no run needs one, else each one's supervised state, as the local Spanner's."""

from __future__ import annotations

from types import SimpleNamespace

from fastapi.testclient import TestClient

from spanload.engine import pgadapter_run
from spanload.spanner.local_server import ServerState


def test_health_says_not_running_then_shows_a_runs_pgadapter(client: TestClient) -> None:
    body = client.get("/api/health").json()
    assert body["pgadapter"] == {"status": "not running", "servers": []}
    server = SimpleNamespace(
        address="127.0.0.1:5433",
        state=ServerState.RESTARTING,
        version="0.53.1",
        pid=4321,
        restarts=2,
        last_exit="killed by signal 9",
    )
    pgadapter_run.register("run-pg", server)  # type: ignore[arg-type]
    try:
        body = client.get("/api/health").json()
    finally:
        pgadapter_run.unregister("run-pg")
    assert body["pgadapter"] == {
        "status": "running",
        "servers": [
            {
                "run_id": "run-pg",
                "address": "127.0.0.1:5433",
                "state": "restarting",
                "version": "0.53.1",
                "pid": 4321,
                "restarts": 2,
                "last_exit": "killed by signal 9",
            }
        ],
    }
    assert client.get("/api/health").json()["pgadapter"]["status"] == "not running"
