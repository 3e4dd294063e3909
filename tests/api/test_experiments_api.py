"""GET /api/experiments (issue 23's Experiments page): each seed report's variants in the order they
run, the figures the report measured, and the overrides that put every variant on the experiment's
one database of this server's target."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_hint_experiment_lists_its_variants_on_one_database_of_this_servers_target(client: TestClient) -> None:
    answer = client.get("/api/experiments")
    assert answer.status_code == 200, answer.text
    experiments = {e["name"]: e for e in answer.json()}
    assert set(experiments) == {"hint", "session-pool", "change-streams", "two-pc", "tpcc", "pg"}
    streams = experiments["change-streams"]
    assert [v["preset"] for v in streams["variants"]] == ["light-poll", "light-change-stream"]
    assert streams["overrides"]["target"] == {"kind": "local", "database": "spanload-exp-change-streams"}
    hint = experiments["hint"]
    assert [v["preset"] for v in hint["variants"]] == ["medium", "medium-no-hint", "medium-not-null"]
    assert hint["figures"][0] == {"metric": "watcher.poll_server.p50_ms", "label": "poll at the server p50 ms"}
    # the serve's default target (local), with the experiment's database: one database for every variant
    assert hint["overrides"]["target"] == {"kind": "local", "database": "spanload-exp-hint"}
    assert (hint["duration_s"], hint["preload_rows"]) == (60, 100_000)
    # GoogleSQL and PostgreSQL need a database each: pg's variants keep their presets' databases
    assert experiments["pg"]["overrides"]["target"] == {"kind": "local"}
    # the overrides are a run request the API reads: a bad length in them is refused, naming its field
    body = {"preset": "medium-no-hint", "overrides": {**hint["overrides"], "duration_s": -1}}
    refused = client.post("/api/runs", json=body)
    assert refused.status_code == 422 and "duration_s" in refused.text, refused.text
