"""Capacity search (``config.capacity``): raise the load step by step until a stop condition breaks,
then report the knee (the last step that held) and every step's figures. The engine runs it
(engine/capacity.py) with live patches of the same field a profile drives (model/profile.py): the
updater's rate, or one open-loop operation's of a definition."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from spanload.model.profile import StageRate

StepSeconds = Annotated[float, Field(ge=1, le=3600)]
Percent = Annotated[float, Field(gt=0, le=100)]
LatencyMs = Annotated[float, Field(gt=0, le=600_000)]
IN_FLIGHT_BUSY = 0.9  # the workers' executors this busy on the mean (Little's law) are the limit
CLIENT_CPU_BUSY = 0.85  # a worker using this much of one core is the limit itself (Python: the GIL)
MACHINE_BUSY = 0.9  # the workers and a local Spanner together using this share of the machine's cores


class CapacityConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    operation: str | None = Field(
        default=None, description="a definition's open-loop operation to raise; none for the updater"
    )
    start_rate: StageRate = Field(description="the first step's rate")
    step: StageRate = Field(description="added to the rate after each step that held")
    max_rate: StageRate = Field(description="the search ends here if nothing broke")
    min_step_s: StepSeconds = Field(default=10, description="each step holds at least this long")
    max_step_s: StepSeconds = Field(default=60, description="a step not yet stable is judged anyway after this")
    stability_pct: Percent = Field(
        default=10, description="stable: the percentile of the step's latest intervals within this % of the ones before"
    )
    percentile: Literal["p50", "p95", "p99"] = Field(default="p99", description="the latency percentile judged")
    latency_ms: LatencyMs | None = Field(
        default=None, description="breaks when the percentile (from the intended start) is above this"
    )
    errors_pct: Percent | None = Field(default=1.0, description="breaks when failed operations are above this %")
    achieved_pct: Percent | None = Field(default=90, description="breaks when the achieved rate is below this % of it")
    server_cpu_pct: Annotated[float, Field(gt=0, le=10_000)] | None = Field(
        default=None, description="breaks when server.cpu_fraction is above this % of one CPU (where reported)"
    )
    bisect: Annotated[int, Field(ge=0, le=10)] = Field(
        default=0,
        description="after the first step that broke, this many more steps halve the gap between the highest "
        "rate that held and the lowest that broke",
    )
    back_off_s: Annotated[float, Field(ge=0, le=3600)] = Field(
        default=0,
        description="before each bisection step, the rate that held last is held this long (not judged), and "
        "on until the broken step's backlog drained (at most 4 times this long)",
    )
    also: list[Annotated[str, Field(max_length=300)]] = Field(
        default_factory=list,
        max_length=20,
        description="more conditions that break a step, over its judged intervals: 'notify.p99_ms>2000' "
        "(a latency from the step's merged histogram), 'watcher.lag_ms>5000' (a gauge's mean)",
    )

    @model_validator(mode="after")
    def _sane(self) -> Self:
        from spanload.model.conditions import parse  # conditions -> samples -> this module

        for text in self.also:
            parse(text)
        if self.start_rate > self.max_rate:
            raise ValueError(f"capacity.start_rate {self.start_rate:g} is above capacity.max_rate {self.max_rate:g}")
        if self.min_step_s > self.max_step_s:
            raise ValueError("capacity.min_step_s is above capacity.max_step_s")
        return self


class Limit(StrEnum):
    DATABASE = "database"  # a stop condition broke while the workers kept up
    CLIENT = "client"  # the workers could not produce the load: the busiest used a core, or every executor was busy
    MACHINE = "machine"  # the workers and the local Spanner on it used the machine's cores between them
    MAX_RATE = "max_rate"  # nothing broke up to max_rate
    STOPPED = "stopped"  # the run ended before a step broke


class CapacityStep(BaseModel):
    rate: float = Field(description="the target of the step")
    achieved: float = Field(description="operations per second achieved over the judged intervals")
    p50: float | None = None
    p95: float | None = None
    p99: float | None = None
    errors_pct: float = 0.0
    server_cpu: float | None = Field(default=None, description="mean server.cpu_fraction (fraction of one CPU)")
    client_cpu: float | None = Field(default=None, description="the busiest worker's CPU, fraction of one core")
    client_cpu_total: float | None = Field(default=None, description="every worker's CPU, in cores")
    machine_cpu: float | None = Field(
        default=None, description="every process of the workers' machine, in cores (where the OS says)"
    )
    behind: float = Field(default=0.0, description="most arrivals due but not started at an interval's end")
    in_flight: float | None = Field(
        default=None,
        description="operations in flight on the mean (achieved times the mean latency from the actual start)",
    )
    seconds: float = Field(description="judged intervals' length")
    stable: bool = Field(description="the percentile settled before max_step_s")
    held: bool
    broke_by: list[str] = Field(default_factory=list, description="the stop conditions it broke, as sentences")


class CapacityResult(BaseModel):
    knee: float | None = Field(
        description="the highest rate that held below the lowest that broke; None if the first step broke"
    )
    limited_by: Limit
    broke_by: list[str] = Field(default_factory=list, description="what the step after the knee broke")
    note: str = ""
    steps: list[CapacityStep] = Field(default_factory=list)


class CurvePoint(BaseModel):
    """One judged step on the latency-throughput curve."""

    rate: float = Field(description="the step's target")
    achieved: float = Field(description="operations per second achieved: the curve's x")
    p50: float | None = Field(description="ms from the intended start")
    p95: float | None
    p99: float | None
    held: bool
    knee: bool = Field(description="the knee: the highest rate that held below the lowest that broke")


class CapacityCurve(BaseModel):
    """A capacity search's curve: latency (p50, p95, p99 from the intended start) against achieved
    throughput, one point per judged step in order of rate, the knee marked. For a run under way,
    the steps judged so far (``limited_by`` None)."""

    knee: float | None
    limited_by: Limit | None = None
    broke_by: list[str] = Field(default_factory=list)
    points: list[CurvePoint]


def curve(steps: list[CapacityStep], result: CapacityResult | None = None) -> CapacityCurve:
    """The curve of ``steps`` (a finished search's, or those judged so far); the knee from
    ``result`` when the search is over, else the highest rate that held below the lowest that broke."""
    if result is not None:
        knee = result.knee
    else:
        lowest_broken = min((s.rate for s in steps if not s.held), default=None)
        below = [s.rate for s in steps if s.held and (lowest_broken is None or s.rate < lowest_broken)]
        knee = max(below, default=None)
    points = [
        CurvePoint(
            rate=s.rate,
            achieved=s.achieved,
            p50=s.p50,
            p95=s.p95,
            p99=s.p99,
            held=s.held,
            knee=s.held and s.rate == knee,
        )
        for s in sorted(steps, key=lambda s: s.rate)
    ]
    return CapacityCurve(
        knee=knee,
        limited_by=None if result is None else result.limited_by,
        broke_by=[] if result is None else result.broke_by,
        points=points,
    )
