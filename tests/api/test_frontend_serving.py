"""The built dashboard is served at / with the SPA fallback; API paths keep their JSON 404s."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from spanload.main import create_app
from tests.api.conftest import local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine

INDEX = "<!doctype html><title>Spanload</title>"


def app_serving(tmp_path: Path, files: dict[str, str]) -> FastAPI:
    """The app with a frontend build of index.html and these files (path under dist: text)."""
    dist = tmp_path / "dist"
    for name, text in {"index.html": INDEX, **files}.items():
        (dist / name).parent.mkdir(parents=True, exist_ok=True)
        (dist / name).write_text(text)
    return create_app(make_settings(tmp_path, frontend_dist=dist), engine_factory=LoadlessEngine)


def test_dashboard_served_with_spa_fallback(tmp_path: Path) -> None:
    app = app_serving(tmp_path, {"assets/app.js": "console.log(1)"})
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
        docs = client.get("/docs")  # the UI's build has no Swagger UI files: /docs says what to do
        assert docs.status_code == 503 and "run `make install`" in docs.text


def test_a_run_page_of_a_run_that_exists_is_served_with_200(tmp_path: Path) -> None:
    app = app_serving(tmp_path, {})
    with local_client(app) as client:
        run = client.post("/api/runs", json={"config": {"duration_s": 1}}).json()
        for path in (f"/runs/{run['id']}", f"/runs/{run['id']}/live"):
            page = client.get(path)
            assert (page.status_code, page.text) == (200, INDEX), path


def test_docs_load_swagger_ui_from_the_project_not_a_cdn(tmp_path: Path) -> None:
    app = app_serving(tmp_path, {"swagger-ui/swagger-ui-bundle.js": "window.SwaggerUIBundle = 1"})
    with local_client(app) as client:
        docs = client.get("/docs")
        assert docs.status_code == 200
        assert 'src="/swagger-ui/swagger-ui-bundle.js"' in docs.text and "/openapi.json" in docs.text
        assert "cdn" not in docs.text
        assert client.get("/swagger-ui/swagger-ui-bundle.js").text == "window.SwaggerUIBundle = 1"
        assert client.get("/redoc").status_code == 404  # FastAPI's redoc loads from a CDN: off


def test_no_dashboard_when_it_is_not_built(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        assert client.get("/").status_code == 404
        assert client.get("/api/presets").status_code == 200
