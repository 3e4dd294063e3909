"""POST /api/runs/{id}/profile: live edits of a run's load profile through the API."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run


def test_a_profile_is_skipped_extended_and_abandoned_through_the_api(client: TestClient) -> None:
    stages = [{"kind": "hold", "rate": 2, "duration_s": 600}, {"kind": "hold", "rate": 4, "duration_s": 600}]
    run = start_run(client, overrides={"profile": {"stages": stages}, "watcher": {"enabled": False}})
    run_id = run["id"]
    wait_run(client, run_id, lambda r: r["status"] == "running", "the run to be running")
    path = f"/api/runs/{run_id}/profile"
    assert client.post(path, json={"action": "extend"}).status_code == 422  # extend says how long
    extended = client.post(path, json={"action": "extend", "seconds": 30})
    assert extended.status_code == 200, extended.text
    assert extended.json()["total_s"] == 1230
    skipped = client.post(path, json={"action": "skip"}).json()
    assert (skipped["stage"], skipped["rate"]) == (1, 4)
    abandoned = client.post(path, json={"action": "abandon"}).json()
    assert abandoned["abandoned"] and abandoned["stage"] is None
    over = client.post(path, json={"action": "skip"})
    assert over.status_code == 409 and "profile is over" in over.text
    config = client.get(f"/api/runs/{run_id}").json()["current_config"]
    # the profile's patches are the run's config: light's updater is change_watcher.yaml's write
    assert config["operations"]["write"]["rate"] == 4
    client.post(f"/api/runs/{run_id}/stop")
    plain = start_run(client, overrides={"watcher": {"enabled": False}})
    wait_run(client, plain["id"], lambda r: r["status"] == "running", "the plain run to be running")
    refused = client.post(f"/api/runs/{plain['id']}/profile", json={"action": "skip"})
    assert refused.status_code == 409 and "follows no profile" in refused.text
    client.post(f"/api/runs/{plain['id']}/stop")
