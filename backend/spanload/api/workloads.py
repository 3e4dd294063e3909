"""/api/workloads: the built-in and saved workload definitions (saved ones with versions, in the run
store), the definition format's JSON Schema, and validation of a definition (offline, or against a
target) before any load."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, status
from pydantic import BaseModel, ConfigDict, Field

from spanload.api.deps import LocalSpannerDep, SessionDep, SettingsDep
from spanload.api.schemas.common import Name
from spanload.control.service import default_target
from spanload.engine import workload_check
from spanload.engine.workload_dry_run import DryRunResult
from spanload.model.config import Target
from spanload.model.errors import RunConflict, RunInvalid, Unavailable
from spanload.model.workload import NAME_PATTERN, Dialect, Knob, KnobValue, WorkloadDefinition
from spanload.model.workload_file import (
    DefinitionInvalid,
    DefinitionProblem,
    parse_definition,
    read_document,
    validate_data,
)
from spanload.model.workload_library import UnknownWorkload, builtin_workload, builtin_workloads
from spanload.spanner.local_server import is_listening
from spanload.store import definitions as saved_store

router = APIRouter(prefix="/workloads", tags=["workloads"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no built-in (or saved) definition by that name (or version)"},
    422: {"description": "the definition has problems: `problems` places each on its line and column"},
    503: {"description": "the target, or the local Spanner for a scratch database, cannot be reached: a sentence"},
}


class WorkloadSummary(BaseModel):
    name: str
    description: str
    dialect: Dialect
    operations: list[str]
    knobs: dict[str, Knob]
    origin: Literal["builtin", "saved"] = Field(
        "builtin", description="a file of workloads/, or saved in the run store"
    )
    version: int | None = Field(None, description="a saved definition's latest version (1, 2, ...)")
    versions: int | None = Field(None, description="how many versions of a saved definition there are")


class WorkloadsPublic(BaseModel):
    data: list[WorkloadSummary]
    count: int


class WorkloadPublic(BaseModel):
    name: str
    source: str = Field(description="the definition file as written (YAML)")
    definition: WorkloadDefinition


class WorkloadSave(BaseModel):
    """A definition to save: its text, validated as ``/validate`` does offline, without the target."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(
        max_length=1_000_000, description="the definition file (YAML or JSON); its name names what is saved"
    )


class SavedWorkloadPublic(BaseModel):
    name: str
    version: int = Field(description="1 for the first save of a name, then 2, 3, ...")
    versions: int = Field(description="how many versions of this name are saved")
    created: bool = Field(True, description="false: the source was the latest version's, so no version was added")
    saved_at: float = Field(description="unix seconds")
    source: str = Field(description="the definition file as saved")
    definition: WorkloadDefinition | None = Field(description="null: the source no longer validates")


SavedName = Annotated[str, Path(pattern=NAME_PATTERN, description="the definition's name")]


class WorkloadValidate(BaseModel):
    """A definition to check: its text (``source``, YAML or JSON: problems get lines and columns) or
    its parsed form (``definition``), against ``target`` (none: offline, on a scratch database)."""

    model_config = ConfigDict(extra="forbid")

    source: str | None = Field(None, max_length=1_000_000)
    definition: dict[str, Any] | None = None
    target: Target | None = None
    dry_run: bool = Field(False, description="execute each operation once (writes rolled back) and show the results")
    knobs: dict[str, KnobValue] = Field(default_factory=dict, description="knob values for the dry run")


class ValidationPublic(BaseModel):
    valid: bool
    name: str
    creates: list[str] = Field(description="objects the definition's DDL would create on the target")
    scratch: bool = Field(description="statements were analysed on a scratch database")
    problems: list[DefinitionProblem] = Field(default_factory=list)
    dry_run: list[DryRunResult] | None = Field(None, description="each operation executed once, when asked")


def _summary(definition: WorkloadDefinition) -> WorkloadSummary:
    return WorkloadSummary(
        name=definition.name,
        description=definition.description,
        dialect=definition.dialect,
        operations=list(definition.operations),
        knobs=definition.knobs,
    )


@router.get("")
def list_workloads(settings: SettingsDep, session: SessionDep) -> WorkloadsPublic:
    """The built-in definitions (the files of ``workloads/``), then the saved ones (each at its
    latest version) by name."""
    found = builtin_workloads(settings.workloads_dir)
    data = [_summary(w.definition) for w in found.values()]
    for saved in saved_store.saved_definitions(session):
        definition = _still_valid(saved.row.source, saved.row.name)
        summary = (
            _summary(definition)
            if definition is not None
            else WorkloadSummary(
                name=saved.row.name,
                description="no longer valid: open it to see why and save it fixed",
                dialect=Dialect.GOOGLESQL,
                operations=[],
                knobs={},
            )
        )
        data.append(
            summary.model_copy(update={"origin": "saved", "version": saved.row.version, "versions": saved.versions})
        )
    return WorkloadsPublic(data=data, count=len(data))


def _still_valid(source: str, name: str) -> WorkloadDefinition | None:
    """A saved source's definition; None when the format has since changed under it (it is still
    listed and served, so that it can be opened and saved again, fixed)."""
    try:
        return parse_definition(source, name)
    except DefinitionInvalid:
        return None


def _saved(row: Any, versions: int, created: bool = True) -> SavedWorkloadPublic:
    return SavedWorkloadPublic(
        name=row.name,
        version=row.version,
        versions=versions,
        created=created,
        saved_at=row.created_at,
        source=row.source,
        definition=_still_valid(row.source, row.name),
    )


@router.post(
    "/saved",
    status_code=status.HTTP_201_CREATED,
    responses=ERRORS | {409: {"description": "the name is a built-in definition's"}},
)
def save_workload(body: WorkloadSave, settings: SettingsDep, session: SessionDep) -> SavedWorkloadPublic:
    """Save a definition as the next version of the name it gives (version 1 for a new name). A
    source identical to the latest version's adds no version: that version comes back, ``created``
    false. 422 with ``problems`` (and ``field``) when the definition does not validate."""
    try:
        data, positions = read_document(body.source, "source")
        definition = validate_data(data, positions, "source")
    except DefinitionInvalid as err:
        err.field = err.field or "source"
        raise
    if definition.name in builtin_workloads(settings.workloads_dir):
        raise RunConflict(f"{definition.name!r} is a built-in definition: save yours under another name", "name")
    row, created = saved_store.save_definition(session, definition.name, body.source)
    latest = saved_store.latest_definition(session, definition.name)
    return _saved(row, latest.versions if latest is not None else row.version, created)


@router.get("/saved/{name}", responses=ERRORS)
def get_saved_workload(name: SavedName, session: SessionDep) -> SavedWorkloadPublic:
    """A saved definition's latest version."""
    latest = saved_store.latest_definition(session, name)
    if latest is None:
        raise UnknownWorkload(f"no saved definition named {name!r}", "name")
    return _saved(latest.row, latest.versions)


@router.get("/saved/{name}/{version}", responses=ERRORS)
def get_saved_workload_version(
    name: SavedName, version: Annotated[int, Path(ge=1, description="1, 2, ...")], session: SessionDep
) -> SavedWorkloadPublic:
    """One version of a saved definition."""
    latest = saved_store.latest_definition(session, name)
    row = saved_store.definition_version(session, name, version) if latest is not None else None
    if latest is None or row is None:
        known = (
            f"it has versions 1 to {latest.versions}" if latest is not None else "no definition by that name is saved"
        )
        raise UnknownWorkload(f"no version {version} of saved definition {name!r}: {known}", "version")
    return _saved(row, latest.versions)


@router.get("/schema")
def workload_schema() -> dict[str, Any]:
    """The JSON Schema of a definition file, for editors."""
    return WorkloadDefinition.model_json_schema()


class ColumnPublic(BaseModel):
    name: str
    type: str = Field(description="the Spanner type, e.g. STRING(36)")


class TablePublic(BaseModel):
    name: str
    columns: list[ColumnPublic]


class CatalogPublic(BaseModel):
    database: str
    exists: bool = Field(description="false: the database is not created yet (its first run creates it)")
    tables: list[TablePublic]


@router.get("/catalog", responses=ERRORS)
async def target_catalog(
    settings: SettingsDep,
    local: LocalSpannerDep,
    database: Annotated[
        Name | None, Query(description="a database of this server's target (default: the runs')")
    ] = None,
) -> CatalogPublic:
    """The tables and columns of a database of this server's default target, from its
    INFORMATION_SCHEMA: what the definition editor completes table and column names from."""
    fields: dict[str, Any] = {**default_target(settings)}
    if database is not None:
        fields["database"] = database
    target = Target.model_validate(fields)
    host = target.emulator_host
    if host is None and target.kind.value == "local":
        host = local.address if local is not None else f"{settings.local_spanner_host}:{settings.local_spanner_port}"
    found = await asyncio.to_thread(workload_check.target_tables, target, host)
    return CatalogPublic(
        database=target.database,
        exists=found.exists,
        tables=[
            TablePublic(name=t, columns=[ColumnPublic(name=c, type=typ) for c, typ in cols])
            for t, cols in found.tables.items()
        ],
    )


@router.get("/{name}", responses=ERRORS)
def get_workload(name: str, settings: SettingsDep) -> WorkloadPublic:
    found = builtin_workload(settings.workloads_dir, name)
    return WorkloadPublic(name=found.name, source=found.source, definition=found.definition)


@router.post("/validate", responses=ERRORS)
async def validate_workload(body: WorkloadValidate, settings: SettingsDep, local: LocalSpannerDep) -> ValidationPublic:
    """Check a definition: its model, then its schema and statements on the target (or offline).
    Never changes the target. 422 with ``problems`` when anything is wrong."""
    if (body.source is None) == (body.definition is None):
        raise DefinitionInvalid([DefinitionProblem(message="give exactly one of source or definition")], "request")
    if body.source is not None:
        data, positions = read_document(body.source)
    else:
        data, positions = body.definition, None
    definition = validate_data(data, positions)
    scratch = local.address if local is not None else f"{settings.local_spanner_host}:{settings.local_spanner_port}"
    if local is None and not is_listening(scratch):
        raise Unavailable(f"validation needs a local Spanner for its scratch database, and none listens at {scratch}")
    host = body.target.emulator_host if body.target is not None else None
    if body.target is not None and host is None and body.target.kind.value == "local":
        host = scratch
    knobs = None
    if body.dry_run:
        try:
            knobs = definition.knob_values(body.knobs)
        except ValueError as err:
            raise RunInvalid(f"knobs.{err}", "knobs") from None
    result = await asyncio.to_thread(
        workload_check.check, definition, scratch, body.target, host, data, positions, knobs
    )
    if result.problems:
        raise DefinitionInvalid(result.problems, definition.name)
    return ValidationPublic(
        valid=True, name=definition.name, creates=result.creates, scratch=result.scratch, dry_run=result.dry_run
    )
