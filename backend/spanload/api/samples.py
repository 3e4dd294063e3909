"""/api/runs/{id}/samples and /export: a run's time series, downsampled; everything, exported."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from sqlalchemy.orm import Session

from spanload.api.deps import HubDep, SessionDep
from spanload.api.schemas.runs import (
    MAX_POINTS,
    STORE_ONLY,
    ExportFormat,
    RunExport,
    RunsNow,
    SamplesPublic,
    event_public,
    run_public,
)
from spanload.control.capacity_curve import curve_of
from spanload.control.csv_export import intervals_csv, summary_csv
from spanload.model.capacity import CapacityCurve
from spanload.model.errors import RunInvalid, RunNotFound
from spanload.model.samples import Summary
from spanload.model.series import downsample
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store import summaries
from spanload.store.hdr import unpack_b64
from spanload.store.models import RunRow

router = APIRouter(prefix="/runs", tags=["samples"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no run with this id"},
    422: {"description": "invalid request"},
}


@router.get("/{run_id}/samples", responses=ERRORS)
def get_samples(
    run_id: str,
    session: SessionDep,
    from_s: Annotated[float | None, Query(alias="from", ge=0, allow_inf_nan=False, description="elapsed s")] = None,
    to_s: Annotated[float | None, Query(alias="to", ge=0, allow_inf_nan=False, description="elapsed s")] = None,
    max_points: Annotated[int, Query(ge=2, le=MAX_POINTS)] = 1000,
) -> SamplesPublic:
    """The run's samples between elapsed times ``from`` and ``to`` (seconds). When more exist than
    ``max_points``, they are downsampled on the server, keeping each bucket's minimum and maximum."""
    if run_store.get_run(session, run_id) is None:
        raise RunNotFound.of(run_id)
    if from_s is not None and to_s is not None and from_s > to_s:
        raise RunInvalid(f"from ({from_s:g}) must not be after to ({to_s:g})")
    samples = sample_store.list_samples(session, run_id, from_s, to_s)
    points = downsample(samples, max_points)
    return SamplesPublic(data=points, count=len(points), total=len(samples), downsampled=len(points) < len(samples))


@router.get(
    "/{run_id}/export",
    responses={
        **ERRORS,
        200: {"content": {"application/json": {}, "text/csv": {}}, "description": "the run, as JSON or CSV"},
    },
)
def export_run(run_id: str, session: SessionDep, hub: HubDep, format: ExportFormat = ExportFormat.JSON) -> Response:
    """JSON: the run, its events, every sample (with histograms) and the histogram rollups.
    CSV: one row per interval, one column per series; summary-csv: the whole-run figures, one
    ``name,value,unit`` row each. CSV headers carry units: durations in ms, rates per second."""
    row = run_store.get_run(session, run_id)
    if row is None:
        raise RunNotFound.of(run_id)
    headers = {"Content-Disposition": f'attachment; filename="spanload-{row.id}{format.filename_suffix}"'}
    if format is ExportFormat.CSV:
        return Response(
            intervals_csv(sample_store.list_samples(session, run_id)), media_type="text/csv", headers=headers
        )
    summary = None if row.status.is_active else summaries.summary_of(session, row)
    if format is ExportFormat.SUMMARY_CSV:
        return Response(summary_csv(row, summary), media_type="text/csv", headers=headers)
    export = run_export(session, row, summary, hub)
    return Response(export.model_dump_json(), media_type="application/json", headers=headers)


def run_export(session: Session, row: RunRow, summary: Summary | None, now: RunsNow = STORE_ONLY) -> RunExport:
    """The JSON export's document (also `spanload runs export` on the store, where nothing is going)."""
    events = run_store.list_events(session, row.id)
    return RunExport(
        capacity_curve=curve_of(session, row, events),
        run=run_public(row, now, summary=summary, events=events),
        events=[event_public(e) for e in events],
        samples=sample_store.list_samples_with_hdr(session, row.id),
        hdr_rollups=[
            {"first_seq": r.first_seq, "last_seq": r.last_seq, "hdr": unpack_b64(r.hdr)}
            for r in sample_store.list_rollups(session, row.id)
        ],
    )


@router.get("/{run_id}/capacity-curve", responses=ERRORS)
def capacity_curve(run_id: str, session: SessionDep) -> CapacityCurve:
    """The run's capacity search as a curve: latency (p50, p95, p99 from the intended start)
    against achieved throughput, one point per judged step (so far, for a run under way), the knee
    marked."""
    row = run_store.get_run(session, run_id)
    if row is None:
        raise RunNotFound.of(run_id)
    found = curve_of(session, row)
    if found is None:
        raise RunNotFound(f"run {run_id!r} has no capacity search, or none of its steps has been judged yet")
    return found
