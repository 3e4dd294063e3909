"""The runs resource over REST, against the real Supervisor, worker processes and local Spanner."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run


def _has_samples(n: int) -> Any:
    return lambda run: run["sample_count"] >= n


def test_run_lifecycle_create_change_pause_stop_export_delete(client: TestClient) -> None:
    run = start_run(client, preset="light", name="lifecycle", tags=["api"], notes="first")
    run_id = run["id"]
    assert run["preset"] == "light" and run["name"] == "lifecycle"
    assert run["tags"] == ["api"] and run["notes"] == "first"
    # the light preset runs the change watcher definition: the updater's rate is its knob
    assert run["config"]["knobs"]["transactions_per_second"] == 5.0
    assert run["status"] in ("starting", "running")

    # the headline's rate is the latest interval's: none for an interval without a commit (5 tx/s on a
    # loaded machine can have one), so wait for one that had some
    def committing(r: dict[str, Any]) -> bool:
        return r["status"] == "running" and r["sample_count"] >= 2 and r["headline"]["achieved_tps"] is not None

    run = wait_run(client, run_id, committing, "2 samples, the latest with commits")
    assert run["started_at"] is not None

    changed = client.patch(f"/api/runs/{run_id}/config", json={"updater": {"transactions_per_second": 20}})
    assert changed.status_code == 200, changed.text
    assert changed.json()["current_config"]["knobs"]["transactions_per_second"] == 20.0
    assert changed.json()["config"]["knobs"]["transactions_per_second"] == 5.0

    paused = client.post(f"/api/runs/{run_id}/pause")
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    assert client.post(f"/api/runs/{run_id}/pause").status_code == 409
    resumed = client.post(f"/api/runs/{run_id}/resume")
    assert resumed.status_code == 200 and resumed.json()["status"] == "running"

    renamed = client.patch(f"/api/runs/{run_id}", json={"name": "renamed", "notes": "n2", "tags": ["x", "y"]})
    assert renamed.status_code == 200
    assert (renamed.json()["name"], renamed.json()["notes"], renamed.json()["tags"]) == ("renamed", "n2", ["x", "y"])

    assert client.delete(f"/api/runs/{run_id}").status_code == 409  # still going

    count = client.get(f"/api/runs/{run_id}").json()["sample_count"]
    wait_run(client, run_id, _has_samples(count + 2), "2 more samples after the change")
    stopped = client.post(f"/api/runs/{run_id}/stop")
    assert stopped.status_code == 200, stopped.text
    final = stopped.json()
    assert final["status"] == "finished" and final["ended_at"] is not None
    assert final["summary"] is not None and final["summary"]["totals"]["transactions"] > 0
    assert client.post(f"/api/runs/{run_id}/stop").status_code == 409
    late = client.patch(f"/api/runs/{run_id}/config", json={"updater": {"transactions_per_second": 2}})
    assert late.status_code == 409 and "finished" in late.json()["detail"]

    events = client.get(f"/api/runs/{run_id}/export").json()["events"]
    changes = [e for e in events if e["kind"] == "config_change"]
    assert len(changes) == 1
    assert changes[0]["changes"] == {"knobs.transactions_per_second": 20.0}
    assert changes[0]["who"].startswith("api")
    statuses = [e["changes"]["status"] for e in events if e["kind"] == "status"]
    assert statuses[0] == "starting" and statuses[-1] == "finished" and "paused" in statuses

    samples = client.get(f"/api/runs/{run_id}/samples").json()
    assert samples["total"] == final["sample_count"] == samples["count"] and not samples["downsampled"]
    seqs = [s["seq"] for s in samples["data"]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert all(s["hdr"] == {} for s in samples["data"])
    few = client.get(f"/api/runs/{run_id}/samples", params={"max_points": 2}).json()
    assert few["count"] <= 2 and few["downsampled"] and few["total"] == samples["total"]
    window = client.get(f"/api/runs/{run_id}/samples", params={"from": 2, "to": 3}).json()
    in_window = [s["seq"] for s in samples["data"] if 2 <= s["elapsed_s"] <= 3]
    assert in_window, f"no sample between 2 s and 3 s: {[s['elapsed_s'] for s in samples['data']]}"
    assert [s["seq"] for s in window["data"]] == in_window

    exported = client.get(f"/api/runs/{run_id}/export", params={"format": "json"})
    assert exported.headers["content-type"].startswith("application/json")
    body = exported.json()
    assert body["run"]["id"] == run_id and len(body["samples"]) == final["sample_count"]
    assert body["hdr_rollups"] and all(body["hdr_rollups"][0]["hdr"].values())
    table = list(csv.reader(io.StringIO(client.get(f"/api/runs/{run_id}/export", params={"format": "csv"}).text)))
    assert table[0][:4] == ["seq [index]", "t [unix s]", "elapsed [ms]", "interval [ms]"]
    assert "gauges.updater.tps [/s]" in table[0]
    assert len(table) == 1 + final["sample_count"]

    assert client.delete(f"/api/runs/{run_id}").status_code == 204
    assert client.get(f"/api/runs/{run_id}").status_code == 404
    assert client.get(f"/api/runs/{run_id}/samples").status_code == 404


def test_list_filters_and_pagination(client: TestClient) -> None:
    first = start_run(client, name="filter-me one", overrides={"duration_s": 1})
    second = start_run(client, name="filter-me two", overrides={"duration_s": 1})
    for run in (first, second):
        wait_run(client, run["id"], lambda r: r["status"] in ("finished", "failed"), "the run to end")
    page = client.get("/api/runs", params={"name": "FILTER-ME", "limit": 1}).json()
    assert page["count"] == 2 and [r["id"] for r in page["data"]] == [second["id"]]
    page = client.get("/api/runs", params={"name": "filter-me", "limit": 1, "offset": 1}).json()
    assert [r["id"] for r in page["data"]] == [first["id"]]
    finished = client.get("/api/runs", params={"status": "finished", "preset": "very-light", "limit": 500}).json()
    assert {first["id"], second["id"]} <= {r["id"] for r in finished["data"]}
    assert client.get("/api/runs", params={"status": "running", "name": "filter-me"}).json()["count"] == 0


def test_presets_and_starting_from_a_whole_config(client: TestClient) -> None:
    presets = client.get("/api/presets").json()
    names = [p["name"] for p in presets]
    assert {"very-light", "light", "medium", "high", "very-high"} <= set(names)
    assert next(p for p in presets if p["name"] == "light")["config"]["knobs"]["transactions_per_second"] == 5.0
    config = next(p for p in presets if p["name"] == "very-light")["config"]
    config |= {"duration_s": 1, "name": "from a config", "preset": None}
    config["target"]["database"] = "api-whole-config"
    response = client.post("/api/runs", json={"config": config})
    assert response.status_code == 201, response.text
    run = response.json()
    assert run["name"] == "from a config" and run["preset"] is None
    wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 1 s run to finish")
