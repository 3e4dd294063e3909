"""Validating a workload definition against a target, before any load (``spanload validate``,
``POST /api/workloads/validate``).

It checks, and never changes the target:
- the schema against INFORMATION_SCHEMA: every table, column and index the definition names, and
  every value's type against its column's;
- every statement, analysed by the target itself (``query_mode: PLAN``) with its parameters typed
  from the generators that feed them, so a type mismatch is Spanner's own "No matching signature";
- statements on tables that do not exist yet: on a scratch database of a local Spanner built from
  the target's schema plus the definition's missing DDL (offline: from the definition's DDL alone).

Problems come back placed on the file's line and column (:class:`DefinitionProblem`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from google.api_core import exceptions as gexc
from google.auth.exceptions import DefaultCredentialsError
from google.cloud.spanner_v1 import ExecuteSqlRequest

from spanload.engine.workload_dry_run import DryRunResult
from spanload.engine.workload_dry_run import dry_run as run_once
from spanload.model.config import RunConfig, Target, TargetKind
from spanload.model.definition_origin import OriginKind
from spanload.model.errors import Unavailable
from spanload.model.workload import (
    Dialect,
    KeyParams,
    KnobValue,
    MutationParams,
    ReadStep,
    SqlStep,
    Watch,
    WorkloadDefinition,
    moment_problems,
    step_kind,
)
from spanload.model.workload_file import DefinitionInvalid, DefinitionProblem, Positions
from spanload.model.workload_types import value_type
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas
from spanload.spanner.client import status_text
from spanload.workers.interp.operation import PARAM_TYPES, pg_type
from spanload.workers.interp.sql import is_dml, scan
from spanload.workers.interp.sql_pg import scan_pg

logger = logging.getLogger(__name__)

SCRATCH_INSTANCE = "spanload-validate"
PLAN = ExecuteSqlRequest.QueryMode.PLAN
_AT = re.compile(r"\[at (\d+):(\d+)\]")
_REQUEST_ID = re.compile(r",?\s*request_id = [\w.]+")


@dataclass
class Catalog:
    """Tables (upper-cased name -> columns upper-cased -> base type) and their keys and indexes."""

    columns: dict[str, dict[str, str]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # upper -> as written (tables and columns)
    keys: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (table, index) -> key columns

    def has_index(self, table: str, index: str) -> bool:
        return (table.upper(), index.upper()) in self.keys


def base_type(spanner_type: str) -> str:
    """``STRING(36)`` -> ``STRING``; arrays keep their element: ``ARRAY<INT64>``."""
    return re.sub(r"\((?:\d+|MAX)\)", "", spanner_type.upper())


PG_TYPES = {
    "BIGINT": "INT64",
    "CHARACTER VARYING": "STRING",
    "TEXT": "STRING",
    "BOOLEAN": "BOOL",
    "DOUBLE PRECISION": "FLOAT64",
    "REAL": "FLOAT32",
    "BYTEA": "BYTES",
    "TIMESTAMP WITH TIME ZONE": "TIMESTAMP",
    "SPANNER.COMMIT_TIMESTAMP": "TIMESTAMP",
    "JSONB": "JSON",
}
"""A PostgreSQL database's column types (its INFORMATION_SCHEMA's spanner_type) by their Spanner
names, which the generators' types are (Spanner's PG-dialect docs, "PostgreSQL data types")."""


def pg_base_type(pg_type_name: str) -> str:
    """``character varying(36)`` -> ``STRING``; ``bigint[]`` -> ``ARRAY<INT64>``."""
    name = re.sub(r"\(\d+\)", "", pg_type_name.upper()).strip()
    if name.endswith("[]"):
        return f"ARRAY<{pg_base_type(name[:-2])}>"
    return PG_TYPES.get(name, name)


def read_catalog(database: Any, pg: bool = False, tag: str | None = None) -> Catalog:
    """The tables of ``database`` (``pg``: a PostgreSQL one, whose tables are in schema public);
    ``tag``: the request tag of its queries (a run's, when it checks before load)."""
    catalog = Catalog()
    options = {"request_tag": tag} if tag else None
    schema, to_base = ("public", pg_base_type) if pg else ("", base_type)
    with database.snapshot(multi_use=True) as snap:
        for table, column, typ in snap.execute_sql(
            "SELECT TABLE_NAME, COLUMN_NAME, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS "
            f"WHERE TABLE_SCHEMA = '{schema}' ORDER BY TABLE_NAME, ORDINAL_POSITION",
            request_options=options,
        ):
            catalog.names[table.upper()] = table
            catalog.names[f"{table.upper()}.{column.upper()}"] = column
            catalog.columns.setdefault(table.upper(), {})[column.upper()] = to_base(typ)
        for table, index, column in snap.execute_sql(
            "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS "
            f"WHERE TABLE_SCHEMA = '{schema}' AND ORDINAL_POSITION IS NOT NULL "
            "ORDER BY TABLE_NAME, INDEX_NAME, ORDINAL_POSITION",
            request_options=options,
        ):
            catalog.keys.setdefault((table.upper(), index.upper()), []).append(column)
    return catalog


class Checker:
    """Collects the problems of one definition against one database."""

    def __init__(
        self, definition: WorkloadDefinition, data: Any, positions: Positions | None, tag: str | None = None
    ) -> None:
        self.definition = definition
        self.tag = tag  # the request tag of its queries
        self.data = data
        self.positions = positions
        self.problems: list[DefinitionProblem] = []

    def add(self, path: str, message: str, statement: str | None = None, offset: tuple[int, int] | None = None) -> None:
        line = column = None
        shown = path
        if self.positions is not None and self.data is not None:
            found, pos = self.positions.resolve(self.data, path)
            shown = ".".join(str(p) for p in found) or path
            if pos is not None:
                line, column = pos
                if offset is not None and statement is not None and "\n" not in statement:
                    line, column = line + offset[0] - 1, column + offset[1] - 1
        self.problems.append(
            DefinitionProblem(path=shown, line=line, column=column, message=message, statement=statement)
        )

    # -- tables and columns --------------------------------------------------------------------

    def table(self, catalog: Catalog, path: str, name: str) -> dict[str, str] | None:
        columns = catalog.columns.get(name.upper())
        if columns is None:
            known = ", ".join(sorted(catalog.names[t] for t in catalog.columns)) or "none"
            self.add(path, f"table {name} does not exist (tables: {known})")
        return columns

    def columns(
        self,
        catalog: Catalog,
        table_path: str,
        path: str,
        table: str,
        values: dict[str, Any],
        bound: dict[str, str] | None,
    ) -> None:
        columns = self.table(catalog, table_path, table)
        if columns is None:
            return
        for column, value in values.items():
            typ = columns.get(column.upper())
            if typ is None:
                written = [catalog.names[f"{table.upper()}.{c}"] for c in columns]
                self.add(f"{path}.{column}", f"column {column} does not exist in {table} ({', '.join(written)})")
                continue
            given = value_type(value, self.definition, bound)
            if given is not None and given != typ:
                self.add(f"{path}.{column}", f"{table}.{column} is {typ}, but this value is {given}")

    def check_schema(self, catalog: Catalog) -> None:
        d = self.definition
        for table, load in d.load.items():
            self.columns(catalog, f"load.{table}", f"load.{table}.columns", table, load.columns, None)
        for name, op in d.operations.items():
            bound: dict[str, str] = {}  # aliases bound so far; their types are checked with the statements
            for i, step in enumerate(op.steps):
                kind = step_kind(step)
                path = f"operations.{name}.steps.{i}.{kind}"
                if isinstance(step, ReadStep):
                    self._read(catalog, path, step)
                elif not isinstance(step, SqlStep):
                    params: MutationParams | KeyParams = getattr(step, kind)
                    if isinstance(params, KeyParams):
                        self.columns(catalog, f"{path}.table", f"{path}.key", params.table, params.key, bound)
                    else:
                        self.columns(catalog, f"{path}.table", f"{path}.columns", params.table, params.columns, bound)
                bound.update(dict.fromkeys(getattr(step, "bind", {}), ""))
        if d.watch is not None:
            columns = self.table(catalog, "watch.table", d.watch.table)
            if columns is not None:
                self._watch_columns(columns, d.watch)

    def _watch_columns(self, columns: dict[str, str], watch: Watch) -> None:
        """The columns the watch reads, each of the type it reads it as: the commit timestamp, and the
        reconciliation's version (INT64) and writer (STRING), the shards' column (INT64)."""
        wanted = [("watch.timestamp", watch.timestamp, "TIMESTAMP")]
        if watch.versions is not None:
            wanted += [
                ("watch.versions.version", watch.versions.version, "INT64"),
                ("watch.versions.writer", watch.versions.writer, "STRING"),
            ]
        if watch.shards is not None:
            wanted.append(("watch.shards.column", watch.shards.column, "INT64"))
        for path, column, typ in wanted:
            if columns.get(column.upper()) != typ:
                article = "an" if typ[0] in "AEIOU" else "a"
                self.add(path, f"{watch.table}.{column} is not {article} {typ} column")

    def _read(self, catalog: Catalog, path: str, step: ReadStep) -> None:
        read = step.read
        columns = self.table(catalog, f"{path}.table", read.table)
        if columns is None:
            return
        index = read.index or "PRIMARY_KEY"
        if read.index is not None and not catalog.has_index(read.table, read.index):
            self.add(f"{path}.index", f"index {read.index} does not exist on {read.table}")
            return
        for column in read.columns:
            if column.upper() not in columns:
                self.add(f"{path}.columns", f"column {column} does not exist in {read.table}")
        key = catalog.keys.get((read.table.upper(), index.upper()), [])
        if len(read.key) > len(key):
            self.add(f"{path}.key", f"{len(read.key)} key columns given, {index} of {read.table} has {len(key)}")

    # -- statements ----------------------------------------------------------------------------

    def check_statements(self, database: Any, catalog: Catalog) -> None:
        for name, op in self.definition.operations.items():
            bound: dict[str, str] = {}  # alias -> type of the column an earlier step bound
            for i, step in enumerate(op.steps):
                if isinstance(step, SqlStep):
                    self._statement(database, f"operations.{name}.steps.{i}.sql", step, bound)
                elif isinstance(step, ReadStep):
                    columns = catalog.columns.get(step.read.table.upper(), {})
                    bound.update({alias: columns.get(col.upper(), "") for alias, col in step.bind.items()})

    def _statement(self, database: Any, path: str, step: SqlStep, bound: dict[str, str]) -> None:
        types: dict[str, Any] = {}
        pg = self.definition.dialect is Dialect.POSTGRESQL
        for param in (scan_pg if pg else scan)(step.sql)[0]:
            value = step.params.get(param, f"${param}")
            try:
                typ = value_type(value, self.definition, bound)
            except KeyError:
                shown = f"${param[1:]}" if pg else f"@{param}"
                self.add(path, f"{shown} names no value, knob or column bound by an earlier step", step.sql)
                return
            if typ:
                types[param] = pg_type(PARAM_TYPES[typ]) if pg else PARAM_TYPES[typ]
        params = dict.fromkeys(types)  # PLAN analyses types only: each parameter is a NULL of its type
        try:
            fields = _plan(database, step.sql, params, types, pg, self.tag)
        except gexc.GoogleAPICallError as err:
            text = _REQUEST_ID.sub("", status_text(err)).split("\n", 1)[0]  # not the caret lines: placed below
            at = _AT.search(text)
            offset = (int(at.group(1)), int(at.group(2))) if at else None
            self.add(path, text, step.sql, offset)
            return
        for alias, column in step.bind.items():
            typ = fields.get(column.upper())
            if typ is None:
                self.add(f"{path[: -len('.sql')]}.bind.{alias}", f"the statement returns no column {column}")
            else:
                bound[alias] = typ


def _plan(
    database: Any, sql: str, params: dict[str, Any], types: dict[str, Any], pg: bool = False, tag: str | None = None
) -> dict[str, str]:
    """Spanner's analysis of one statement (PLAN mode: nothing runs). Returns its columns' types."""
    options = {"request_tag": tag} if tag else None
    if not is_dml((scan_pg if pg else scan)(sql)[1]):
        with database.snapshot() as snap:
            result = snap.execute_sql(sql, params=params, param_types=types, query_mode=PLAN, request_options=options)
            list(result)
            row_type = result.metadata.row_type.fields if result.metadata else []
            return {f.name.upper(): _type_name(f.type_) for f in row_type}

    class _Rollback(Exception):
        pass

    def plan_dml(transaction: Any) -> None:
        list(transaction.execute_sql(sql, params=params, param_types=types, query_mode=PLAN, request_options=options))
        raise _Rollback

    with contextlib.suppress(_Rollback):
        database.run_in_transaction(plan_dml)
    return {}


def _type_name(typ: Any) -> str:
    code = typ.code.name if hasattr(typ.code, "name") else str(typ.code)
    if code == "ARRAY":
        return f"ARRAY<{_type_name(typ.array_element_type)}>"
    return str(code)


# -- where to validate --------------------------------------------------------------------------


@dataclass
class CheckResult:
    problems: list[DefinitionProblem]
    creates: list[str]  # objects the definition's DDL would create on the target ("TABLE Orders")
    scratch: bool  # statements were analysed on a scratch database
    dry_run: list[DryRunResult] | None = None  # each operation executed once, when asked and valid


class TargetUnusable(Unavailable):
    """The target (or the scratch local Spanner) could not be reached or prepared."""


@contextlib.contextmanager
def _unusable(target: Target | None, doing: str = "validate on") -> Iterator[None]:
    """A failure to reach or prepare the target (or the scratch local Spanner) as one sentence that
    says what the caller was doing (``cannot <doing> <where>: …``)."""
    try:
        yield
    except (
        spanner_client.TargetError,
        spanner_client.TargetUnreachableError,
        schemas.SchemaError,
        gexc.GoogleAPICallError,
        DefaultCredentialsError,
    ) as err:
        where = "the scratch local Spanner" if target is None else f"target {target.kind.value}"
        raise TargetUnusable(f"cannot {doing} {where}: {status_text(err)}") from err


def check(
    definition: WorkloadDefinition,
    scratch_host: str,
    target: Target | None = None,
    emulator_host: str | None = None,
    data: Any = None,
    positions: Positions | None = None,
    dry_run: dict[str, KnobValue] | None = None,
    tag: str | None = None,
) -> CheckResult:
    """Validate ``definition`` against ``target`` (None: offline). ``scratch_host`` is a local
    Spanner for the scratch database, which is dropped afterwards. With ``dry_run`` (the knob
    values to run with), a valid definition's operations are each executed once there, writes
    rolled back. ``tag`` is the request tag of its queries. Raises :class:`TargetUnusable` with one
    sentence when the target cannot be reached or used."""
    with _unusable(target):
        return _check(definition, scratch_host, target, emulator_host, data, positions, dry_run, tag)


def check_before_load(
    config: RunConfig,
    scratch_host: str,
    emulator_host: str | None,
    data: Any = None,
    positions: Positions | None = None,
    tag: str | None = None,
) -> None:
    """The check ``spanload validate`` makes, made before a run's load: a definition sent inline, a
    ``--workload-file`` or a saved one, against the run's target. A built-in definition (a file of
    workloads/, checked by the tests) is not checked again. ``data`` and ``positions`` (the file as
    read) place each problem on its line and column; ``tag`` (the run's) tags its queries. Raises
    :class:`DefinitionInvalid` listing the problems, or :class:`TargetUnusable` with one sentence."""
    definition = config.definition
    origin = config.definition_origin
    if definition is None or (origin is not None and origin.source is OriginKind.BUILTIN):
        return
    result = check(definition, scratch_host, config.target, emulator_host, data, positions, tag=tag)
    if result.problems:
        raise DefinitionInvalid(result.problems, definition.name)


def _check(
    definition: WorkloadDefinition,
    scratch_host: str,
    target: Target | None,
    emulator_host: str | None,
    data: Any,
    positions: Positions | None,
    dry_run: dict[str, KnobValue] | None,
    tag: str | None = None,
) -> CheckResult:
    checker = Checker(definition, data, positions, tag)
    for path, message in moment_problems(definition):  # no database needed
        checker.add(path, message)
    if target is None:
        base_ddl: list[str] = []
        missing = list(definition.ddl)
    else:
        client = spanner_client.make_client(target, emulator_host)
        try:
            spanner_client.probe(client, target, emulator_host, 10.0)
            database = client.instance(target.instance).database(target.database)
            plan = schemas.plan_ddl(database, definition.ddl)
            if plan.database_exists and not plan.missing:
                ran = _check_on(checker, database, dry_run)
                return CheckResult(checker.problems, [], scratch=False, dry_run=ran)
            base_ddl = list(database.ddl_statements) if plan.database_exists else []
            missing = list(plan.missing)
        finally:
            client.close()
    creates = schemas.created_objects(missing)
    ran = None
    with _scratch(scratch_host, base_ddl, missing, checker) as database:
        if database is not None:
            ran = _check_on(checker, database, dry_run)
    return CheckResult(checker.problems, creates, scratch=True, dry_run=ran)


def _check_on(checker: Checker, database: Any, dry_run: dict[str, KnobValue] | None) -> list[DryRunResult] | None:
    catalog = read_catalog(database, checker.definition.dialect is Dialect.POSTGRESQL, checker.tag)
    checker.check_schema(catalog)
    checker.check_statements(database, catalog)
    if dry_run is None or checker.problems:
        return None
    return run_once(database, checker.definition, dry_run)


@contextlib.contextmanager
def _scratch(host: str, base: list[str], missing: list[str], checker: Checker) -> Iterator[Any]:
    """A scratch database on the local Spanner at ``host`` holding ``base`` + ``missing``; a DDL
    statement that fails is a problem placed on its entry of ``ddl``."""
    target = Target(
        kind=TargetKind.LOCAL, emulator_host=host, instance=SCRATCH_INSTANCE, database="v" + uuid.uuid4().hex[:20]
    )
    client = spanner_client.make_client(target, host)
    database = None
    try:
        database = schemas.ensure_ddl(
            client, target, base, "validation", postgresql=checker.definition.dialect is Dialect.POSTGRESQL
        )
        for statement in missing:
            try:
                database.update_ddl([statement]).result(timeout=schemas.DDL_TIMEOUT_S)
            except gexc.GoogleAPICallError as err:
                index = checker.definition.ddl.index(statement)
                checker.add(f"ddl.{index}", _REQUEST_ID.sub("", status_text(err)), statement)
        yield database
    finally:
        if database is not None:
            with contextlib.suppress(gexc.GoogleAPICallError):
                database.drop()
        client.close()


@dataclass
class TargetTables:
    """A database's tables and their columns (name, Spanner type), as INFORMATION_SCHEMA lists them."""

    exists: bool
    tables: dict[str, list[tuple[str, str]]]


def target_tables(target: Target, emulator_host: str | None) -> TargetTables:
    """The tables and columns of ``target``'s database, for the editor's completion; none when the
    database does not exist yet. Raises :class:`TargetUnusable` with one sentence."""
    with _unusable(target, "read the tables of"):
        client = spanner_client.make_client(target, emulator_host)
        try:
            spanner_client.probe(client, target, emulator_host, 10.0)
            database = client.instance(target.instance).database(target.database)
            if not database.exists():
                return TargetTables(exists=False, tables={})
            tables: dict[str, list[tuple[str, str]]] = {}
            with database.snapshot() as snap:
                for table, column, typ in snap.execute_sql(
                    "SELECT TABLE_NAME, COLUMN_NAME, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS "
                    "WHERE TABLE_SCHEMA = '' ORDER BY TABLE_NAME, ORDINAL_POSITION"
                ):
                    tables.setdefault(table, []).append((column, typ))
            return TargetTables(exists=True, tables=tables)
        finally:
            client.close()
