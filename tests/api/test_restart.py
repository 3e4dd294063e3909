"""Kill `spanload serve` mid-run and start it again: what the run stored is intact, and it is
marked interrupted."""

from __future__ import annotations

import datetime as dt
import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from spanload.store.runs import INTERRUPTED_REASON
from tests.helpers import ServeProcess, alive, children_of, wait_for

RUN_TIMEOUT_S = 120.0


def _kill_tree(pids: set[int]) -> None:
    """The processes serve started (local Spanner, workers) outlive a SIGKILL of serve: end them."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    wait_for(lambda: True if not any(alive(p) for p in pids) else None, 30, "serve's children to exit")


def test_killed_backend_restarts_with_run_interrupted_and_its_data_intact(tmp_path: Path) -> None:
    with ServeProcess(tmp_path) as serve:
        api = httpx.Client(base_url=serve.url, timeout=30)
        created = api.post("/api/runs", json={"preset": "light", "name": "to be killed"})
        assert created.status_code == 201, created.text
        run_id = created.json()["id"]

        def running_with_samples(n: int) -> dict[str, Any] | None:
            run: dict[str, Any] = api.get(f"/api/runs/{run_id}").json()
            assert run["status"] != "failed", run["failure_reason"]
            return run if run["status"] == "running" and run["sample_count"] >= n else None

        wait_for(lambda: running_with_samples(2), RUN_TIMEOUT_S, "2 samples")
        patched = api.patch(f"/api/runs/{run_id}/config", json={"updater": {"transactions_per_second": 8}})
        assert patched.status_code == 200, patched.text
        count = patched.json()["sample_count"]
        wait_for(lambda: running_with_samples(count + 2), RUN_TIMEOUT_S, "2 samples after the change")
        before = api.get(f"/api/runs/{run_id}/samples", params={"max_points": 20000}).json()["data"]

        assert serve.process is not None
        tree = children_of(serve.process.pid)
        tree |= {c for pid in tree for c in children_of(pid)}
        serve.stop(signal.SIGKILL)
        _kill_tree(tree)

    with ServeProcess(tmp_path) as again:
        api = httpx.Client(base_url=again.url, timeout=30)
        run = api.get(f"/api/runs/{run_id}").json()
        after = api.get(f"/api/runs/{run_id}/samples", params={"max_points": 20000}).json()["data"]
        events = api.get(f"/api/runs/{run_id}/export").json()["events"]

    assert run["status"] == "interrupted"
    assert run["failure_reason"] == INTERRUPTED_REASON
    # the run ended where its data ends: its start plus the elapsed time of its last stored sample
    ran_s = (dt.datetime.fromisoformat(run["ended_at"]) - dt.datetime.fromisoformat(run["started_at"])).total_seconds()
    assert ran_s == pytest.approx(max(s["elapsed_s"] for s in after), abs=1e-3)
    assert after[: len(before)] == before  # every sample read before the kill is still there, unchanged
    assert run["sample_count"] == len(after) >= len(before)
    changes = [e["changes"] for e in events if e["kind"] == "config_change"]
    # light is workloads/change_watcher.yaml: the patch is recorded as the knob it set
    assert changes == [{"knobs.transactions_per_second": 8.0}]
    assert run["current_config"]["knobs"]["transactions_per_second"] == 8.0
    assert run["summary"] is not None and run["summary"]["totals"]["transactions"] > 0
    assert [e["changes"]["status"] for e in events if e["kind"] == "status"][-1] == "interrupted"
