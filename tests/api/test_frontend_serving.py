"""The built dashboard is served at / with the SPA fallback; API paths keep their JSON 404s."""

from __future__ import annotations

from pathlib import Path

from spanload.main import create_app
from tests.api.conftest import local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine

INDEX = "<!doctype html><title>Spanload</title>"


def test_dashboard_served_with_spa_fallback(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(INDEX)
    (dist / "assets" / "app.js").write_text("console.log(1)")
    app = create_app(make_settings(tmp_path, frontend_dist=dist), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        assert client.get("/").text == INDEX
        assert client.get("/assets/app.js").text == "console.log(1)"
        deep = client.get("/runs/abc/live")
        assert deep.status_code == 200 and deep.text == INDEX  # a client-side route
        assert client.get("/assets/missing.js").status_code == 404
        api = client.get("/api/no-such-route")
        assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
        assert client.get("/api/runs").json()["count"] == 0
        assert client.get("/docs").status_code == 200


def test_no_dashboard_when_it_is_not_built(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        assert client.get("/").status_code == 404
        assert client.get("/api/presets").status_code == 200
