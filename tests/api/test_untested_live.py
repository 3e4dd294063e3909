"""Issue 30's "untested" list, the claims about what workers do, on one short real run (Python
workers, the official client, the local Spanner): the export of a running run; a patch sent while
paused, which the workers apply when they resume; throughput that returns after the resume."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run


def _samples(client: TestClient, run_id: str) -> list[dict[str, Any]]:
    body = client.get(f"/api/runs/{run_id}/samples").json()
    assert not body["downsampled"]
    data: list[dict[str, Any]] = body["data"]
    return data


def _after(client: TestClient, run_id: str, seq: int, count: int) -> list[dict[str, Any]]:
    """The run's samples with ``seq`` above ``seq``, once there are ``count`` of them."""

    def enough(run: dict[str, Any]) -> bool:
        return bool(run["status"] in ("running", "paused") and run["sample_count"] > seq + count)

    wait_run(client, run_id, enough, f"{count} samples after #{seq}")
    return [s for s in _samples(client, run_id) if s["seq"] > seq]


def test_export_while_running_then_a_patch_while_paused_applies_at_resume_and_load_returns(
    client: TestClient,
) -> None:
    overrides = {"duration_s": 120, "reader": {"enabled": True, "reads_per_second": 2}}
    run_id = start_run(client, preset="light", overrides=overrides)["id"]
    wait_run(client, run_id, lambda r: r["status"] == "running" and r["sample_count"] >= 2, "2 samples")

    # -- the export of a running run: the samples so far, in order, and no summary yet
    exported = client.get(f"/api/runs/{run_id}/export", params={"format": "json"})
    assert exported.status_code == 200, exported.text
    document = exported.json()
    assert document["run"]["status"] == "running" and document["run"]["summary"] is None
    seqs = [s["seq"] for s in document["samples"]]
    assert len(seqs) >= 2 and seqs == list(range(len(seqs)))
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/runs/{run_id}/export", params={"format": "csv"}).text)))
    assert [int(r["seq [index]"]) for r in rows[: len(seqs)]] == seqs  # the CSV holds at least those

    # -- pause; the patch while paused is accepted and kept
    assert client.post(f"/api/runs/{run_id}/pause").status_code == 200
    paused_at = _samples(client, run_id)[-1]["seq"]
    patch = {"updater": {"transactions_per_second": 8}, "reader": {"reads_per_second": 3}}
    patched = client.patch(f"/api/runs/{run_id}/config", json=patch)
    assert patched.status_code == 200, patched.text
    assert client.get(f"/api/runs/{run_id}").json()["status"] == "paused"
    # the first interval after the pause may hold work from before it; the next two hold none
    straddling, *during = _after(client, run_id, paused_at, 3)[:3]
    held = [(s["totals"]["transactions"], s["totals"]["reads"]) for s in (straddling, *during)]
    assert held == [held[0]] * 3, held  # totals are cumulative: nothing committed or read while paused
    assert [(s["gauges"]["updater.target_tps"], s["gauges"]["reader.target_rps"]) for s in during] == [(0.0, 0.0)] * 2

    # -- resume: the workers run at the patched rates, and commit and read again
    assert client.post(f"/api/runs/{run_id}/resume").status_code == 200
    resumed_at = _samples(client, run_id)[-1]["seq"]
    after = _after(client, run_id, resumed_at + 1, 3)[:3]  # whole intervals after the resume
    targets = [(s["gauges"]["updater.target_tps"], s["gauges"]["reader.target_rps"]) for s in after]
    assert targets == [(8.0, 3.0)] * 3
    transactions, reads = (after[-1]["totals"][k] for k in ("transactions", "reads"))
    assert transactions > held[0][0] and reads > held[0][1], (transactions, reads, held[0])

    stopped = client.post(f"/api/runs/{run_id}/stop")
    assert stopped.status_code == 200, stopped.text
    wait_run(client, run_id, lambda r: r["status"] == "finished", "the run to finish")
