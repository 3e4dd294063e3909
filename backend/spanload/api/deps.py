"""Annotated dependencies shared by the routers."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, WebSocketException, status
from sqlalchemy.orm import Session, sessionmaker
from starlette.requests import HTTPConnection

from spanload.control.hub import Hub
from spanload.control.service import RunService
from spanload.model.settings import Settings, get_settings
from spanload.spanner.local_server import ServeLocalSpanner


def _app_settings(conn: HTTPConnection) -> Settings:
    settings: Settings | None = getattr(conn.app.state, "settings", None)
    return settings or get_settings()


SettingsDep = Annotated[Settings, Depends(_app_settings)]
"""The settings of the app serving the request (create_app's), not the process-wide ones."""


def _local_spanner(request: Request) -> ServeLocalSpanner | None:
    server: ServeLocalSpanner | None = getattr(request.app.state, "local_spanner", None)
    return server


LocalSpannerDep = Annotated[ServeLocalSpanner | None, Depends(_local_spanner)]


# --- the control plane's dependencies ----------------------------------------------------------


TOKEN_QUERY_PARAM = "token"


def require_token(conn: HTTPConnection) -> None:
    """When SPANLOAD_API_TOKEN is set, every REST and websocket request must carry it:
    ``Authorization: Bearer <token>``, or ``?token=<token>`` (for browsers' websockets)."""
    expected = _app_settings(conn).api_token
    if not expected:
        return
    header = conn.headers.get("authorization", "")
    given = header[7:] if header.lower().startswith("bearer ") else conn.query_params.get(TOKEN_QUERY_PARAM, "")
    if hmac.compare_digest(given.encode(), expected.encode()):
        return
    if conn.scope["type"] == "websocket":
        raise WebSocketException(code=status.WS_1008_POLICY_VIOLATION, reason="missing or wrong API token")
    raise HTTPException(
        status.HTTP_401_UNAUTHORIZED,
        "missing or wrong API token: send 'Authorization: Bearer <SPANLOAD_API_TOKEN>'",
        headers={"WWW-Authenticate": "Bearer"},
    )


def _sessions(conn: HTTPConnection) -> sessionmaker[Session]:
    sessions: sessionmaker[Session] = conn.app.state.sessions
    return sessions


def _session(conn: HTTPConnection) -> Iterator[Session]:
    with _sessions(conn)() as session:
        yield session


def _hub(conn: HTTPConnection) -> Hub:
    hub: Hub = conn.app.state.hub
    return hub


def _service(conn: HTTPConnection) -> RunService:
    service: RunService = conn.app.state.run_service
    return service


SessionsDep = Annotated[sessionmaker[Session], Depends(_sessions)]
SessionDep = Annotated[Session, Depends(_session)]
HubDep = Annotated[Hub, Depends(_hub)]
ServiceDep = Annotated[RunService, Depends(_service)]
