"""Serving the built frontend at ``/``, with the SPA fallback: unknown paths get index.html."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

NOT_SPA_PREFIXES = ("api/", "metrics", "docs", "redoc", "openapi.json")


class SPAStaticFiles(StaticFiles):
    """Static files whose 404 for a client-side route (not an API path, not a file with an
    extension) is answered with index.html, so that deep links and reloads work."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            return await super().get_response(path, scope)
        except StarletteHTTPException as err:
            if err.status_code != 404 or path.startswith(NOT_SPA_PREFIXES) or "." in path.rsplit("/", 1)[-1]:
                raise
            return await super().get_response("index.html", scope)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(html=True, **kwargs)
