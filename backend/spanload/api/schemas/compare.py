"""Schemas of the comparison of 2 to 6 runs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from spanload.api.schemas.runs import RunPublic
from spanload.model.breakdown import Breakdown
from spanload.model.interface_compare import InterfaceQuestion
from spanload.model.samples import Summary


class ConfigDiffEntry(BaseModel):
    field: str = Field(description="dotted path, e.g. updater.transactions_per_second")
    values: list[Any] = Field(description="the value in each run at its start, in the order of ids")
    at_end: list[Any] = Field(description="the value in each run at its end (differs where it was changed live)")


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
    unavailable: list[str | None] = Field(
        description="why a run has no value for it, where the run says (e.g. no complete SPANNER_SYS minute)"
    )
    uncertainty: list[float | None] = Field(
        description="how far the delta's 99 % interval reaches from the delta towards zero, from both runs' "
        "interval-to-interval variation (a bootstrap over their report intervals); null for the baseline and "
        "where it cannot be told"
    )
    significant: list[bool | None] = Field(
        description="that interval excludes zero (the delta exceeds its uncertainty); "
        "null: not assessed (baseline, totals, too few intervals)"
    )


class KeyMetric(BaseModel):
    metric: str = Field(description="a metric of ``metrics``")
    label: str = Field(description="what it measures, in words")


class ComparePublic(BaseModel):
    runs: list[RunPublic]
    breakdowns: list[dict[str, Breakdown]] = Field(
        description="each run's breakdown per operation kind, with the same parts in every run (where one run "
        "cannot split the server's time by SPANNER_SYS, no run does)"
    )
    breakdown_notes: dict[str, str] = Field(
        description="operation kind -> why its server time is shown whole: which run lacked the split"
    )
    key_metrics: list[KeyMetric] = Field(
        description="the compared workloads' key figures (model/key_figures.py), the rows compare opens with"
    )
    config_diff: list[ConfigDiffEntry]
    interfaces: list[InterfaceQuestion] = Field(
        default_factory=list,
        description="the PostgreSQL-interface report's questions these runs answer (model/interface_compare.py): "
        "PGAdapter's added latency (pgadapter against postgresql), the PostgreSQL dialect against GoogleSQL",
    )
    series: CompareSeries
    summaries: list[Summary | None]
    metrics: list[MetricComparison]
