"""GET /api/compare on two real runs that differ in write rate and worker runtime."""

from __future__ import annotations

import math

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run


def test_compare_two_runs_configs_diff_series_and_deltas(client: TestClient) -> None:
    base = start_run(client, preset="very-light", overrides={"duration_s": 3})
    other = start_run(client, preset="light", overrides={"duration_s": 3, "runtime": "go"})
    for run in (base, other):
        wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 3 s run to finish")
    response = client.get("/api/compare", params={"ids": f"{base['id']},{other['id']}"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [r["id"] for r in body["runs"]] == [base["id"], other["id"]]
    diff = {d["field"]: d["values"] for d in body["config_diff"]}
    assert diff["knobs.transactions_per_second"] == [1.0, 5.0]  # the change watcher definition's knob
    assert diff["preset"] == ["very-light", "light"]
    assert diff["runtime"] == ["python", "go"]
    assert "report_interval_s" not in diff  # equal fields are left out

    series = body["series"]
    # one point a report interval (1 s) up to the longer run's last sample
    ends = [client.get(f"/api/runs/{run['id']}/samples").json()["data"][-1]["elapsed_s"] for run in (base, other)]
    assert series["elapsed_s"] == [float(k) for k in range(1, math.ceil(round(max(ends), 9)) + 1)], (series, ends)
    for run_series in series["runs"]:
        for values in run_series["values"].values():
            assert len(values) == len(series["elapsed_s"])
    assert [r["run_id"] for r in series["runs"]] == [base["id"], other["id"]]

    metrics = {m["metric"]: m for m in body["metrics"]}
    tx = metrics["totals.transactions"]
    stored = [client.get(f"/api/runs/{run['id']}").json()["summary"] for run in (base, other)]
    base_tx, other_tx = (s["totals"]["transactions"] for s in stored)
    assert tx["values"] == [base_tx, other_tx]
    assert tx["better"] == "higher"
    assert tx["delta"] == [0.0, other_tx - base_tx]
    # a 1 tx/s run of 3 s commits nothing about 5 % of the time: then there is no percent change, not a crash
    expected_percent = None if base_tx == 0 else pytest.approx(100.0 * (other_tx - base_tx) / base_tx)
    assert tx["percent_change"] == [None if base_tx == 0 else 0.0, expected_percent]
    assert metrics["latency.updater.txn.p99"]["better"] == "lower"
    assert [s["totals"]["transactions"] for s in body["summaries"]] == [base_tx, other_tx]


@pytest.mark.parametrize(
    ("ids", "status", "detail"),
    [
        ("", 422, "ids must name 2 to 6 runs, comma-separated (got 0)"),
        ("a", 422, "ids must name 2 to 6 runs, comma-separated (got 1)"),
        ("a,b,c,d,e,f,g", 422, "ids must name 2 to 6 runs, comma-separated (got 7)"),
        ("a,a", 422, "ids must not repeat a run"),
        ("nope1,nope2", 404, "runs not found: nope1, nope2"),
    ],
)
def test_compare_rejects_bad_ids(client: TestClient, ids: str, status: int, detail: str) -> None:
    response = client.get("/api/compare", params={"ids": ids})
    assert (response.status_code, response.json()["detail"]) == (status, detail)


def test_compare_tells_a_real_difference_from_noise(client: TestClient) -> None:
    """Issue 23: two runs of one config differ only by noise (not significant, with an interval), a
    run at four times the rate differs beyond it. Real runs, the official client, the local Spanner."""
    body = {"preset": "light", "overrides": {"duration_s": 12}}
    faster_body = {"preset": "light", "overrides": {"duration_s": 12, "updater": {"transactions_per_second": 20}}}
    runs = []
    for request in (body, body, faster_body):  # one after the other: three at once starved one of
        run = start_run(client, **request)  # the same config's runs (6.36 against 3.96 tx/s, "significant")
        wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 12 s run to finish")
        runs.append(run)
    base, same, faster = runs
    response = client.get("/api/compare", params={"ids": f"{base['id']},{same['id']},{faster['id']}"})
    assert response.status_code == 200, response.text
    compared = response.json()
    # the change watcher's comparison opens with its poll at the server and at the client
    keys = [k["metric"] for k in compared["key_metrics"]]
    assert keys[:2] == ["latency.watcher.poll_server.p50", "latency.watcher.poll.p50"], keys
    assert "rates.server.poll_avg_latency_s" in keys  # n/a in 12 s runs, and it says why
    poll_sys = next(m for m in compared["metrics"] if m["metric"] == "rates.server.poll_avg_latency_s")
    assert poll_sys["values"] == [None] * 3
    assert poll_sys["unavailable"] == ["no complete minute inside the run yet"] * 3
    tps = next(m for m in compared["metrics"] if m["metric"] == "rates.updater.tps")
    assert tps["significant"][0] is None and tps["uncertainty"][0] is None  # the baseline is not judged
    assert tps["significant"][1] is False, tps
    assert abs(tps["delta"][1]) <= tps["uncertainty"][1]
    assert tps["significant"][2] is True and tps["delta"][2] > tps["uncertainty"][2] > 0, tps
