"""The FastAPI app factory and its lifespan; nothing else."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from spanload import __version__
from spanload.api import install
from spanload.control.hub import Hub
from spanload.control.service import RunService
from spanload.engine.engine_thread import EngineThread
from spanload.model.settings import Settings, get_settings
from spanload.model.state import RunEngine, RunSink
from spanload.spanner.local_server import ServeLocalSpanner, TargetChange, supervise_local_spanner
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from spanload.store.recovery import recover_interrupted
from spanload.store.writer import StoreWriter

logger = logging.getLogger(__name__)

EngineFactory = Callable[[Settings, RunSink], RunEngine]


def _supervisor(settings: Settings, sink: RunSink) -> RunEngine:
    from spanload.engine.supervisor import Supervisor

    return EngineThread(settings, sink, Supervisor)


def create_app(
    settings: Settings | None = None,
    engine_factory: EngineFactory | None = None,
    local_spanner: ServeLocalSpanner | None = None,
) -> FastAPI:
    """The app. ``engine_factory`` builds the load engine (default: the runs Supervisor).
    ``local_spanner``: the local Spanner started (or found) already, which the app stops when it ends;
    without it, the app starts one if ``settings.local_spanner_start``."""
    settings = settings or get_settings()
    make_run_engine = engine_factory or _supervisor

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.local_spanner = None
        loop = asyncio.get_running_loop()
        hub: Hub | None = None

        def target_changed(change: TargetChange) -> None:  # from the local Spanner's supervising thread
            if hub is not None:
                loop.call_soon_threadsafe(hub.on_target_change, change)

        # started from the main thread, which outlives it: Linux ends the child with the thread that
        # started it (PR_SET_PDEATHSIG); restarts come from the supervising thread
        if local_spanner is not None:  # serve's, started before the app to report a failure plainly
            app.state.local_spanner = local_spanner
        elif settings.local_spanner_start:
            app.state.local_spanner = supervise_local_spanner(settings)
        engine_settings = settings
        if app.state.local_spanner is not None:
            app.state.local_spanner.on_change = target_changed
            # port 0 means "any free port": tell runs which one
            host, _, port = app.state.local_spanner.address.rpartition(":")
            engine_settings = settings.model_copy(update={"local_spanner_host": host, "local_spanner_port": int(port)})
        db = None
        writer = None
        run_engine = None
        try:
            await asyncio.to_thread(upgrade_to_head, settings.store_url)
            db = make_engine(settings.store_url)
            sessions = make_sessionmaker(db)
            await asyncio.to_thread(recover_interrupted, sessions)
            writer = StoreWriter(sessions)
            hub = Hub(writer, metrics_retention_s=settings.metrics_retention_s)
            run_engine = make_run_engine(engine_settings, hub)
            app.state.sessions = sessions
            app.state.hub = hub
            app.state.run_service = RunService(settings, sessions, hub, run_engine)
            yield
        finally:
            if run_engine is not None:
                await run_engine.shutdown()
            if writer is not None:
                writer.close()
            if db is not None:
                db.dispose()
            if app.state.local_spanner is not None:
                app.state.local_spanner.stop()

    # /docs is served from the project's own Swagger UI files (api/docs.py); FastAPI's loads from a CDN.
    app = FastAPI(title="Spanload", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None)
    install(app, settings)
    return app
