"""A run's PGAdapter: the ``pgadapter`` interface's proxy, started for the run when its config names
no running one (``client.pgadapter_host``), supervised like the local Spanner (restarted with
backoff; each outage a ``target_down`` / ``target_up`` pair on the run's timeline, ``what:
PGAdapter``), and stopped with the run."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from spanload.model.config import ClientInterface, RunConfig
from spanload.model.events import EventKind
from spanload.model.settings import Settings
from spanload.spanner import pgadapter
from spanload.spanner.local_server import SupervisedLocalSpanner, TargetChange

logger = logging.getLogger(__name__)

_running: dict[str, SupervisedLocalSpanner] = {}  # run id -> the PGAdapter started for it
_running_lock = threading.Lock()


def register(run_id: str, server: SupervisedLocalSpanner) -> None:
    """``server`` is ``run_id``'s PGAdapter until :func:`unregister` (GET /api/health shows it)."""
    with _running_lock:
        _running[run_id] = server


def unregister(run_id: str) -> None:
    with _running_lock:
        _running.pop(run_id, None)


def running() -> dict[str, SupervisedLocalSpanner]:
    """The PGAdapters started for the runs now active, by run id."""
    with _running_lock:
        return dict(_running)


def needs_pgadapter(config: RunConfig) -> bool:
    """Whether the run starts a PGAdapter of its own."""
    return config.client.interface is ClientInterface.PGADAPTER and not config.client.pgadapter_host


def check_installed(settings: Settings) -> None:
    """Java and PGAdapter's jars are there; :class:`~spanload.spanner.pgadapter.PGAdapterError`
    saying what to install otherwise (before any worker starts)."""
    pgadapter.find_java(settings.java)
    pgadapter.find_jars(settings.pgadapter_dir)


async def start(
    config: RunConfig, emulator_host: str | None, settings: Settings, on_change: Callable[[TargetChange], None]
) -> tuple[SupervisedLocalSpanner, RunConfig]:
    """The run's PGAdapter, ready, and ``config`` with its address in ``client.pgadapter_host``.
    ``on_change`` is called from its supervising thread."""
    server = await asyncio.to_thread(
        pgadapter.supervise_pgadapter,
        config.target,
        emulator_host,
        settings.java,
        settings.pgadapter_dir,
        on_change,
        settings.local_spanner_restart_backoff_s,
        settings.local_spanner_restart_backoff_max_s,
    )
    try:
        took = await asyncio.to_thread(pgadapter.warm_up, server.address, config.target.database)
    except BaseException:
        await asyncio.to_thread(server.stop)
        raise
    logger.info(
        "PGAdapter %s on %s connected to %s in %.1f s", server.version, server.address, config.target.database, took
    )
    client = config.client.model_copy(update={"pgadapter_host": server.address})
    return server, config.model_copy(update={"client": client})


def change_event(change: TargetChange) -> tuple[EventKind, dict[str, object]]:
    """The timeline point of a PGAdapter outage or recovery."""
    kind = EventKind.TARGET_UP if change.up else EventKind.TARGET_DOWN
    return kind, {"what": pgadapter.NAME, **change.fields()}
