"""/api/workloads: the built-in workload definitions, the definition format's JSON Schema, and
validation of a definition (offline, or against a target) before any load."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from spanload.api.deps import LocalSpannerDep, SettingsDep
from spanload.api.schemas.common import Name
from spanload.control.service import default_target
from spanload.engine import workload_check
from spanload.engine.workload_dry_run import DryRunResult
from spanload.model.config import Target
from spanload.model.errors import RunInvalid, Unavailable
from spanload.model.workload import Dialect, Knob, KnobValue, WorkloadDefinition
from spanload.model.workload_file import DefinitionInvalid, DefinitionProblem, read_document, validate_data
from spanload.model.workload_library import builtin_workload, builtin_workloads
from spanload.spanner.local_server import is_listening

router = APIRouter(prefix="/workloads", tags=["workloads"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no built-in definition by that name"},
    422: {"description": "the definition has problems: `problems` places each on its line and column"},
    503: {"description": "the target, or the local Spanner for a scratch database, cannot be reached: a sentence"},
}


class WorkloadSummary(BaseModel):
    name: str
    description: str
    dialect: Dialect
    operations: list[str]
    knobs: dict[str, Knob]


class WorkloadsPublic(BaseModel):
    data: list[WorkloadSummary]
    count: int


class WorkloadPublic(BaseModel):
    name: str
    source: str = Field(description="the definition file as written (YAML)")
    definition: WorkloadDefinition


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
def list_workloads(settings: SettingsDep) -> WorkloadsPublic:
    """The built-in definitions (the files of ``workloads/``)."""
    found = builtin_workloads(settings.workloads_dir)
    return WorkloadsPublic(data=[_summary(w.definition) for w in found.values()], count=len(found))


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
