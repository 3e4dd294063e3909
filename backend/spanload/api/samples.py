"""/api/runs/{id}/samples and /export: a run's time series, downsampled; everything, exported."""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from spanload.api.deps import HubDep, SessionDep
from spanload.api.schemas.runs import MAX_POINTS, ExportFormat, RunExport, SamplesPublic, event_public, run_public
from spanload.model.errors import RunInvalid, RunNotFound
from spanload.model.samples import Sample
from spanload.model.series import downsample, flatten
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store import summaries
from spanload.store.hdr import unpack_b64

router = APIRouter(prefix="/runs", tags=["samples"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no run with this id"},
    422: {"description": "invalid request"},
}
CSV_FIXED_COLUMNS = ("seq", "t", "elapsed_s", "interval_s")


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
    CSV: one row per interval, one column per series."""
    row = run_store.get_run(session, run_id)
    if row is None:
        raise RunNotFound.of(run_id)
    filename = f"spanload-{row.id}.{format.value}"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    if format is ExportFormat.CSV:
        return Response(_csv(sample_store.list_samples(session, run_id)), media_type="text/csv", headers=headers)
    summary = None if row.status.is_active else summaries.summary_of(session, row)
    events = run_store.list_events(session, run_id)
    export = RunExport(
        run=run_public(row, hub, summary=summary, events=events),
        events=[event_public(e) for e in events],
        samples=sample_store.list_samples_with_hdr(session, run_id),
        hdr_rollups=[
            {"first_seq": r.first_seq, "last_seq": r.last_seq, "hdr": unpack_b64(r.hdr)}
            for r in sample_store.list_rollups(session, run_id)
        ],
    )
    return Response(export.model_dump_json(), media_type="application/json", headers=headers)


def _csv(samples: list[Sample]) -> str:
    rows = [flatten(s) for s in samples]
    columns = sorted({c for r in rows for c in r})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_FIXED_COLUMNS, *columns])
    for sample, flat in zip(samples, rows, strict=True):
        writer.writerow(
            [sample.seq, sample.t, sample.elapsed_s, sample.interval_s, *(flat.get(c, "") for c in columns)]
        )
    return out.getvalue()
