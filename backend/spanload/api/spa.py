"""Serving the built frontend at ``/``, with the SPA fallback: unknown paths get index.html.

A run's page (``/runs/ID``, ``/runs/ID/live``) of a run that does not exist gets index.html with
status 404: the page says so in a sentence, and the status says it to anything that is not a browser.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from spanload.store import runs as run_store

NOT_SPA_PREFIXES = ("api/", "metrics", "docs", "redoc", "openapi.json")
RUN_PAGE = re.compile(r"runs/(?P<id>[^/]+)(/live)?/?")
NOT_RUN_IDS = {"new"}  # /runs/new is a page of its own


def _run_exists(scope: Scope, run_id: str) -> bool:
    sessions = getattr(scope["app"].state, "sessions", None)
    if sessions is None:  # no store (the app is not started): say nothing
        return True
    with sessions() as session:
        return run_store.get_run(session, run_id) is not None


class SPAStaticFiles(StaticFiles):
    """Static files whose 404 for a client-side route (not an API path, not a file with an
    extension) is answered with index.html, so that deep links and reloads work."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            return await super().get_response(path, scope)
        except StarletteHTTPException as err:
            if err.status_code != 404 or path.startswith(NOT_SPA_PREFIXES) or "." in path.rsplit("/", 1)[-1]:
                raise
            page = await super().get_response("index.html", scope)
            run = RUN_PAGE.fullmatch(path)
            known = not run or run["id"] in NOT_RUN_IDS or await asyncio.to_thread(_run_exists, scope, run["id"])
            if not known and page.status_code == 200:
                page.status_code = 404
            return page

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(html=True, **kwargs)
