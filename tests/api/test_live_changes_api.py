"""Issue 23: live changes wherever a config is shown. A run changed mid-run says, in its own view,
in the runs list and in compare's config diff, which fields it changed, from what to what and when;
a run left alone says nothing."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.conftest import start_run, wait_run


def test_a_live_change_shows_at_start_and_at_end_in_the_run_the_list_and_compare(client: TestClient) -> None:
    changed = start_run(client, preset="light", overrides={"duration_s": 6})
    wait_run(client, changed["id"], lambda r: r["status"] == "running" and r["sample_count"] >= 2, "2 samples")
    patch = {"updater": {"transactions_per_second": 20}, "watcher": {"poll_interval_ms": 250}}
    assert client.patch(f"/api/runs/{changed['id']}/config", json=patch).status_code == 200
    steady = start_run(client, preset="light", overrides={"duration_s": 6})
    for run in (changed, steady):
        wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 6 s run to finish")

    run = client.get(f"/api/runs/{changed['id']}").json()
    by_field = {c["field"]: c for c in run["live_changes"]}
    # light runs workloads/change_watcher.yaml: the patch's old fields are recorded as the knobs
    # they set, the fields the run's config shows
    assert set(by_field) == {"knobs.transactions_per_second", "knobs.poll_interval"}
    tps = by_field["knobs.transactions_per_second"]
    assert (tps["at_start"], tps["at_end"]) == (5.0, 20.0)
    [step] = tps["steps"]
    assert step["value"] == 20.0 and 1.0 <= step["elapsed_s"] <= 6.0
    assert (by_field["knobs.poll_interval"]["at_start"], by_field["knobs.poll_interval"]["at_end"]) == (
        1000,
        250,
    )
    assert client.get(f"/api/runs/{steady['id']}").json()["live_changes"] == []

    listed = {r["id"]: r for r in client.get("/api/runs", params={"limit": 50}).json()["data"]}
    assert [c["field"] for c in listed[changed["id"]]["live_changes"]] == [
        "knobs.transactions_per_second",
        "knobs.poll_interval",
    ]
    assert listed[steady["id"]]["live_changes"] == []

    compared = client.get("/api/compare", params={"ids": f"{steady['id']},{changed['id']}"}).json()
    diff = {d["field"]: (d["values"], d["at_end"]) for d in compared["config_diff"]}
    # equal at start, so only the live change puts them in the diff
    assert diff["knobs.transactions_per_second"] == ([5.0, 5.0], [5.0, 20.0])
    assert diff["knobs.poll_interval"] == ([1000, 1000], [1000, 250])
    assert [len(r["live_changes"]) for r in compared["runs"]] == [0, 2]


def test_a_live_patch_of_the_updater_rate_reaches_a_builtin_definitions_operation(client: TestClient) -> None:
    """The 2pc-batch-insert preset runs workloads/participants.yaml: the old field a live patch names
    (updater.transactions_per_second, as the live page and scripts send it) sets the knob that paces
    its operation, and the workers' target rate follows."""
    run = start_run(
        client, preset="2pc-batch-insert", overrides={"duration_s": 5, "updater": {"transactions_per_second": 5}}
    )
    assert run["current_config"]["knobs"]["commits_per_second"] == 5
    wait_run(client, run["id"], lambda r: r["status"] == "running" and r["sample_count"] >= 2, "2 samples")
    patched = client.patch(f"/api/runs/{run['id']}/config", json={"updater": {"transactions_per_second": 20}})
    assert patched.status_code == 200, patched.text
    assert patched.json()["current_config"]["knobs"]["commits_per_second"] == 20
    wait_run(client, run["id"], lambda r: r["status"] == "finished", "the 5 s run to finish")
    samples = client.get(f"/api/runs/{run['id']}/export").json()["samples"]
    targets = [s["gauges"]["op.batch_insert.target_ps"] for s in samples if "op.batch_insert.target_ps" in s["gauges"]]
    assert targets[0] == 5 and targets[-1] == 20 and sorted(targets) == targets, targets
