"""GET /api/experiments: the seed reports' experiments (model/experiments.py), each variant with the
overrides that put it on the experiment's one database of this server's target, so that the UI
starts them with POST /api/runs back to back, as `spanload experiment NAME` does."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from spanload.api.deps import SettingsDep
from spanload.control.service import default_target
from spanload.model import presets
from spanload.model.experiments import EXPERIMENTS, Experiment
from spanload.model.tpcc import preload_rows

router = APIRouter(tags=["experiments"])


class KeyFigurePublic(BaseModel):
    metric: str = Field(description="a summary figure as thresholds name it, e.g. watcher.poll_server.p50_ms")
    label: str


class VariantPublic(BaseModel):
    preset: str = Field(description="the preset this variant runs (GET /api/presets)")
    description: str


class ExperimentPublic(BaseModel):
    name: str
    description: str
    variants: list[VariantPublic] = Field(description="in the order they run; the first is the baseline")
    figures: list[KeyFigurePublic] = Field(description="the figures the report measured, the first the one it is about")
    report: str = Field(description="what the seed report found")
    overrides: dict[str, Any] = Field(
        description="what every variant's POST /api/runs carries as overrides: one database of this server's "
        "target, the table size and the length"
    )
    duration_s: float = Field(description="each variant's length, unless the request overrides duration_s")
    preload_rows: int = Field(description="rows the table holds before the first variant")


def _public(experiment: Experiment, target: dict[str, Any]) -> ExperimentPublic:
    overrides = {**experiment.overrides, "target": {**target, **experiment.overrides.get("target", {})}}
    config = presets.make_config(experiment.variants[0], overrides)
    return ExperimentPublic(
        name=experiment.name,
        description=experiment.description,
        variants=[VariantPublic(preset=v, description=presets.get_preset(v).description) for v in experiment.variants],
        figures=[KeyFigurePublic(metric=f.metric, label=f.label) for f in experiment.figures],
        report=experiment.report,
        overrides=overrides,
        duration_s=config.duration_s or 0.0,
        preload_rows=preload_rows(config),
    )


@router.get("/experiments")
def list_experiments(settings: SettingsDep) -> list[ExperimentPublic]:
    target = default_target(settings)
    return [_public(e, target) for e in EXPERIMENTS.values()]
