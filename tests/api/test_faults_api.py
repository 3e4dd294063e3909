"""Faults through serve's API: a run whose target does not answer goes FAILED with a reason that
names the address and the gRPC status (issue 18), instead of staying `starting`."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.conftest import wait_run
from tests.helpers import free_port


def test_a_run_against_an_unreachable_emulator_fails_with_the_address_and_status(client: TestClient) -> None:
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    response = client.post(
        "/api/runs",
        json={"preset": "very-light", "overrides": {"target": {"kind": "emulator", "emulator_host": address}}},
    )
    assert response.status_code == 201, response.text
    run_id = response.json()["id"]
    run = wait_run(client, run_id, lambda r: r["status"] == "failed", "the run to fail")
    reason = run["failure_reason"]
    # met by the creation of the built-in definition's schema, before any worker starts
    assert reason.startswith("could not create the schema of workload 'change_watcher': ")
    assert f"the emulator target at {address} did not answer: UNAVAILABLE: " in reason
    assert run["started_at"] is None  # it never ran
    events = client.get(f"/api/runs/{run_id}/export").json()["events"]
    statuses = [e["changes"]["status"] for e in events if e["kind"] == "status"]
    assert statuses == ["starting", "failed"]
