"""GET /api/health: the version, the local Spanner that `serve` started, and the PGAdapters the
runs of the ``pgadapter`` interface started (supervised like the local Spanner)."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel, Field

from spanload import __version__
from spanload.api.deps import LocalSpannerDep
from spanload.engine import pgadapter_run
from spanload.spanner.local_server import ServeLocalSpanner, ServerState, SupervisedLocalSpanner

NOT_RUNNING = "not running"
RUNNING = "running"

router = APIRouter(tags=["health"])


class LocalSpannerPublic(BaseModel):
    address: str | None
    state: ServerState = Field(description="up; restarting after it died (serve starts it again); down")
    version: str | None
    pid: int | None = Field(None, description="the running server's process id")
    restarts: int = Field(0, description="how often serve restarted it after it died")
    last_exit: str | None = Field(None, description="how it ended the last time it died")


class PgAdapterPublic(LocalSpannerPublic):
    run_id: str = Field(description="the run that started it (it stops with that run)")


class PgAdapterHealth(BaseModel):
    status: str = Field(description=f"'{RUNNING}' while a run of the pgadapter interface has one; '{NOT_RUNNING}'")
    servers: list[PgAdapterPublic] = Field(default_factory=list, description="one a run that started one")


class HealthPublic(BaseModel):
    status: str
    version: str
    local_spanner: LocalSpannerPublic
    pgadapter: PgAdapterHealth


def _supervised(server: SupervisedLocalSpanner | ServeLocalSpanner) -> dict[str, object]:
    return {
        "address": server.address,
        "state": server.state,
        "version": server.version,
        "pid": server.pid,
        "restarts": server.restarts,
        "last_exit": server.last_exit,
    }


@router.get("/health")
def health(local: LocalSpannerDep) -> HealthPublic:
    if local is None:
        spanner = LocalSpannerPublic(address=None, state=ServerState.DOWN, version=None)
    else:
        spanner = LocalSpannerPublic.model_validate(_supervised(local))
    servers = [
        PgAdapterPublic.model_validate({**_supervised(server), "run_id": run_id})
        for run_id, server in sorted(pgadapter_run.running().items())
    ]
    pgadapter = PgAdapterHealth(status=RUNNING if servers else NOT_RUNNING, servers=servers)
    return HealthPublic(status="ok", version=__version__, local_spanner=spanner, pgadapter=pgadapter)


@router.post("/health/origin", status_code=status.HTTP_204_NO_CONTENT)
def origin_allowed() -> None:
    """204 when this request's Origin may change state and open live streams; the Origin check
    answers 403 with the reason otherwise. Browsers do not tell a page why a websocket handshake
    was refused, so the UI asks here when its live socket closes before opening."""
