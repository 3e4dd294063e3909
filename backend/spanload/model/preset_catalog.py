"""The control plane's view of the load engine's presets (model/presets.py)."""

from __future__ import annotations

from pydantic import BaseModel

from spanload.model import presets
from spanload.model.config import RunConfig


class PresetPublic(BaseModel):
    name: str
    description: str
    config: RunConfig


def list_presets() -> list[PresetPublic]:
    return [PresetPublic(name=p.name, description=p.description, config=p.config) for p in presets.all_presets()]


def preset_names() -> list[str]:
    return [p.name for p in presets.all_presets()]


def preset_config(name: str) -> RunConfig | None:
    try:
        return presets.get_preset(name).config
    except presets.UnknownPresetError:
        return None
