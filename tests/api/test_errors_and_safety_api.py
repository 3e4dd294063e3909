"""Bad input gets 4xx with {detail}; tokens off loopback; rate bounds for cloud; no credentials."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from spanload.main import create_app
from tests.api.conftest import local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine

NOT_FOUND = "There is no run 'nope' on this server: it was never started here, or it was deleted."


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "says"),
    [
        ("GET", "/api/runs/nope", None, 404, NOT_FOUND),
        ("PATCH", "/api/runs/nope", {"name": "x"}, 404, NOT_FOUND),
        ("DELETE", "/api/runs/nope", None, 404, NOT_FOUND),
        ("PATCH", "/api/runs/nope/config", {"updater": {"transactions_per_second": 2}}, 404, NOT_FOUND),
        ("POST", "/api/runs/nope/stop", None, 404, NOT_FOUND),
        ("GET", "/api/runs/nope/samples", None, 404, NOT_FOUND),
        ("GET", "/api/runs/nope/export", None, 404, NOT_FOUND),
        (
            "GET",
            "/api/runs?limit=0",
            None,
            422,
            "['query', 'limit'], 'msg': 'Input should be greater than or equal to 1'",
        ),
        (
            "GET",
            "/api/runs?limit=501",
            None,
            422,
            "['query', 'limit'], 'msg': 'Input should be less than or equal to 500'",
        ),
        (
            "GET",
            "/api/runs?offset=-1",
            None,
            422,
            "['query', 'offset'], 'msg': 'Input should be greater than or equal to 0'",
        ),
        (
            "GET",
            "/api/runs?status=bogus",
            None,
            422,
            "['query', 'status'], 'msg': \"Input should be 'pending', 'starting'",
        ),
        (
            "POST",
            "/api/runs",
            {"preset": "no-such-preset"},
            422,
            "unknown preset 'no-such-preset'; presets are: very-light,",
        ),
        (
            "POST",
            "/api/runs",
            {"preset": "light", "config": {}},
            422,
            "give either preset (with overrides) or config, not both",
        ),
        (
            "POST",
            "/api/runs",
            {"preset": "light", "overrides": {"updater": {"transactions_per_second": -1}}},
            422,
            "updater.transactions_per_second: Input should be greater than 0",
        ),
        (
            "POST",
            "/api/runs",
            {"overrides": {"watcher": {"watchers": 2, "shard_filter": "none"}}},
            422,
            "watcher.shard_filter 'none' needs watcher.watchers = 1 (got 2)",
        ),
        (
            "POST",
            "/api/runs",
            {"name": "bad\u0000name"},
            422,
            "['body', 'name'], 'msg': 'Value error, must not contain NUL",
        ),
    ],
)
def test_bad_requests_get_4xx_with_detail(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None, status: int, says: str
) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == status, response.text
    assert says in str(response.json()["detail"]), response.text


def test_invalid_combination_names_the_field(client: TestClient) -> None:
    response = client.post("/api/runs", json={"overrides": {"watcher": {"watchers": 2, "shard_filter": "none"}}})
    assert "watcher.shard_filter" in response.json()["detail"]
    assert client.get("/api/runs", params={"name": "shard"}).json()["count"] == 0


def test_unknown_preset_lists_the_known_ones(client: TestClient) -> None:
    detail = client.post("/api/runs", json={"preset": "nope"}).json()["detail"]
    assert "unknown preset 'nope'" in detail and "very-light" in detail


def test_credentials_are_refused_not_stored(client: TestClient) -> None:
    before = client.get("/api/runs").json()["count"]
    response = client.post(
        "/api/runs",
        json={"preset": "light", "overrides": {"target": {"kind": "cloud", "credentials": {"private_key": "k"}}}},
    )
    assert response.status_code == 422 and "credentials" in str(response.json()["detail"])
    assert client.get("/api/runs").json()["count"] == before


def test_cloud_rates_are_bounded_by_max_tps(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, max_tps=100.0))
    with local_client(app) as client:
        cloud = {"kind": "cloud", "project": "p", "instance": "i", "database": "d"}
        response = client.post(
            "/api/runs",
            json={"preset": "light", "overrides": {"target": cloud, "updater": {"transactions_per_second": 1000}}},
        )
        assert response.status_code == 422
        assert (
            "SPANLOAD_MAX_TPS" in response.json()["detail"]
            and "updater.transactions_per_second" in response.json()["detail"]
        )
        response = client.post(
            "/api/runs",
            json={
                "preset": "light",
                "overrides": {"target": cloud, "reader": {"enabled": True, "reads_per_second": 101}},
            },
        )
        assert response.status_code == 422 and "reader.reads_per_second" in response.json()["detail"]
        assert client.get("/api/runs").json()["count"] == 0


def test_a_go_run_without_the_go_worker_is_a_422_saying_to_run_make_install(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-worker"
    app = create_app(make_settings(tmp_path, go_worker_binary=missing))
    with local_client(app) as client:
        response = client.post("/api/runs", json={"preset": "light", "overrides": {"runtime": "go"}})
        assert response.status_code == 422
        assert response.json()["detail"] == (
            "the Go worker is not installed: run make install (it builds spanload-worker-go); "
            f"{missing} is not an executable"
        )
        assert client.get("/api/runs").json()["count"] == 0  # refused, not stored as a failed run


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(make_settings(tmp_path, api_token="s3cret"))
    with local_client(app) as client:
        yield client


def test_token_required_on_rest_and_websocket_when_set(guarded: TestClient) -> None:
    for path in ("/api/runs", "/api/presets", "/api/health", "/metrics"):
        response = guarded.get(path)
        assert response.status_code == 401 and "token" in response.json()["detail"]
        assert guarded.get(path, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert guarded.get(path, headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert guarded.get("/api/runs", params={"token": "s3cret"}).status_code == 200
    with pytest.raises(WebSocketDisconnect) as refused, guarded.websocket_connect("/api/runs/x/live") as ws:
        ws.receive_json()
    assert refused.value.code == 1008
    with (
        pytest.raises(WebSocketDisconnect) as missing,
        guarded.websocket_connect("/api/runs/x/live?token=s3cret") as ws,
    ):
        ws.receive_json()
    assert missing.value.code == 4404  # past the token check: the run does not exist


def test_writes_without_the_token_get_401_and_change_nothing(guarded: TestClient) -> None:
    """POST, PATCH and DELETE are refused before any route runs: no run is created, and a run that
    does not exist is not even looked up (401, not 404)."""
    token = {"Authorization": "Bearer s3cret"}
    attempts = [
        ("POST", "/api/runs", {"preset": "light"}),
        ("PATCH", "/api/runs/x", {"name": "renamed"}),
        ("PATCH", "/api/runs/x/config", {"updater": {"transactions_per_second": 2}}),
        ("POST", "/api/runs/x/stop", None),
        ("DELETE", "/api/runs/x", None),
    ]
    for method, path, body in attempts:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            response = guarded.request(method, path, json=body, headers=headers)
            assert response.status_code == 401 and "token" in response.json()["detail"], (method, path, headers)
    assert guarded.get("/api/runs", headers=token).json()["count"] == 0
    assert guarded.delete("/api/runs/x", headers=token).status_code == 404  # with it, the route runs


def test_runs_without_a_target_go_to_the_configured_default(tmp_path: Path) -> None:
    """docker-compose sets SPANLOAD_DEFAULT_TARGET_KIND=emulator: a run naming no target goes there."""
    app = create_app(
        make_settings(tmp_path, default_target_kind="emulator", default_emulator_host="127.0.0.1:1"),
        engine_factory=LoadlessEngine,
    )
    with local_client(app) as client:
        run = client.post("/api/runs", json={"preset": "light"}).json()
        assert run["config"]["target"] == {
            **run["config"]["target"],
            "kind": "emulator",
            "emulator_host": "127.0.0.1:1",
        }
        named = client.post("/api/runs", json={"preset": "light", "overrides": {"target": {"kind": "local"}}}).json()
        assert named["config"]["target"]["kind"] == "local"


CLOUD = {"kind": "cloud", "project": "p", "instance": "i", "database": "d"}


@pytest.mark.parametrize(
    ("patch", "says"),
    [
        (
            {"watcher": {"watchers": 2, "shard_filter": "none"}},
            "watcher.shard_filter 'none' needs watcher.watchers = 1",
        ),
        ({}, "the patch changes nothing: set at least one field"),
        ({"updater": {}}, "the patch changes nothing: set at least one field"),
        (
            {"updater": {"transactions_per_second": 101}},
            "updater.transactions_per_second = 101 exceeds SPANLOAD_MAX_TPS",
        ),
        (  # a rate is capped where its operation runs: the reader is off in light
            {"reader": {"enabled": True, "reads_per_second": 250}},
            "reader.reads_per_second = 250 exceeds SPANLOAD_MAX_TPS = 100",
        ),
    ],
    ids=["bad combination", "empty patch", "empty section", "cloud write cap", "cloud read cap"],
)
def test_a_refused_config_patch_is_422_and_changes_nothing(tmp_path: Path, patch: dict[str, Any], says: str) -> None:
    """PATCH /config on a running cloud run (no workers: the loadless engine) is checked like a new run."""
    app = create_app(make_settings(tmp_path, max_tps=100.0), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        overrides = {"target": CLOUD, "updater": {"transactions_per_second": 5}}
        run = client.post("/api/runs", json={"preset": "light", "overrides": overrides}).json()
        assert run["status"] == "running", run
        refused = client.patch(f"/api/runs/{run['id']}/config", json=patch)
        assert refused.status_code == 422, refused.text
        assert says in str(refused.json()["detail"]), refused.text
        after = client.get(f"/api/runs/{run['id']}").json()
        assert after["current_config"] == run["current_config"]
        events = client.get(f"/api/runs/{run['id']}/export").json()["events"]
        assert [e for e in events if e["kind"] == "config_change"] == []
        allowed = client.patch(f"/api/runs/{run['id']}/config", json={"updater": {"transactions_per_second": 100}})
        assert (
            allowed.status_code == 200 and allowed.json()["current_config"]["knobs"]["transactions_per_second"] == 100
        )


def test_max_tps_is_read_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPANLOAD_MAX_TPS", "40")
    settings = make_settings(tmp_path)  # no max_tps given: the environment's
    assert settings.max_tps == 40.0
    app = create_app(settings, engine_factory=LoadlessEngine)
    with local_client(app) as client:
        over = {"target": CLOUD, "updater": {"transactions_per_second": 41}}
        refused = client.post("/api/runs", json={"preset": "light", "overrides": over})
        assert refused.status_code == 422
        assert "updater.transactions_per_second = 41 exceeds SPANLOAD_MAX_TPS = 40" in refused.json()["detail"]
        at_cap = {"target": CLOUD, "updater": {"transactions_per_second": 40}, "reader": {"reads_per_second": 40}}
        assert client.post("/api/runs", json={"preset": "light", "overrides": at_cap}).status_code == 201
        # a TPC-C run is paced by tpcc.transactions_per_second (the others' rates are not used)
        tpcc_over = {"target": CLOUD, "tpcc": {"transactions_per_second": 41}}
        refused = client.post("/api/runs", json={"preset": "tpcc-1w", "overrides": tpcc_over})
        assert refused.status_code == 422
        assert "tpcc.transactions_per_second = 41 exceeds SPANLOAD_MAX_TPS = 40" in refused.json()["detail"]
    monkeypatch.setenv("SPANLOAD_MAX_TPS", "not-a-number")
    with pytest.raises(ValueError, match="max_tps"):
        make_settings(tmp_path)


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/api/runs", {"config": {"updater": {"parallelism": 0}}}, "updater.parallelism"),
        ("POST", "/api/runs", {"config": {"updater": {"no_such_knob": 1}}}, "updater.no_such_knob"),
        ("GET", "/api/runs?limit=0", None, "limit"),
    ],
)
def test_fastapis_own_422_names_the_field_as_the_apps_do(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None, field: str
) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == field
    assert isinstance(response.json()["detail"], list)  # FastAPI's list stays, for clients that read loc


@pytest.mark.parametrize(
    ("patch", "field", "says"),
    [
        (
            {"definition": {"watch": {"mode": "poll"}}},
            "definition.watch.mode",
            "definition.watch.mode is fixed for the run: the definition is fixed for the run, its watch's mode "
            "with it; a watch whose mode is a knob (watch.mode: $name, a string knob with choices poll and "
            "change_stream) switches live",
        ),
        ({"client": {"interface": "pgadapter"}}, "client.interface", "interface is fixed for the run"),
        ({"seed": 7}, "seed", "seed is fixed for the run"),
    ],
    ids=["watch mode", "client interface", "seed"],
)
def test_a_patch_of_a_field_fixed_for_the_run_is_422_naming_it(
    tmp_path: Path, patch: dict[str, Any], field: str, says: str
) -> None:
    """Issue 29: the definition is fixed for the run, its watch's mode with it (a mode that is a knob switches
    through the knob); a live patch of it (or of any fixed field) says so by the field's name, and changes
    nothing."""
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        run = client.post("/api/runs", json={"preset": "light-change-stream"}).json()
        assert run["status"] == "running", run
        refused = client.patch(f"/api/runs/{run['id']}/config", json=patch)
        assert refused.status_code == 422, refused.text
        assert refused.json()["field"] == field
        [error] = refused.json()["detail"]
        assert error["msg"].startswith(says), error
        after = client.get(f"/api/runs/{run['id']}").json()
        assert after["current_config"] == run["current_config"]
        assert after["current_config"]["knobs"]["watch_mode"] == "change_stream"


@pytest.mark.parametrize(
    ("run", "patch", "field", "says"),
    [
        (
            {"preset": "light-poll", "overrides": {"target": {"kind": "emulator", "emulator_host": "127.0.0.1:9"}}},
            {"knobs": {"watch_mode": "change_stream"}},
            "knobs.watch_mode",
            "knobs.watch_mode: cannot switch the watch to change_stream: the Cloud Spanner emulator has no change "
            "streams; the run can only poll",
        ),
        (
            {"preset": "light-poll", "overrides": {"definition": {"watch": {"mode": "poll"}}}},
            {"knobs": {"watch_mode": "change_stream"}},
            "knobs.watch_mode",
            "knobs.watch_mode: cannot switch the watch to change_stream: the definition pins watch.mode to poll",
        ),
        (
            {"preset": "light-poll", "overrides": {"knobs": {"watch_mode": "poll"}}},
            {"knobs": {"watch_mode": "stream"}},
            "knobs.watch_mode",
            "knobs.watch_mode: 'stream' is not one of 'poll', 'change_stream'",
        ),
    ],
    ids=["emulator", "pinned", "no such mode"],
)
def test_a_switch_of_the_watch_a_run_cannot_make_is_422_naming_the_knob_and_why(
    tmp_path: Path, run: dict[str, Any], patch: dict[str, Any], field: str, says: str
) -> None:
    """Issue 29: a run switches poll <-> change stream through its watch_mode knob where it can; where it
    cannot, the 422 names the knob and says why, and the run goes on as it was."""
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        started = client.post("/api/runs", json=run).json()
        assert started["status"] == "running", started
        refused = client.patch(f"/api/runs/{started['id']}/config", json=patch)
        assert refused.status_code == 422, refused.text
        assert refused.json()["field"] == field
        assert says in str(refused.json()["detail"]), refused.json()
        after = client.get(f"/api/runs/{started['id']}").json()
        assert after["current_config"] == started["current_config"]
