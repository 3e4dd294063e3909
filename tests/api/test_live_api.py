"""WS /api/runs/{id}/live and GET /metrics on a real run."""

from __future__ import annotations

from itertools import accumulate
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter
from starlette.websockets import WebSocketDisconnect

from spanload.api.schemas.live import LiveMessage
from spanload.model import metrics as hdr
from spanload.model.builtin_convert import as_definition
from spanload.model.presets import get_preset
from tests.api.conftest import key, of_run, scrape, start_run, wait_run
from tests.helpers import wait_for

MESSAGES: TypeAdapter[Any] = TypeAdapter(LiveMessage)


def test_live_socket_sends_snapshot_then_samples_status_and_config_changes(client: TestClient) -> None:
    run = start_run(client, preset="light", name="live")
    run_id = run["id"]
    wait_run(client, run_id, lambda r: r["status"] == "running" and r["sample_count"] >= 2, "2 samples")
    with client.websocket_connect(f"/api/runs/{run_id}/live") as ws:
        snapshot = MESSAGES.validate_python(ws.receive_json())
        assert snapshot.type == "snapshot"
        assert snapshot.run.id == run_id and snapshot.run.status == "running"
        assert snapshot.total_samples >= 2 and len(snapshot.samples) == snapshot.total_samples
        assert [e.changes["status"] for e in snapshot.events][:2] == ["starting", "running"]
        last_seq = snapshot.samples[-1].seq

        live_seqs: list[int] = []
        while len(live_seqs) < 2:
            message = MESSAGES.validate_python(ws.receive_json())
            if message.type == "sample":
                live_seqs.append(message.sample.seq)
        assert live_seqs[0] == last_seq + 1 and live_seqs[1] == last_seq + 2  # nothing lost or repeated

        patched = client.patch(f"/api/runs/{run_id}/config", json={"watcher": {"poll_interval_ms": 500}})
        assert patched.status_code == 200, patched.text
        change = next(m for m in iter(lambda: MESSAGES.validate_python(ws.receive_json()), None) if m.type != "sample")
        assert change.type == "config_change"
        assert change.event.kind == "config_change" and change.event.changes == {"knobs.poll_interval": 500}
        assert change.config["knobs"]["poll_interval"] == 500  # the change watcher definition's knob

        assert client.get("/metrics").headers["content-type"].startswith("text/plain")
        stored_before = len(client.get(f"/api/runs/{run_id}/export").json()["samples"])
        metrics = scrape(client)
        assert of_run(metrics["spanload_run_info"], run_id) == {key(name="live", state="running"): 1.0}
        light = as_definition(get_preset("light").config).knob_values()["transactions_per_second"]
        assert of_run(metrics["spanload_operation_target_per_second"], run_id)[key(operation="updater.txn")] == light
        # a running run's count is its samples' so far: those stored before the scrape, and maybe more
        # (the store writes behind /metrics: wait until the stored ones reach the count, then compare)
        count = of_run(metrics["spanload_operation_latency_seconds_count"], run_id)[key(operation="updater.txn")]

        def counts_so_far() -> list[int] | None:
            stored = client.get(f"/api/runs/{run_id}/export").json()["samples"]
            histograms = ([s["hdr"]["updater.txn"]] if "updater.txn" in s["hdr"] else [] for s in stored)
            so_far = list(accumulate(hdr.merge(h).get_total_count() for h in histograms))
            return so_far if so_far and so_far[-1] >= count else None

        so_far = wait_for(counts_so_far, 30, f"the stored samples to count {count} transactions")
        assert count in so_far[stored_before - 1 :], (count, stored_before, so_far)
        assert metrics["spanload_live_viewers"] == {(): 1.0}

        client.post(f"/api/runs/{run_id}/stop")
        kinds = []
        while "summary" not in kinds or not any(k == "status:finished" for k in kinds):
            message = MESSAGES.validate_python(ws.receive_json())
            kinds.append(f"status:{message.status}" if message.type == "status" else message.type)
        assert kinds.index("status:stopping") < kinds.index("summary") < kinds.index("status:finished")


def test_live_socket_of_a_finished_run_gives_its_whole_history(client: TestClient) -> None:
    run = start_run(client, overrides={"duration_s": 2})
    done = wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 2 s run to finish")
    with client.websocket_connect(f"/api/runs/{run['id']}/live?max_points=2") as ws:
        snapshot = MESSAGES.validate_python(ws.receive_json())
    assert snapshot.run.status == "finished" and snapshot.run.summary is not None
    assert snapshot.run.summary.model_dump(mode="json") == done["summary"]
    assert snapshot.total_samples == done["sample_count"]
    assert len(snapshot.samples) <= 2 and snapshot.downsampled == (done["sample_count"] > 2)


def test_live_socket_of_an_unknown_run_is_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect("/api/runs/nope/live") as ws:
        ws.receive_json()
    assert refused.value.code == 4404
    assert (
        refused.value.reason == "There is no run 'nope' on this server: it was never started here, or it was deleted."
    )


def test_live_message_schema_is_served(client: TestClient) -> None:
    schema = client.get("/api/live/schema").json()
    assert set(schema["discriminator"]["mapping"]) == {
        "snapshot",
        "sample",
        "status",
        "config_change",
        "event",
        "preload",
        "summary",
        "dropped",
    }
