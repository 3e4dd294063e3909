"""Host and Origin checks (issue 16): other web pages in the user's browser cannot drive the API.

Most cases go through TestClient over the real app with the load-free engine (the checks sit in
front of every route, so no run needs to put load on anything); one goes through a real
`spanload serve` under uvicorn, so the Host header and the websocket handshake are the real ones."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from spanload.main import create_app
from spanload.model.presets import get_preset
from spanload.model.settings import Settings
from tests.api.conftest import LOCAL_URL, fresh_database, local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine
from tests.helpers import VENV_BIN, ServeProcess

EVIL_HOST = "rebind.evil.example"
EVIL_ORIGIN = "http://evil.example"
WS_POLICY_VIOLATION = 1008


def _client(tmp_path: Path, **settings: Any) -> TestClient:
    return local_client(create_app(make_settings(tmp_path, **settings), engine_factory=LoadlessEngine))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as test_client:
        yield test_client


def _run_count(client: TestClient) -> int:
    count: int = client.get("/api/runs").json()["count"]
    return count


def _live_refusal(client: TestClient, url: str, headers: dict[str, str] | None = None) -> WebSocketDisconnect:
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(url, headers=headers or {}) as ws:
        ws.receive_json()
    return refused.value


def _live_snapshot(client: TestClient, run_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    with client.websocket_connect(f"/api/runs/{run_id}/live", headers=headers or {}) as ws:
        message: dict[str, Any] = ws.receive_json()
    return message


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/runs", None),
        ("GET", "/api/health", None),
        ("POST", "/api/runs", {"preset": "light"}),
        ("GET", "/metrics", None),
        ("GET", "/openapi.json", None),
    ],
)
def test_a_foreign_host_is_refused_on_rest_with_a_sentence(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    for host in (EVIL_HOST, f"{EVIL_HOST}:8000", "127.0.0.1.evil.example", "localhost.evil.example:8000"):
        response = client.request(method, path, json=body, headers={"host": host})
        assert response.status_code == 400, (host, response.text)
        assert response.headers["content-type"] == "application/json"
        detail = response.json()["detail"]
        assert detail.startswith(f"Host {host!r} is not a name this server answers to")
        assert "SPANLOAD_ALLOWED_HOSTS" in detail
    assert _run_count(client) == 0  # the refused POST started nothing


def test_loopback_names_pass_with_or_without_a_port(client: TestClient) -> None:
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST", "127.0.0.1:5173"):
        response = client.get("/api/health", headers={"host": host})
        assert response.status_code == 200, (host, response.text)
        assert response.json()["status"] == "ok"


def test_a_foreign_host_is_refused_on_the_websocket(client: TestClient) -> None:
    run_id = client.post("/api/runs", json={"preset": "light"}).json()["id"]
    refusal = _live_refusal(client, f"ws://{EVIL_HOST}:8000/api/runs/{run_id}/live")
    assert (refusal.code, refusal.reason) == (WS_POLICY_VIOLATION, "Host not allowed")
    assert _live_snapshot(client, run_id)["run"]["id"] == run_id  # the same socket, on an allowed Host


def test_a_foreign_origin_is_refused_on_post_patch_and_delete(client: TestClient) -> None:
    running = client.post("/api/runs", json={"preset": "light", "name": "kept"}).json()["id"]
    stopped = client.post("/api/runs", json={"preset": "light"}).json()["id"]
    assert client.post(f"/api/runs/{stopped}/stop").status_code == 200
    for origin in (EVIL_ORIGIN, "null", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "http://localhost:8000"):
        foreign = {"origin": origin}
        attempts = [
            client.post("/api/runs", json={"preset": "light"}, headers=foreign),
            client.patch(f"/api/runs/{running}", json={"name": "renamed"}, headers=foreign),
            client.patch(
                f"/api/runs/{running}/config", json={"updater": {"transactions_per_second": 2}}, headers=foreign
            ),
            client.post(f"/api/runs/{running}/stop", headers=foreign),
            client.delete(f"/api/runs/{stopped}", headers=foreign),
        ]
        for response in attempts:
            assert response.status_code == 403, (origin, response.request.method, response.text)
            detail = response.json()["detail"]
            assert detail.startswith(f"Origin {origin!r} may not change anything")
            assert "SPANLOAD_ALLOWED_ORIGINS" in detail
    assert _run_count(client) == 2
    run = client.get(f"/api/runs/{running}").json()
    assert (run["name"], run["status"]) == ("kept", "running")
    light = get_preset("light").config.updater.transactions_per_second
    assert run["config"]["updater"]["transactions_per_second"] == light != 2
    assert client.get(f"/api/runs/{stopped}").status_code == 200

    # The same requests from the server's own pages, and without any Origin (CLI, curl, CI), pass.
    same = {"origin": LOCAL_URL}
    assert client.patch(f"/api/runs/{running}", json={"name": "renamed"}, headers=same).json()["name"] == "renamed"
    assert client.patch(f"/api/runs/{running}", json={"name": "again"}).json()["name"] == "again"
    assert client.post("/api/runs", json={"preset": "light"}, headers=same).status_code == 201
    assert client.post("/api/runs", json={"preset": "light"}).status_code == 201
    assert client.delete(f"/api/runs/{stopped}", headers=same).status_code == 204
    assert client.get(f"/api/runs/{stopped}").status_code == 404
    assert _run_count(client) == 3


def test_a_foreign_origin_may_read_what_cors_keeps_from_it(client: TestClient) -> None:
    """GETs change nothing, and without CORS headers a browser does not let a foreign page read the
    answer; a rebinding page, which could, is stopped by the Host check."""
    response = client.get("/api/runs", headers={"origin": EVIL_ORIGIN})
    assert response.status_code == 200 and response.json()["count"] == 0
    assert "access-control-allow-origin" not in response.headers


def test_a_foreign_origin_is_refused_on_the_websocket(client: TestClient) -> None:
    run_id = client.post("/api/runs", json={"preset": "light"}).json()["id"]
    for origin in (EVIL_ORIGIN, "null", "http://localhost:8000"):
        refusal = _live_refusal(client, f"/api/runs/{run_id}/live", headers={"origin": origin})
        assert (refusal.code, refusal.reason) == (WS_POLICY_VIOLATION, "Origin not allowed")
    for headers in ({"origin": LOCAL_URL}, None):
        snapshot = _live_snapshot(client, run_id, headers)
        assert (snapshot["type"], snapshot["run"]["id"]) == ("snapshot", run_id)


def test_the_origin_probe_answers_for_the_ui(client: TestClient) -> None:
    """The UI asks POST /api/health/origin when its live socket closes before opening."""
    assert client.post("/api/health/origin", headers={"origin": LOCAL_URL}).status_code == 204
    assert client.post("/api/health/origin").status_code == 204
    refused = client.post("/api/health/origin", headers={"origin": "http://127.0.0.1:5173"})
    assert refused.status_code == 403
    assert "'http://127.0.0.1:5173'" in refused.json()["detail"]


def test_the_allow_lists_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPANLOAD_ALLOWED_HOSTS", "proxy.example, *.corp.example")
    monkeypatch.setenv("SPANLOAD_ALLOWED_ORIGINS", "http://127.0.0.1:5173,https://ui.example/")
    settings = Settings()
    assert settings.allowed_hosts == ["proxy.example", "*.corp.example"]
    assert settings.allowed_origins == ["http://127.0.0.1:5173", "https://ui.example:443"]
    with _client(tmp_path) as client:
        for host, status in [
            ("proxy.example", 200),
            ("proxy.example:443", 200),
            ("dash.corp.example", 200),
            ("corp.example", 400),
            ("proxy.example.evil.example", 400),
        ]:
            assert client.get("/api/runs", headers={"host": host}).status_code == status, host
        for origin, status in [
            ("http://127.0.0.1:5173", 201),
            ("https://ui.example", 201),
            ("http://127.0.0.1:5174", 403),
            ("http://ui.example", 403),
        ]:
            response = client.post("/api/runs", json={"preset": "light"}, headers={"origin": origin})
            assert response.status_code == status, (origin, response.text)
        # Behind the proxy, its pages are the server's own: Origin and Host agree.
        proxied = {"host": "proxy.example", "origin": "http://proxy.example"}
        run_id = client.post("/api/runs", json={"preset": "light"}, headers=proxied).json()["id"]
        assert _run_count(client) == 3
        snapshot = _live_snapshot(client, run_id, {"origin": "http://127.0.0.1:5173"})
        assert snapshot["run"]["id"] == run_id
        refusal = _live_refusal(client, f"/api/runs/{run_id}/live", headers={"origin": "http://127.0.0.1:5174"})
        assert refusal.code == WS_POLICY_VIOLATION


def test_bad_allow_list_entries_stop_serve_with_a_sentence(tmp_path: Path) -> None:
    for name, value, sentence in [
        ("SPANLOAD_ALLOWED_HOSTS", "proxy.example:443", "'proxy.example:443' is not a host name"),
        ("SPANLOAD_ALLOWED_HOSTS", "proxy*", "'proxy*' is not a host name"),
        ("SPANLOAD_ALLOWED_ORIGINS", "localhost:5173", "'localhost:5173' is not an origin"),
    ]:
        result = subprocess.run(
            [str(VENV_BIN / "spanload"), "serve", "--data-dir", str(tmp_path)],
            env={"PATH": "/usr/bin:/bin", name: value},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(f"spanload serve: {name}: {sentence}"), result.stderr
        assert "Traceback" not in result.stderr


def test_token_mode_applies_the_checks_on_top_of_the_token(tmp_path: Path) -> None:
    """Bound beyond loopback with a token: the bound address is a trusted Host, loopback stays one,
    and a right token does not let a foreign Host or Origin through."""
    token = {"authorization": "Bearer s3cret"}
    with _client(tmp_path, api_token="s3cret", host="10.1.2.3") as client:
        own = {"host": "10.1.2.3:8000", "origin": "http://10.1.2.3:8000"}
        assert client.get("/api/runs", headers=own).status_code == 401  # the token is still needed
        assert client.get("/api/runs", headers={**own, **token}).status_code == 200
        assert client.get("/api/runs", headers={"host": "localhost:8000", **token}).status_code == 200
        assert client.post("/api/runs", json={"preset": "light"}, headers={**own, **token}).status_code == 201
        foreign_host = client.get("/api/runs", headers={"host": EVIL_HOST, **token})
        assert foreign_host.status_code == 400 and "SPANLOAD_ALLOWED_HOSTS" in foreign_host.json()["detail"]
        foreign_origin = client.post(
            "/api/runs", json={"preset": "light"}, headers={**own, **token, "origin": EVIL_ORIGIN}
        )
        assert foreign_origin.status_code == 403 and "SPANLOAD_ALLOWED_ORIGINS" in foreign_origin.json()["detail"]
        assert client.get("/api/runs", headers={**own, **token}).json()["count"] == 1
        run_id = client.get("/api/runs", headers={**own, **token}).json()["data"][0]["id"]
        live = f"ws://10.1.2.3:8000/api/runs/{run_id}/live?token=s3cret"
        assert _live_refusal(client, live, headers={"origin": EVIL_ORIGIN}).reason == "Origin not allowed"
        with client.websocket_connect(live, headers={"origin": own["origin"]}) as ws:
            assert ws.receive_json()["run"]["id"] == run_id
    with _client(tmp_path, api_token="s3cret", host="0.0.0.0") as client:  # every address: this machine's name
        named = client.get("/api/runs", headers={"host": f"{socket.gethostname()}:8000", **token})
        assert named.status_code == 200
        assert client.get("/api/runs", headers={"host": "10.1.2.3:8000", **token}).status_code == 400


async def _open_live(url: str, port: int, origin: str | None) -> str:
    """Open the live socket as a browser page would: ``url``'s host is the Host header, the TCP
    connection goes to 127.0.0.1 (where a rebound name resolves); the first message, or the refusal."""
    try:
        async with connect(url, origin=origin, host="127.0.0.1", port=port, open_timeout=30) as ws:  # type: ignore[arg-type]
            message = json.loads(await ws.recv())
            return f"{message['type']} of {message['run']['id']}"
    except InvalidStatus as err:
        return f"refused {err.response.status_code}"


def test_a_real_serve_refuses_a_rebinding_page_and_a_foreign_origin(tmp_path: Path) -> None:
    with ServeProcess(tmp_path) as serve:
        with httpx.Client(base_url=serve.url, timeout=30) as http:
            rebound = {"host": f"{EVIL_HOST}:{serve.port}"}
            response = http.post("/api/runs", json={"preset": "very-light"}, headers=rebound)
            assert response.status_code == 400 and response.json()["detail"].startswith(f"Host '{EVIL_HOST}:")
            assert http.get("/api/runs", headers=rebound).status_code == 400
            response = http.post("/api/runs", json={"preset": "very-light"}, headers={"origin": EVIL_ORIGIN})
            assert response.status_code == 403
            assert http.get("/api/runs").json()["count"] == 0
            body = {"preset": "very-light", "overrides": fresh_database()}
            created = http.post("/api/runs", json=body)  # no Origin: the CLI's and CI's way
            assert created.status_code == 201, created.text
            run_id = created.json()["id"]
            path = f"/api/runs/{run_id}/live"
            own = f"ws://127.0.0.1:{serve.port}{path}"
            results = asyncio.run(_live_results(own, f"ws://{EVIL_HOST}:{serve.port}{path}", serve))
            assert results == {
                "own origin": f"snapshot of {run_id}",
                "no origin": f"snapshot of {run_id}",
                "foreign origin": "refused 403",
                "rebound host": "refused 403",
            }
            assert http.post(f"/api/runs/{run_id}/stop", headers={"origin": serve.url}).status_code == 200
        assert serve.stop() == 0, serve.output[-6000:]


async def _live_results(own: str, rebound: str, serve: ServeProcess) -> dict[str, str]:
    return {
        "own origin": await _open_live(own, serve.port, serve.url),
        "no origin": await _open_live(own, serve.port, None),
        "foreign origin": await _open_live(own, serve.port, EVIL_ORIGIN),
        "rebound host": await _open_live(rebound, serve.port, f"http://{EVIL_HOST}:{serve.port}"),
    }
