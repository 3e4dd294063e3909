"""/api/compare: 2 to 6 runs side by side."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import APIRouter, Query
from sqlalchemy.orm import Session

from spanload.api.deps import HubDep, SessionDep
from spanload.api.schemas.compare import (
    ComparePublic,
    CompareSeries,
    ConfigDiffEntry,
    KeyMetric,
    MetricComparison,
    RunSeries,
)
from spanload.api.schemas.runs import MAX_POINTS, RunsNow, run_public
from spanload.control import compare
from spanload.model.errors import RunInvalid, RunNotFound
from spanload.model.interface_compare import interface_questions
from spanload.model.key_figures import key_figures
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store import summaries
from spanload.store.models import RunRow

router = APIRouter(tags=["compare"])

MIN_RUNS, MAX_RUNS = 2, 6


def compared_rows(session: Session, ids: str) -> list[RunRow]:
    """The runs ``ids`` names (2 to 6, comma-separated), in order. Raises :class:`RunInvalid` or
    :class:`RunNotFound` naming the missing ones."""
    run_ids = [i.strip() for i in ids.split(",") if i.strip()]
    if not MIN_RUNS <= len(run_ids) <= MAX_RUNS:
        raise RunInvalid(f"ids must name {MIN_RUNS} to {MAX_RUNS} runs, comma-separated (got {len(run_ids)})")
    if len(set(run_ids)) != len(run_ids):
        raise RunInvalid("ids must not repeat a run")
    rows = run_store.get_runs(session, run_ids)
    missing = [run_id for run_id, row in zip(run_ids, rows, strict=True) if row is None]
    if missing:
        raise RunNotFound(f"runs not found: {', '.join(missing)}")
    return [row for row in rows if row is not None]


@router.get(
    "/compare",
    responses={404: {"description": "a run does not exist"}, 422: {"description": "invalid ids"}},
)
def compare_runs(
    session: SessionDep,
    hub: HubDep,
    ids: Annotated[
        str, Query(max_length=1000, description="2 to 6 run ids, comma-separated; the first is the baseline")
    ],
    max_points: Annotated[int, Query(ge=2, le=MAX_POINTS)] = 1000,
) -> ComparePublic:
    """Configs, the fields where they differ, series aligned by elapsed time, and whole-run summaries
    with each metric's delta and percent change against the first run, and whether that delta lies
    beyond the runs' own interval-to-interval noise."""
    return comparison(session, hub, ids, max_points)


def comparison(session: Session, now: RunsNow, ids: str, max_points: int = 1000) -> ComparePublic:
    """The comparison of the runs ``ids`` names (the route's body; `spanload runs compare` on the
    store passes STORE_ONLY as ``now``)."""
    found = compared_rows(session, ids)
    run_ids = [row.id for row in found]
    runs_summaries = [summaries.summary_of(session, row) for row in found]
    runs_samples = [sample_store.list_samples(session, row.id) for row in found]
    axis, aligned = compare.align(runs_samples, max_points)
    deltas = compare.metric_deltas(runs_summaries, runs_samples)
    present = {m.metric for m in deltas}
    events = run_store.config_change_events(session, run_ids)
    runs = [
        run_public(row, now, summary=s, events=events[row.id]) for row, s in zip(found, runs_summaries, strict=True)
    ]
    breakdowns, notes = compare.common_breakdowns(runs_summaries)
    interfaces = [compare.interface_of(row.config) for row in found]
    latencies = [s.latency if s is not None else None for s in runs_summaries]
    return ComparePublic(
        runs=runs,
        breakdowns=breakdowns,
        breakdown_notes=notes,
        key_metrics=[
            KeyMetric(metric=m, label=label)
            for m, label in key_figures(compare.workload_of(row.config) for row in found)
            if m in present
        ],
        config_diff=[
            ConfigDiffEntry(field=f, values=v, at_end=e)
            for f, v, e in compare.config_diff([row.config for row in found], [r.live_changes for r in runs])
        ],
        interfaces=interface_questions(interfaces, latencies),
        series=CompareSeries(
            elapsed_s=axis, runs=[RunSeries(run_id=row.id, values=v) for row, v in zip(found, aligned, strict=True)]
        ),
        summaries=runs_summaries,
        metrics=[MetricComparison(**dataclasses.asdict(m)) for m in deltas],
    )
