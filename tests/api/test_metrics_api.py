"""GET /metrics on a real run, parsed with prometheus-client's own text parser, against the run's own
figures: its summary, its export's samples and their HdrHistograms."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from spanload.control.run_metrics import LATENCY_BUCKETS_S, US_PER_S, classify
from spanload.model import metrics as hdr
from tests.api.conftest import key, of_run, scrape, start_run, wait_run


def test_metrics_of_a_finished_run_equal_its_summary_and_samples(client: TestClient) -> None:
    run = start_run(client, preset="light", name="prom", overrides={"duration_s": 3})
    done = wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 3 s run to finish")
    run_id, summary = run["id"], done["summary"]
    export: dict[str, Any] = client.get(f"/api/runs/{run_id}/export").json()
    samples = export["samples"]
    assert samples and summary["latency"]["updater.txn"]["count"] > 0
    metrics = scrape(client)

    # a finished run keeps its series for the retention, with its state
    assert of_run(metrics["spanload_run_info"], run_id) == {key(name="prom", state="finished"): 1.0}

    # the commit latency histogram: its count is the summary's, its buckets the samples' HdrHistograms'
    latency = "spanload_operation_latency_seconds"
    op = key(operation="updater.txn")
    assert of_run(metrics[f"{latency}_count"], run_id)[op] == summary["latency"]["updater.txn"]["count"]
    # the run's histograms as stored: the samples' own, or (a finished run's) their rollups
    stored = [s["hdr"] for s in samples] + [r["hdr"] for r in export["hdr_rollups"]]
    merged = hdr.merge(h["updater.txn"] for h in stored if "updater.txn" in h)
    assert merged.get_total_count() == summary["latency"]["updater.txn"]["count"]
    buckets = of_run(metrics[f"{latency}_bucket"], run_id)
    for bound in LATENCY_BUCKETS_S:
        # an independent count: walk the recorded values, keep those whose HDR bucket starts <= bound
        expected = sum(
            item.count_at_value_iterated_to
            for item in merged.get_recorded_iterator()
            if merged.get_lowest_equivalent_value(item.value_iterated_to) <= bound * US_PER_S
        )
        assert buckets[key(operation="updater.txn", le=str(bound))] == expected, bound
    assert buckets[key(operation="updater.txn", le="+Inf")] == summary["latency"]["updater.txn"]["count"]
    mean_s = summary["latency"]["updater.txn"]["mean"] / 1000
    sum_s = of_run(metrics[f"{latency}_sum"], run_id)[op]
    assert abs(sum_s / summary["latency"]["updater.txn"]["count"] - mean_s) <= 0.001 * mean_s
    intended = of_run(metrics["spanload_operation_intended_latency_seconds_count"], run_id)[op]
    assert intended == summary["latency"]["updater.txn_intended"]["count"]
    polls = of_run(metrics[f"{latency}_count"], run_id)[key(operation="watcher.poll")]
    assert polls == summary["latency"]["watcher.poll"]["count"]

    # target against achieved: the latest sample's gauges (no achieved gauge: no success in it, 0/s)
    last = samples[-1]["gauges"]
    assert of_run(metrics["spanload_operation_target_per_second"], run_id)[op] == last["updater.target_tps"]
    assert of_run(metrics["spanload_operation_achieved_per_second"], run_id)[op] == last.get("updater.tps", 0.0)
    sessions = {key(state=s): last[f"sessions.{s}"] for s in ("in_use", "idle", "waiting") if f"sessions.{s}" in last}
    assert of_run(metrics.get("spanload_sessions", {}), run_id) == sessions
    server = {"server.commit_latency_s": "commit_latency_seconds", "server.cpu_fraction": "cpu_ratio"}
    for gauge, family in server.items():
        assert of_run(metrics.get(f"spanload_server_{family}", {}), run_id) == (
            {(): last[gauge]} if gauge in last else {}
        )

    # where the time went: the last sample's breakdown of each operation, in seconds
    parts = {
        key(operation=classify(op)[1], part=p["part"]): p["ms"] / 1000
        for op, breakdown in samples[-1]["breakdown"].items()
        for p in breakdown["parts"]
    }
    assert parts and of_run(metrics["spanload_operation_breakdown_seconds"], run_id) == parts

    # counters since the run began: the summary's totals and errors by code
    for kind in ("transactions", "mutations", "received_changes", "polls", "aborts"):
        assert of_run(metrics[f"spanload_{kind}_total"], run_id) == {(): summary["totals"][kind]}, kind
    errors = of_run(metrics.get("spanload_errors_total", {}), run_id)
    assert errors == {key(code=code): n for code, n in summary["errors_by_code"].items()}

    # the control plane's own health
    assert metrics["spanload_runs"][key(state="finished")] >= 1
    assert metrics["spanload_live_viewers"][()] == 0
    assert metrics["spanload_store_writer_lag_seconds"][()] >= 0
