"""/api/runs: start, list, read, rename, delete, live-change, pause, resume and stop runs."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response, status

from spanload.api.deps import HubDep, ServiceDep, SessionDep, SessionsDep
from spanload.api.run_definition import definition_overrides
from spanload.api.schemas.common import Text
from spanload.api.schemas.runs import (
    MAX_LIMIT,
    MAX_OFFSET,
    RunCreate,
    RunPublic,
    RunsPublic,
    RunUpdate,
    run_public,
)
from spanload.control.service import config_from, default_target
from spanload.model.config import ConfigPatch
from spanload.model.errors import RunInvalid, RunNotFound
from spanload.model.profile import ProfileEdit, ProfileStatus
from spanload.model.state import RunState
from spanload.store import runs as run_store
from spanload.store import summaries
from spanload.store.models import EventRow, RunRow

router = APIRouter(prefix="/runs", tags=["runs"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no run with this id"},
    409: {"description": "the run is not in a state that allows this"},
    422: {"description": "invalid request"},
}


async def _public(service: ServiceDep, hub: HubDep, row: RunRow, sessions: SessionsDep) -> RunPublic:
    def events() -> list[EventRow]:
        with sessions() as session:
            return run_store.config_change_events(session, [row.id])[row.id]

    changes = await asyncio.to_thread(events)
    return run_public(row, hub, events=changes)


@router.post("", status_code=status.HTTP_201_CREATED, responses=ERRORS)
async def create_run(body: RunCreate, service: ServiceDep, hub: HubDep, sessions: SessionsDep) -> RunPublic:
    """Start a run from a config, or from a preset name with overrides."""
    target = default_target(service.settings)
    overrides = body.overrides
    if body.definition_version is not None and body.definition_name is None:
        raise RunInvalid(
            "definition_version goes with definition_name, the saved definition it is a version of",
            "definition_version",
        )
    if body.definition_name is not None:
        name, version = body.definition_name, body.definition_version
        found = await asyncio.to_thread(definition_overrides, service.settings, sessions, name, version)
        overrides = {**found, **overrides}
    config = config_from(body.preset, body.config, overrides, body.name, target)
    row = await service.create(config)
    if body.notes is not None or body.tags is not None:

        def meta() -> RunRow | None:
            with sessions() as session:
                return run_store.update_run_meta(session, row.id, notes=body.notes, tags=body.tags)

        updated = await asyncio.to_thread(meta)
        row = updated or row
    return await _public(service, hub, row, sessions)


@router.get("", responses=ERRORS)
def list_runs(
    session: SessionDep,
    hub: HubDep,
    status: RunState | None = None,
    preset: Annotated[Text | None, Query(max_length=100)] = None,
    name: Annotated[Text | None, Query(max_length=200, description="case-insensitive substring")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> RunsPublic:
    """Runs newest first, filtered by status, preset and name, one page at a time."""
    rows, count = run_store.list_runs(session, status=status, preset=preset, name=name, limit=limit, offset=offset)
    events = run_store.config_change_events(session, [r.id for r in rows])
    return RunsPublic(
        data=[run_public(r, hub, events=events[r.id]) for r in rows],
        count=count,
    )


@router.get("/{run_id}", responses=ERRORS)
async def get_run(run_id: str, service: ServiceDep, hub: HubDep, sessions: SessionsDep) -> RunPublic:
    row = await service.get(run_id, flush=False)

    def stored() -> tuple[Any, list[EventRow]]:
        with sessions() as session:
            summary = summaries.summary_of(session, row) if not row.status.is_active else None
            return summary, run_store.config_change_events(session, [run_id])[run_id]

    summary_, events = await asyncio.to_thread(stored)
    return run_public(row, hub, summary=summary_, events=events)


@router.patch("/{run_id}", responses=ERRORS)
async def update_run(
    run_id: str, body: RunUpdate, service: ServiceDep, hub: HubDep, sessions: SessionsDep
) -> RunPublic:
    """Rename a run, and set its notes and tags."""
    await service.get(run_id)

    def update() -> RunRow | None:
        with sessions() as session:
            return run_store.update_run_meta(session, run_id, name=body.name, notes=body.notes, tags=body.tags)

    row = await asyncio.to_thread(update)
    if row is None:
        raise RunNotFound.of(run_id)
    return await _public(service, hub, row, sessions)


@router.delete("/{run_id}", status_code=status.HTTP_204_NO_CONTENT, responses=ERRORS)
async def delete_run(run_id: str, service: ServiceDep) -> Response:
    """Delete a run that is not going, with everything stored for it."""
    await service.delete(run_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.patch("/{run_id}/config", responses=ERRORS)
async def patch_config(
    run_id: str, patch: ConfigPatch, request: Request, service: ServiceDep, hub: HubDep, sessions: SessionsDep
) -> RunPublic:
    """A live change: validated, recorded as an event on the run's timeline, and applied by the workers.
    409 when the run is not running (or paused); 422 naming the field when it is fixed for the run
    (``definition.watch.mode``: poll or change stream, ``client.interface``, ``seed``...)."""
    who = f"api {request.client.host}" if request.client else "api"
    row = await service.patch_config(run_id, patch, who=who)
    return await _public(service, hub, row, sessions)


@router.post("/{run_id}/profile", responses=ERRORS)
async def edit_profile(run_id: str, edit: ProfileEdit, service: ServiceDep) -> ProfileStatus:
    """A live edit of the run's load profile: skip to the next stage, extend the current one by
    ``seconds``, or abandon the profile (its last rate holds). On the run's timeline; 409 when the
    run follows no profile, or it is over."""
    return await service.edit_profile(run_id, edit)


@router.post("/{run_id}/pause", responses=ERRORS)
async def pause_run(run_id: str, service: ServiceDep, hub: HubDep, sessions: SessionsDep) -> RunPublic:
    return await _public(service, hub, await service.pause(run_id), sessions)


@router.post("/{run_id}/resume", responses=ERRORS)
async def resume_run(run_id: str, service: ServiceDep, hub: HubDep, sessions: SessionsDep) -> RunPublic:
    return await _public(service, hub, await service.resume(run_id), sessions)


@router.post("/{run_id}/stop", responses=ERRORS)
async def stop_run(run_id: str, service: ServiceDep, hub: HubDep, sessions: SessionsDep) -> RunPublic:
    return await _public(service, hub, await service.stop(run_id), sessions)
