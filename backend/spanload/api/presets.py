"""GET /api/presets: the load engine's presets, with the config each starts."""

from __future__ import annotations

from fastapi import APIRouter

from spanload.model.preset_catalog import PresetPublic, list_presets

router = APIRouter(tags=["presets"])


@router.get("/presets")
def get_presets() -> list[PresetPublic]:
    return list_presets()
