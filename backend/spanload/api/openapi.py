"""The app's OpenAPI schema, with the live websocket's messages added as named components
(OpenAPI has no websocket operations), so that clients can generate types for both from one file."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import TypeAdapter

from spanload.api.schemas.live import LiveMessage

REF_TEMPLATE = "#/components/schemas/{model}"
LIVE_MESSAGE = "LiveMessage"


def websocket_components() -> dict[str, Any]:
    """The JSON schemas of every live websocket message, keyed by model name, plus ``LiveMessage``:
    the union a viewer receives, told apart by ``type``."""
    schema = TypeAdapter(LiveMessage).json_schema(mode="serialization", ref_template=REF_TEMPLATE)
    components: dict[str, Any] = schema.pop("$defs", {})
    components[LIVE_MESSAGE] = schema
    return components


def install_openapi(app: FastAPI) -> None:
    """Make ``app.openapi()`` return the REST schema with the websocket message components."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                openapi_version=app.openapi_version,
                description=app.description,
                routes=app.routes,
            )
            found = schema.setdefault("components", {}).setdefault("schemas", {})
            for name, component in websocket_components().items():
                found.setdefault(name, component)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
