"""GET /docs: Swagger UI from the project's own copy, never from a CDN, so the docs work offline.

The files come from the pinned ``swagger-ui-dist`` npm package (frontend/package-lock.json); the
frontend build copies them to ``frontend/dist/swagger-ui/`` (frontend/vite.config.ts), which the
SPA mount serves. FastAPI's own /docs and /redoc load their scripts from a CDN and are turned off
(main.py).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from spanload.model.settings import Settings

DOCS_PATH = "/docs"
ASSETS = "swagger-ui"  # under frontend/dist/, and under / when served
BUNDLE = "swagger-ui-bundle.js"


def install_docs(app: FastAPI, settings: Settings) -> None:
    @app.get(DOCS_PATH, include_in_schema=False, response_model=None)
    async def docs() -> Response:
        if not (settings.frontend_dist / ASSETS / BUNDLE).is_file():
            return PlainTextResponse(
                f"The API docs need the built UI ({settings.frontend_dist / ASSETS} is missing): run `make install`. "
                f"The schema itself is at {app.openapi_url}.",
                status_code=503,
            )
        page: HTMLResponse = get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"/{ASSETS}/{BUNDLE}",
            swagger_css_url=f"/{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"/{ASSETS}/favicon-32x32.png",
        )
        return page
