"""Schemas of the runs resource."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Protocol, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from spanload.api.schemas.common import Name, Tag, Text, reject_nul
from spanload.control.live_changes import live_changes
from spanload.model.capacity import CapacityCurve
from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.live import EventPublic, LiveChange
from spanload.model.samples import Gauge, Op, Sample, Summary
from spanload.model.state import RunState
from spanload.model.stored_config import read_stored
from spanload.store.models import EventRow, RunRow

MAX_LIMIT = 500
MAX_OFFSET = 1_000_000_000
MAX_POINTS = 20_000


class RunCreate(BaseModel):
    """Start a run from a full ``config``, or from a ``preset`` with ``overrides`` deep-merged onto it."""

    model_config = ConfigDict(extra="forbid")

    preset: Name | None = Field(default=None, description="a preset name from GET /api/presets")
    config: RunConfig | None = Field(default=None, description="a whole run config (instead of a preset)")
    definition_name: Name | None = Field(
        default=None,
        description="run a workload definition (GET /api/workloads) by name: a built-in, else a saved one",
    )
    definition_version: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="with definition_name: that version of the saved definition (default: its latest)"
    )
    overrides: dict[str, Any] = Field(
        default_factory=dict, description="fields of RunConfig deep-merged onto the preset's (or default) config"
    )
    name: Name | None = None
    notes: Annotated[Text, Field(max_length=10_000)] | None = None
    tags: Annotated[list[Tag], Field(max_length=50)] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if self.preset is not None and self.config is not None:
            raise ValueError("give either preset (with overrides) or config, not both")
        reject_nul(self.overrides, "overrides")
        if self.config is not None:
            reject_nul(self.config.model_dump(mode="json"), "config")
        return self


class RunUpdate(BaseModel):
    """Rename a run and set its notes and tags."""

    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    notes: Annotated[Text, Field(max_length=10_000)] | None = None
    tags: Annotated[list[Tag], Field(max_length=50)] | None = None


class Headline(BaseModel):
    """The figures the runs table shows."""

    achieved_tps: float | None = None
    updater_p99_ms: float | None = None
    notify_p50_ms: float | None = None
    reads_p99_ms: float | None = None


class RunPublic(BaseModel):
    id: str
    name: str
    preset: str | None
    target_kind: str
    status: RunState
    config: RunConfig = Field(description="the config the run started with")
    current_config: RunConfig = Field(description="the config after every live change")
    config_problem: str | None = Field(
        default=None,
        description="the fields of the stored config this version of Spanload cannot read (left out of config)",
    )
    live_changes: list[LiveChange] = Field(
        default_factory=list, description="each field changed while the run ran: at start, at end, and when"
    )
    notes: str
    tags: list[str]
    created_at: datetime
    started_at: datetime | None
    ended_at: datetime | None
    duration_s: float = Field(description="seconds of samples recorded")
    failure_reason: str | None
    sample_count: int
    headline: Headline
    summary: Summary | None


class RunsPublic(BaseModel):
    data: list[RunPublic]
    count: int = Field(description="runs matching the filters, over all pages")


class SamplesPublic(BaseModel):
    data: list[Sample]
    count: int = Field(description="points returned")
    total: int = Field(description="samples stored in the requested range")
    downsampled: bool


class ExportFormat(StrEnum):
    JSON = "json"
    CSV = "csv"  # one row per interval
    SUMMARY_CSV = "summary-csv"  # the whole-run figures, one name,value,unit row each

    @property
    def filename_suffix(self) -> str:
        return {ExportFormat.JSON: ".json", ExportFormat.CSV: ".csv", ExportFormat.SUMMARY_CSV: "-summary.csv"}[self]


class RunExport(BaseModel):
    """Everything stored for a run. Per-interval histograms are present for the intervals not yet
    rolled up; ``hdr_rollups`` holds the merged histograms of every earlier block."""

    run: RunPublic
    events: list[EventPublic]
    samples: list[Sample]
    hdr_rollups: list[dict[str, Any]]
    capacity_curve: CapacityCurve | None = Field(
        default=None, description="a capacity search's latency-throughput curve (none without a search)"
    )


def _ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def headline(summary: Summary | None, latest: Sample | None = None) -> Headline:
    if summary is not None:
        lat, rates = summary.latency, summary.rates
    elif latest is not None:
        lat, rates = latest.latency, latest.gauges
    else:
        return Headline()
    return Headline(
        achieved_tps=rates.get(Gauge.UPDATER_TPS),
        updater_p99_ms=lat[Op.UPDATER_TXN].p99 if Op.UPDATER_TXN in lat else None,
        notify_p50_ms=lat[Op.WATCHER_NOTIFY].p50 if Op.WATCHER_NOTIFY in lat else None,
        reads_p99_ms=lat[Op.READER_READ].p99 if Op.READER_READ in lat else None,
    )


class RunsNow(Protocol):
    """What the control plane knows of the going runs ahead of the store (control.hub.Hub): each
    run's newest sample and the engine's newest state."""

    @property
    def latest(self) -> Mapping[str, Sample]: ...

    @property
    def states(self) -> Mapping[str, RunState]: ...


@dataclass(frozen=True)
class _NothingGoing:
    """RunsNow where no engine runs: what the store holds is all there is (`spanload runs` opening it)."""

    latest: Mapping[str, Sample] = field(default_factory=dict)
    states: Mapping[str, RunState] = field(default_factory=dict)


STORE_ONLY: RunsNow = _NothingGoing()


def run_public(
    row: RunRow,
    now: RunsNow,
    summary: Summary | None = None,
    events: Sequence[EventRow] = (),
) -> RunPublic:
    """A run as every route shows it (GET, list, the control actions, the live snapshot, export,
    compare): one view, so that no route shows an older state than another.

    The engine's newest state (``now.states``), which the store may not hold yet (its writer runs
    behind), wins while both say the run is going: a GET after a live status message never reads
    an older one, and the live snapshot's status is never older than the events it holds (the live
    socket skips the status messages those events already hold). ``events``: the run's timeline
    (its config changes at least), for ``live_changes``."""
    live = now.states.get(row.id)
    latest = now.latest.get(row.id)
    status = live if live is not None and live.is_active and row.status.is_active else row.status
    if summary is None and row.summary is not None:
        summary = Summary.model_validate(row.summary)
    config, current = read_stored(row.config), read_stored(row.current_config)
    return RunPublic(
        id=row.id,
        name=row.name,
        preset=row.preset,
        target_kind=row.target_kind,
        status=status,
        config=config.config,
        current_config=current.config,
        config_problem=config.problem or current.problem,
        live_changes=live_changes(row.config, events),
        notes=row.notes,
        tags=list(row.tags),
        created_at=datetime.fromtimestamp(row.created_at, UTC),
        started_at=_ts(row.started_at),
        ended_at=_ts(row.ended_at),
        duration_s=row.last_elapsed_s,
        failure_reason=row.failure_reason,
        sample_count=row.sample_count,
        headline=headline(summary, latest),
        summary=summary,
    )


def event_public(row: EventRow) -> EventPublic:
    return EventPublic(
        id=row.id,
        t=datetime.fromtimestamp(row.t, UTC),
        elapsed_s=row.elapsed_s,
        kind=EventKind(row.kind),
        who=row.who,
        changes=row.changes,
    )
