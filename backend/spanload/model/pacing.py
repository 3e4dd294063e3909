"""An operation's pacing as it is run: its definition's, with the run's knob values and the
config's per-operation overrides (``config.operations.<name>``) laid over it. Both runtimes get the
resolved figures in nothing but the definition, the knobs and the overrides of the ``start`` and
``patch`` messages, and resolve them by the same rule: an override wins, then the definition's
literal or knob."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from spanload.model.field_words import words
from spanload.model.workload import KnobValue, Operation, WorkloadDefinition, duration_ms, is_ref, ref_name

OpRate = Annotated[float, Field(gt=0, le=100_000)]
OpInFlight = Annotated[int, Field(ge=1, le=4096)]
OpThinkMs = Annotated[float, Field(ge=0, le=600_000)]


class OperationPacing(BaseModel):
    """Overrides of one operation's pacing for a run; unset fields keep the definition's."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = Field(None, description="run this operation", json_schema_extra=words("on", "on"))
    rate: OpRate | None = Field(
        None, description="open loop: executions per second", json_schema_extra=words("rate", "rate", "/s")
    )
    max_in_flight: OpInFlight | None = Field(
        None,
        description="open loop: executions running at most",
        json_schema_extra=words("in flight", "in flight", "in flight"),
    )
    concurrency: OpInFlight | None = Field(
        None, description="closed loop: executors", json_schema_extra=words("concurrency", "concurrency", "executors")
    )
    think_time_ms: OpThinkMs | None = Field(
        None,
        description="closed loop: pause after each execution, ms",
        json_schema_extra=words("think time", "think", "ms"),
    )


class ResolvedPacing(BaseModel):
    """What a worker runs: the whole run's figures (a worker takes its share of rate and executors)."""

    enabled: bool
    rate: float | None = Field(description="open loop: executions per second; None for closed loop")
    max_in_flight: int
    concurrency: int | None = Field(description="closed loop: executors; None for open loop")
    think_time_ms: float


def _knob_number(definition: WorkloadDefinition, knobs: dict[str, KnobValue], value: object) -> float:
    if isinstance(value, str) and is_ref(value):
        name = ref_name(value)
        raw = knobs.get(name, definition.knobs[name].default)
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise ValueError(f"{value} is a {definition.knobs[name].kind} knob where a number goes")
        return float(raw)
    assert isinstance(value, int | float)
    return float(value)


def knob_duration_ms(definition: WorkloadDefinition, knobs: dict[str, KnobValue], value: str) -> float:
    """A duration field's milliseconds: ``"250ms"``, or a ``$knob`` (whose value is in ms)."""
    return _knob_number(definition, knobs, value) if is_ref(value) else duration_ms(value)


def resolve(
    definition: WorkloadDefinition,
    name: str,
    knobs: dict[str, KnobValue],
    override: OperationPacing | None = None,
) -> ResolvedPacing:
    """Operation ``name``'s pacing with ``knobs`` (unset knobs at their defaults) and ``override``."""
    op: Operation = definition.operations[name]
    o = override or OperationPacing()
    open_loop = op.rate is not None
    rate = o.rate if o.rate is not None else _knob_number(definition, knobs, op.rate) if open_loop else None
    concurrency = (
        None
        if open_loop
        else o.concurrency
        if o.concurrency is not None
        else int(_knob_number(definition, knobs, op.concurrency))
    )
    return ResolvedPacing(
        enabled=op.enabled if o.enabled is None else o.enabled,
        rate=rate,
        max_in_flight=o.max_in_flight or int(_knob_number(definition, knobs, op.max_in_flight)),
        concurrency=concurrency,
        think_time_ms=o.think_time_ms
        if o.think_time_ms is not None
        else knob_duration_ms(definition, knobs, op.think_time),
    )


def check_overrides(definition: WorkloadDefinition, overrides: dict[str, OperationPacing]) -> None:
    """Each override names an operation of the definition and fits its loop. Raises ValueError
    naming ``operations.<name>.<field>``."""
    for name, o in overrides.items():
        if name not in definition.operations:
            raise ValueError(
                f"operations.{name}: no such operation in workload {definition.name!r} "
                f"(operations: {', '.join(definition.operations)})"
            )
        op = definition.operations[name]
        if op.rate is None and (o.rate is not None or o.max_in_flight is not None):
            field = "rate" if o.rate is not None else "max_in_flight"
            raise ValueError(f"operations.{name}.{field}: {name} is closed loop (concurrency), not open loop")
        if op.rate is not None and (o.concurrency is not None or o.think_time_ms is not None):
            field = "concurrency" if o.concurrency is not None else "think_time_ms"
            raise ValueError(f"operations.{name}.{field}: {name} is open loop (rate), not closed loop")
