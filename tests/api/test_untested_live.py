"""Issue 30's "untested" list, the claims about what workers do, on one short real run (Python
workers, the official client, the local Spanner): the export of a running run; a patch sent while
paused, which the workers apply when they resume (in their target gauges and in the reads they run:
the median of per-interval counts over several whole intervals, before the pause and after the
resume); throughput that returns after the resume."""

from __future__ import annotations

import csv
import io
import itertools
from typing import Any

from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run
from tests.engine.test_live_effects import INTERVALS, assert_grew


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


def _reads(samples: list[dict[str, Any]]) -> list[int]:
    """The reads each interval between consecutive samples added (totals are cumulative)."""
    return [b["totals"]["reads"] - a["totals"]["reads"] for a, b in itertools.pairwise(samples)]


def test_export_while_running_then_a_patch_while_paused_applies_at_resume_and_load_returns(
    client: TestClient,
) -> None:
    overrides = {"duration_s": 120, "reader": {"enabled": True, "reads_per_second": 2}}
    run_id = start_run(client, preset="light", overrides=overrides)["id"]
    # INTERVALS + 1 samples: INTERVALS whole intervals of reads before the pause after the first (the start)
    ready = f"{INTERVALS + 1} samples"
    wait_run(client, run_id, lambda r: r["status"] == "running" and r["sample_count"] >= INTERVALS + 1, ready)

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
    before_pause = _samples(client, run_id)  # reported before the pause: whole intervals of the old rates
    assert client.post(f"/api/runs/{run_id}/pause").status_code == 200
    paused_at = _samples(client, run_id)[-1]["seq"]
    patch = {"updater": {"transactions_per_second": 8}, "reader": {"reads_per_second": 20}}  # reads 10x
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
    # sample resumed_at + 1 ends an interval the resume may have landed in; from it on, whole intervals after
    after = _after(client, run_id, resumed_at, INTERVALS + 1)[: INTERVALS + 1]
    targets = [(s["gauges"]["updater.target_tps"], s["gauges"]["reader.target_rps"]) for s in after[1:]]
    assert targets == [(8.0, 20.0)] * INTERVALS
    # ... and in the reads they run: 10x asked, 3x required of the median interval
    assert_grew(_reads(before_pause)[-INTERVALS:], _reads(after), 3, "reads")
    transactions, reads = (after[-1]["totals"][k] for k in ("transactions", "reads"))
    assert transactions > held[0][0] and reads > held[0][1], (transactions, reads, held[0])

    stopped = client.post(f"/api/runs/{run_id}/stop")
    assert stopped.status_code == 200, stopped.text
    wait_run(client, run_id, lambda r: r["status"] == "finished", "the run to finish")
