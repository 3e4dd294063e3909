"""/api/runs/{id}/report and /api/compare/report: the self-contained HTML reports
(control/report/), to save, attach to a ticket or mail."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from spanload.api.compare import compared_rows
from spanload.api.deps import SessionDep
from spanload.control.report.build import compare_report, run_report, threshold_verdicts
from spanload.model.errors import RunNotFound
from spanload.store import runs as run_store

router = APIRouter(tags=["reports"])

RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {}}, "description": "one HTML file: inline CSS and SVG charts, no external URL"},
    404: {"description": "no run with this id"},
    422: {"description": "invalid ids, or a threshold that does not parse or names no figure of the run"},
}


def _attachment(html: str, filename: str) -> HTMLResponse:
    return HTMLResponse(html, headers={"Content-Disposition": f'inline; filename="{filename}"'})


@router.get("/runs/{run_id}/report", response_class=HTMLResponse, responses=RESPONSES)
def get_run_report(
    run_id: str,
    session: SessionDep,
    threshold: Annotated[
        list[str] | None,
        Query(
            max_length=50,
            description="`spanload run --threshold` expressions (NAME<OP>NUMBER); their verdicts head the report",
        ),
    ] = None,
) -> HTMLResponse:
    """The run's report: summary, charts, breakdown, workers, timeline, notes, and its config with
    its differences from its preset; with ``threshold``s, their verdicts first."""
    row = run_store.get_run(session, run_id)
    if row is None:
        raise RunNotFound.of(run_id)
    verdicts = threshold_verdicts(session, row, threshold or [])
    return _attachment(run_report(session, row, verdicts), f"spanload-{row.id}.html")


@router.get("/compare/report", response_class=HTMLResponse, responses=RESPONSES)
def get_compare_report(
    session: SessionDep,
    ids: Annotated[
        str, Query(max_length=1000, description="2 to 6 run ids, comma-separated; the first is the baseline")
    ],
) -> HTMLResponse:
    """The comparison of 2 to 6 runs as one HTML file."""
    found = compared_rows(session, ids)
    return _attachment(compare_report(session, found), "spanload-compare.html")
