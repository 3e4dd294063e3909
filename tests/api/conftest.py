"""Fixtures of the API tests: the real app (real Supervisor, worker processes and run store) against
a real local Spanner that passed the load engine's probe; failing, with the reason, if not."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from spanload.main import create_app
from spanload.model.settings import Settings
from spanload.spanner.local_server import LocalSpanner, LocalSpannerError, start_local_spanner
from tests.engine.conftest import probe
from tests.helpers import wait_for

LOCAL_URL = "http://127.0.0.1:8000"  # an allowed Host (TestClient's own default, 'testserver', is not)
RUN_READY_TIMEOUT_S = 120.0  # a worker process imports the Spanner client and creates the schema


@pytest.fixture(scope="session")
def local_spanner() -> Iterator[LocalSpanner]:
    try:
        server = start_local_spanner("127.0.0.1", 0, None, Settings().local_spanner_binary)
    except LocalSpannerError as err:
        pytest.fail(f"no local Spanner ({err}); `make install` builds it")
    try:
        reason = probe(server.address)
        if reason is not None:
            pytest.fail(reason)
        yield server
    finally:
        server.stop()


class LocalTestClient(TestClient):
    """A TestClient that reaches the app as a browser on this machine would: Host 127.0.0.1:8000,
    websockets included (Starlette's joins relative websocket URLs to ws://testserver)."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, base_url=LOCAL_URL, **kwargs)

    def websocket_connect(self, url: str, subprotocols: Sequence[str] | None = None, **kwargs: Any) -> Any:
        return super().websocket_connect(urljoin(LOCAL_URL.replace("http", "ws", 1), url), subprotocols, **kwargs)


def local_client(app: Any, **kwargs: Any) -> TestClient:
    return LocalTestClient(app, **kwargs)


def make_settings(data_dir: Path, spanner: LocalSpanner | None = None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "local_spanner_start": False,
        "frontend_dist": data_dir / "no-frontend",
    }
    if spanner is not None:
        host, _, port = spanner.address.rpartition(":")
        values |= {"local_spanner_host": host, "local_spanner_port": int(port)}
    return Settings(**(values | overrides))


@pytest.fixture(scope="module")
def client(local_spanner: LocalSpanner, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The whole app, as `spanload serve` builds it, with its own run store."""
    app = create_app(make_settings(tmp_path_factory.mktemp("api"), local_spanner))
    with local_client(app) as test_client:
        yield test_client


def fresh_database() -> dict[str, Any]:
    """Overrides that put a run on its own database of the local Spanner."""
    return {"target": {"kind": "local", "database": f"api-{uuid.uuid4().hex[:10]}"}}


def wait_run(client: TestClient, run_id: str, ready: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    def probe_run() -> dict[str, Any] | None:
        body: dict[str, Any] = client.get(f"/api/runs/{run_id}").json()
        if body["status"] == "failed" and not ready(body):
            raise AssertionError(f"run failed: {body['failure_reason']}")
        return body if ready(body) else None

    return wait_for(probe_run, RUN_READY_TIMEOUT_S, what, every_s=0.2)


def start_run(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("preset", "very-light")
    body["overrides"] = fresh_database() | body.get("overrides", {})
    response = client.post("/api/runs", json=body)
    assert response.status_code == 201, response.text
    run: dict[str, Any] = response.json()
    return run


def scrape(client: TestClient) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """sample name -> {sorted labels: value}, from the text /metrics serves."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def key(**labels: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(labels.items()))


def of_run(series: dict[tuple[tuple[str, str], ...], float], run_id: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {tuple(kv for kv in k if kv[0] != "run_id"): v for k, v in series.items() if ("run_id", run_id) in k}
