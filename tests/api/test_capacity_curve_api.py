"""GET /api/runs/{id}/capacity-curve and the export's curve: a capacity search's steps as points
of latency against throughput, while it runs (from its timeline) and once it is over."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run
from tests.helpers import wait_for


def test_the_curve_grows_step_by_step_and_the_export_carries_it(client: TestClient) -> None:
    # Only the latency condition, and one no step can reach: this test is about the curve, not the
    # judging (tests/engine/test_capacity_*.py). The default achieved >= 90 % broke a 1 s step of 4/s
    # on a loaded machine (one clean-clone run ended at [2.0]).
    search = {
        "start_rate": 2,
        "step": 2,
        "max_rate": 6,
        "min_step_s": 1,
        "max_step_s": 1,
        "latency_ms": 10_000,
        "achieved_pct": None,
        "errors_pct": None,
    }
    run = start_run(client, overrides={"capacity": search, "watcher": {"enabled": False}, "duration_s": None})
    path = f"/api/runs/{run['id']}/capacity-curve"

    def first_point() -> dict[str, object] | None:
        response = client.get(path)
        return response.json() if response.status_code == 200 else None

    live = wait_for(first_point, 60, "the first step to be judged", every_s=0.2)
    assert live["limited_by"] is None and [p["rate"] for p in live["points"]][:1] == [2]  # type: ignore[index]
    wait_run(client, run["id"], lambda r: r["status"] == "finished", "the search to end the run")
    final = client.get(path).json()
    assert [p["rate"] for p in final["points"]] == [2, 4, 6]
    assert (final["knee"], final["limited_by"]) == (6, "max_rate")
    assert [p["knee"] for p in final["points"]] == [False, False, True]
    steps = client.get(f"/api/runs/{run['id']}").json()["summary"]["capacity"]["steps"]
    assert [p["achieved"] for p in final["points"]] == [s["achieved"] for s in steps]
    exported = json.loads(client.get(f"/api/runs/{run['id']}/export").text)
    assert exported["capacity_curve"] == final
    plain = start_run(client, overrides={"watcher": {"enabled": False}})
    missing = client.get(f"/api/runs/{plain['id']}/capacity-curve")
    assert missing.status_code == 404 and "has no capacity search" in missing.text
    client.post(f"/api/runs/{plain['id']}/stop")
