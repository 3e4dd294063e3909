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
        assert client.get("/runs/new").status_code == 200  # a client-side route
        # a run's pages of a run that does not exist: the page (it says so), with status 404
        for path in ("/runs/abc", "/runs/abc/live"):
            deep = client.get(path)
            assert (deep.status_code, deep.text) == (404, INDEX), path
        assert client.get("/assets/missing.js").status_code == 404
        api = client.get("/api/no-such-route")
        assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
        assert client.get("/api/runs").json()["count"] == 0
        assert client.get("/docs").status_code == 200


def test_a_run_page_of_a_run_that_exists_is_served_with_200(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "index.html").write_text(INDEX)
    app = create_app(make_settings(tmp_path, frontend_dist=dist), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        run = client.post("/api/runs", json={"config": {"duration_s": 1}}).json()
        for path in (f"/runs/{run['id']}", f"/runs/{run['id']}/live"):
            page = client.get(path)
            assert (page.status_code, page.text) == (200, INDEX), path


def test_no_dashboard_when_it_is_not_built(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        assert client.get("/").status_code == 404
        assert client.get("/api/presets").status_code == 200
