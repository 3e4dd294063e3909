"""A run's load profile: a schedule of stages that the engine (engine/profiles.py) turns into live
patches of one rate, so that both worker runtimes follow it without knowing it exists.

A profile drives ``updater.transactions_per_second`` of a built-in workload, or one operation of a
workload definition: its ``rate`` when the operation is open loop, its ``concurrency`` (the stage's
figure rounded to a whole number of executors) when it is closed loop. Its stages, in order:

- ``hold``: one rate for a duration (``100:30s``);
- ``ramp``: linearly from one rate to another over a duration (``ramp:100-2000:5m``), patched in
  small steps (every ``ramp_step_s``, by default every report interval);
- ``step``: up by an increment every N seconds until a rate is reached (``step:100/30s:2000``,
  from where the previous stage ended; ``step:500+100/30s:2000`` from 500): 600, 700, ... 2000,
  each level held N seconds.

The bounds of a stage's figures are written once here; the value each stage sets must also fit the
field it patches (checked by the run config, through the patch itself).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from spanload.model.workload import WorkloadDefinition, duration_ms

StageRate = Annotated[float, Field(gt=0, le=100_000)]
StageSeconds = Annotated[float, Field(gt=0, le=7 * 24 * 3600)]
RampStepS = Annotated[float, Field(ge=0.1, le=3600)]
MAX_STAGES = 1000
UPDATER = "updater"  # the profile's operation when it drives a built-in workload's updater


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HoldStage(_Strict):
    kind: Literal["hold"] = "hold"
    rate: StageRate = Field(description="the rate held (closed loop: executors)")
    duration_s: StageSeconds


class RampStage(_Strict):
    kind: Literal["ramp"] = "ramp"
    from_rate: StageRate
    to_rate: StageRate
    duration_s: StageSeconds


class StepStage(_Strict):
    kind: Literal["step"] = "step"
    from_rate: StageRate | None = Field(
        default=None, description="the level before the first step; default where the previous stage ended (0 first)"
    )
    increment: StageRate = Field(description="added every every_s seconds")
    every_s: StageSeconds
    to_rate: StageRate = Field(description="the last level (the increments stop there)")


Stage = Annotated[HoldStage | RampStage | StepStage, Field(discriminator="kind")]


@dataclass(frozen=True)
class Planned:
    """One stage placed on the profile's clock, with the rate it sets at each point of it."""

    index: int
    stage: HoldStage | RampStage | StepStage
    start_s: float
    duration_s: float
    begin_rate: float  # a step stage's level before its first step

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s

    def rate(self, offset_s: float) -> float:
        """The rate ``offset_s`` seconds into the stage."""
        match self.stage:
            case HoldStage(rate=rate):
                return rate
            case RampStage(from_rate=a, to_rate=b):
                return a + (b - a) * min(max(offset_s / self.duration_s, 0.0), 1.0)
            case StepStage(increment=inc, every_s=every, to_rate=to):
                level = math.floor(offset_s / every + 1e-9) + 1
                return min(self.begin_rate + inc * level, to)
        raise AssertionError(self.stage)

    def end_rate(self) -> float:
        return self.rate(self.duration_s)

    def levels(self) -> list[float]:
        """Every rate the stage sets, first to last (a ramp: its two ends)."""
        match self.stage:
            case StepStage(every_s=every):
                return [self.rate(i * every) for i in range(round(self.duration_s / every))]
            case RampStage(from_rate=a, to_rate=b):
                return [a, b]
            case HoldStage(rate=rate):
                return [rate]
        raise AssertionError(self.stage)


class Profile(_Strict):
    """A schedule of stages applied to one rate of the run."""

    operation: str | None = Field(
        default=None,
        description="a definition's operation whose rate (or concurrency, closed loop) it drives; "
        "none (or 'updater') for a built-in workload's updater.transactions_per_second",
    )
    stages: list[Stage] = Field(min_length=1, max_length=MAX_STAGES)
    ramp_step_s: RampStepS | None = Field(
        default=None, description="how often a ramp's rate is patched (default: every report interval)"
    )
    stop_at_end: bool = Field(default=True, description="stop the run when the last stage ends")

    @model_validator(mode="after")
    def _steps_go_up(self) -> Self:
        self.plan()
        return self

    def plan(self) -> list[Planned]:
        """The stages on the profile's clock. Raises ValueError naming a step stage that cannot go up."""
        out: list[Planned] = []
        start, previous = 0.0, 0.0
        for index, stage in enumerate(self.stages):
            begin = previous
            match stage:
                case StepStage(from_rate=given, increment=inc, every_s=every, to_rate=to):
                    begin = previous if given is None else given
                    if begin >= to:
                        raise ValueError(
                            f"stages.{index}: a step stage goes up, but it starts at {begin:g} "
                            f"and its to_rate is {to:g}"
                        )
                    duration = math.ceil((to - begin) / inc - 1e-9) * every
                case _:
                    duration = stage.duration_s
            planned = Planned(index=index, stage=stage, start_s=start, duration_s=duration, begin_rate=begin)
            out.append(planned)
            start, previous = planned.end_s, planned.end_rate()
        return out

    def total_s(self) -> float:
        return self.plan()[-1].end_s

    def values(self) -> list[float]:
        """Every rate the profile can set (for the bounds of the field it patches)."""
        return [v for p in self.plan() for v in p.levels()]


def at(plan: list[Planned], position_s: float) -> Planned | None:
    """The stage under way at ``position_s`` on the profile's clock; None past the end."""
    for planned in plan:
        if position_s < planned.end_s - 1e-9:
            return planned
    return None


def is_closed_loop(operation: str | None, definition: WorkloadDefinition | None) -> bool:
    return definition is not None and definition.operations[operation or ""].rate is None


def patch_for(operation: str | None, definition: WorkloadDefinition | None, value: float) -> dict[str, Any]:
    """The live patch (ConfigPatch's shape) that sets the driven rate (a profile's, a capacity
    search's) to ``value``."""
    if definition is None:
        return {"updater": {"transactions_per_second": value}}
    if is_closed_loop(operation, definition):
        return {"operations": {operation: {"concurrency": max(1, round(value))}}}
    return {"operations": {operation: {"rate": value}}}


def field_of(operation: str | None, definition: WorkloadDefinition | None) -> str:
    """The dotted config field a profile or a capacity search drives."""
    if definition is None:
        return "updater.transactions_per_second"
    leaf = "concurrency" if is_closed_loop(operation, definition) else "rate"
    return f"operations.{operation}.{leaf}"


def check_target(section: str, operation: str | None, definition: WorkloadDefinition | None) -> None:
    """``section`` (profile, capacity) names what it can drive. Raises ValueError naming its operation."""
    if definition is None:
        if operation not in (None, UPDATER):
            raise ValueError(
                f"{section}.operation {operation!r}: with a built-in workload it drives the updater "
                "(leave it out); operations belong to a workload definition"
            )
        return
    if operation is None or operation not in definition.operations:
        raise ValueError(
            f"{section}.operation: name the operation of workload {definition.name!r} it drives "
            f"(one of {', '.join(definition.operations)}; got {operation!r})"
        )


def parse_stages(text: str) -> list[Stage]:
    """``'100:30s,ramp:100-2000:5m,step:100/30s:3000,2000:1m'`` as stages. Raises ValueError
    naming the stage that is not one of ``RATE:DURATION``, ``ramp:FROM-TO:DURATION``,
    ``step:[FROM+]INCREMENT/EVERY:TO``."""
    stages: list[Stage] = []
    for number, part in enumerate(p.strip() for p in text.split(",")):
        try:
            stages.append(_stage(part))
        except (ValueError, TypeError) as err:
            raise ValueError(
                f"stage {number + 1} {part!r} is not RATE:DURATION, ramp:FROM-TO:DURATION or "
                f"step:[FROM+]INCREMENT/EVERY:TO (e.g. 100:30s, ramp:100-2000:5m, step:100/30s:2000): {err}"
            ) from None
    return stages


def _stage(part: str) -> Stage:
    head, _, rest = part.partition(":")
    if head == "ramp":
        rates, _, duration = rest.partition(":")
        low, _, high = rates.partition("-")
        return RampStage(from_rate=float(low), to_rate=float(high), duration_s=duration_ms(duration) / 1000)
    if head == "step":
        how, _, to = rest.partition(":")
        start, plus, increment_every = how.rpartition("+") if "+" in how else ("", "", how)
        increment, _, every = increment_every.partition("/")
        return StepStage(
            from_rate=float(start) if plus else None,
            increment=float(increment),
            every_s=duration_ms(every) / 1000,
            to_rate=float(to),
        )
    return HoldStage(rate=float(head), duration_s=duration_ms(rest) / 1000)


class ProfileAction(StrEnum):
    """A live edit of a running profile."""

    SKIP = "skip"  # end the current stage now: the next one begins
    EXTEND = "extend"  # the current stage lasts ``seconds`` longer (its rate held meanwhile), then goes on
    ABANDON = "abandon"  # the profile stops here; the rate it set last holds until the run ends


class ProfileEdit(_Strict):
    action: ProfileAction
    seconds: StageSeconds | None = Field(default=None, description="extend: how many seconds longer")

    @model_validator(mode="after")
    def _extend_says_how_long(self) -> Self:
        if (self.action is ProfileAction.EXTEND) != (self.seconds is not None):
            raise ValueError("seconds goes with action 'extend', and only with it")
        return self


class ProfileStatus(BaseModel):
    """Where a running profile is."""

    stage: int | None = Field(description="0-based index of the stage under way; None once it ended or was abandoned")
    stages: int
    position_s: float = Field(description="seconds into the profile (paused time not counted)")
    total_s: float = Field(description="the profile's length, skips and extensions included")
    rate: float | None = Field(description="the value it set last")
    abandoned: bool = False
    ended: bool = False
