"""GET /api/health: the version, and the local Spanner that `serve` started."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel, Field

from spanload import __version__
from spanload.api.deps import LocalSpannerDep
from spanload.spanner.local_server import ServerState

router = APIRouter(tags=["health"])


class LocalSpannerPublic(BaseModel):
    address: str | None
    state: ServerState = Field(description="up; restarting after it died (serve starts it again); down")
    version: str | None
    pid: int | None = Field(None, description="the running server's process id")
    restarts: int = Field(0, description="how often serve restarted it after it died")
    last_exit: str | None = Field(None, description="how it ended the last time it died")


class HealthPublic(BaseModel):
    status: str
    version: str
    local_spanner: LocalSpannerPublic


@router.get("/health")
def health(local: LocalSpannerDep) -> HealthPublic:
    if local is None:
        spanner = LocalSpannerPublic(address=None, state=ServerState.DOWN, version=None)
    else:
        spanner = LocalSpannerPublic(
            address=local.address,
            state=local.state,
            version=local.version,
            pid=local.pid,
            restarts=local.restarts,
            last_exit=local.last_exit,
        )
    return HealthPublic(status="ok", version=__version__, local_spanner=spanner)


@router.post("/health/origin", status_code=status.HTTP_204_NO_CONTENT)
def origin_allowed() -> None:
    """204 when this request's Origin may change state and open live streams; the Origin check
    answers 403 with the reason otherwise. Browsers do not tell a page why a websocket handshake
    was refused, so the UI asks here when its live socket closes before opening."""
