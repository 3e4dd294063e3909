"""The FastAPI app factory and its lifespan; nothing else."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from spanload import __version__
from spanload.api import api_router
from spanload.config import Settings, get_settings
from spanload.spanner.local_server import start_local_spanner

logger = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.local_spanner = None
        if settings.local_spanner_start:
            data_dir = None if settings.local_spanner_in_memory else settings.data_dir / "local-spanner"
            app.state.local_spanner = start_local_spanner(
                settings.local_spanner_host,
                settings.local_spanner_port,
                data_dir,
                settings.local_spanner_binary,
            )
        try:
            yield
        finally:
            if app.state.local_spanner is not None:
                app.state.local_spanner.stop()

    app = FastAPI(title="Spanload", version=__version__, lifespan=lifespan)
    app.include_router(api_router)
    return app
