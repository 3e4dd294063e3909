"""Annotated dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from spanload.config import Settings, get_settings
from spanload.spanner.local_server import LocalSpanner

SettingsDep = Annotated[Settings, Depends(get_settings)]


def _local_spanner(request: Request) -> LocalSpanner | None:
    server: LocalSpanner | None = getattr(request.app.state, "local_spanner", None)
    return server


LocalSpannerDep = Annotated[LocalSpanner | None, Depends(_local_spanner)]
