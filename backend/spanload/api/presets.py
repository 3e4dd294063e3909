"""GET /api/presets: the load engine's presets, with the config each starts."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from spanload.model import presets
from spanload.model.config import RunConfig

router = APIRouter(tags=["presets"])


class PresetPublic(BaseModel):
    name: str
    description: str
    config: RunConfig


@router.get("/presets")
def get_presets() -> list[PresetPublic]:
    return [PresetPublic(name=p.name, description=p.description, config=p.config) for p in presets.all_presets()]
