"""Schemas of the comparison of 2 to 6 runs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from spanload.api.schemas.runs import RunPublic
from spanload.model.samples import Summary


class ConfigDiffEntry(BaseModel):
    field: str = Field(description="dotted path, e.g. updater.transactions_per_second")
    values: list[Any] = Field(description="the value in each run, in the order of ids")


class RunSeries(BaseModel):
    run_id: str
    values: dict[str, list[float | None]] = Field(description="series name -> one value per elapsed_s point")


class CompareSeries(BaseModel):
    elapsed_s: list[float] = Field(description="the shared time axis: seconds since each run started")
    runs: list[RunSeries]


class MetricComparison(BaseModel):
    metric: str = Field(description="e.g. latency.updater.txn.p99, rates.updater.tps, totals.transactions")
    better: Literal["lower", "higher"] | None
    values: list[float | None]
    delta: list[float | None] = Field(description="value minus the baseline's (the first run)")
    percent_change: list[float | None] = Field(description="delta as a percentage of the baseline")


class ComparePublic(BaseModel):
    runs: list[RunPublic]
    config_diff: list[ConfigDiffEntry]
    series: CompareSeries
    summaries: list[Summary | None]
    metrics: list[MetricComparison]
