"""A workload's schema, created idempotently (instance, database, the DDL's missing tables and
indexes), and what it would add to a database that holds other tables (the consent check). The
DDL itself is the workload's: a definition's ``ddl`` (workloads/*.yaml) or TPC-C's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.spanner_admin_database_v1 import DatabaseDialect

from spanload.model.config import LatencyModel, Target, TargetKind
from spanload.model.errors import RunInvalid

logger = logging.getLogger(__name__)

DDL_TIMEOUT_S = 300
_NAME = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?(?:NULL_FILTERED\s+)?(TABLE|INDEX|CHANGE\s+STREAM|VIEW|SEQUENCE)"
    r"\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?",
    re.IGNORECASE,
)


def object_names(statements: Sequence[str]) -> set[str]:
    """Names of the tables and indexes that ``statements`` create (case-insensitive, upper-cased)."""
    return {m.group(2).upper() for s in statements if (m := _NAME.search(s))}


def missing_statements(wanted: Sequence[str], existing: Sequence[str]) -> list[str]:
    """The statements of ``wanted`` whose table or index is not among ``existing``'s."""
    have = object_names(existing)
    return [s for s in wanted if (m := _NAME.search(s)) is None or m.group(2).upper() not in have]


class SchemaError(RuntimeError):
    """The instance or database cannot be prepared."""


class ConsentRequired(RunInvalid):
    """The run would create objects in a database that holds other tables, and nobody agreed."""

    def __init__(self, database: str, others: Sequence[str], creating: Sequence[str]) -> None:
        self.creating = list(creating)
        super().__init__(
            f"database {database!r} holds other tables ({', '.join(sorted(others)[:8])}"
            f"{', ...' if len(others) > 8 else ''}); the run would create {', '.join(self.creating)} in it. "
            "Pass --create-schema (create_schema: true), or confirm in the UI, to create them",
            "create_schema",
        )


@dataclass(frozen=True)
class SchemaPlan:
    """What running ``ddl`` on a target would do, found without changing anything."""

    database_exists: bool
    other_tables: tuple[str, ...]  # tables the database holds that ``ddl`` does not create
    missing: tuple[str, ...]  # statements of ``ddl`` whose object the database lacks

    @property
    def needs_consent(self) -> bool:
        return self.database_exists and bool(self.other_tables) and bool(self.missing)


def plan_ddl(database: Any, ddl: Sequence[str], ours: frozenset[str] = frozenset()) -> SchemaPlan:
    """What ``ddl`` would create on ``database`` (a client database handle), read-only. Tables named
    in ``ours`` (upper-cased: the built-in workloads') do not count as the database's other tables."""
    if not database.exists():
        return SchemaPlan(database_exists=False, other_tables=(), missing=tuple(ddl))
    database.reload()
    existing = list(database.ddl_statements)
    wanted = object_names(ddl)
    tables = {
        m.group(2).upper(): m.group(2) for st in existing if (m := _NAME.search(st)) and m.group(1).upper() == "TABLE"
    }
    others = tuple(name for upper, name in tables.items() if upper not in wanted and upper not in ours)
    return SchemaPlan(database_exists=True, other_tables=others, missing=tuple(missing_statements(ddl, existing)))


def created_objects(statements: Sequence[str]) -> list[str]:
    """``["TABLE Orders", "INDEX OrdersByDate"]``: what ``statements`` create, for messages."""
    return [f"{' '.join(m.group(1).upper().split())} {m.group(2)}" for st in statements if (m := _NAME.search(st))]


def ensure_ddl(client: Any, target: Target, ddl: Sequence[str], what: str, postgresql: bool = False) -> Any:
    """Safe to call on every run start. On a cloud target the instance must already exist: Spanload
    never creates billable instances. Create the instance (local/emulator only) and database if
    missing (``postgresql``: a PostgreSQL-dialect one; an existing database of the other dialect is
    a SchemaError), then the tables and indexes of ``ddl`` that the database lacks (``what`` names
    the schema in logs). Returns the database. Whether it may (consent, on a database holding
    other tables) is the control plane's decision, taken before any worker starts
    (engine/schema_setup.py)."""
    instance = client.instance(target.instance)
    if not instance.exists():
        if target.kind is TargetKind.CLOUD:
            raise SchemaError(
                f"instance {target.instance!r} does not exist in project {target.project!r}; "
                "create it first (Spanload does not create cloud instances)"
            )
        config_name = f"{client.project_name}/instanceConfigs/emulator-config"
        instance = client.instance(target.instance, configuration_name=config_name, node_count=1)
        logger.info("creating instance %s", target.instance)
        _wait(instance.create(), f"create instance {target.instance}")
    dialect = DatabaseDialect.POSTGRESQL if postgresql else DatabaseDialect.GOOGLE_STANDARD_SQL
    database = instance.database(target.database, database_dialect=dialect)
    if not database.exists():
        logger.info("creating database %s with the %s schema", target.database, what)
        try:
            _wait(database.create(), f"create database {target.database}")
        except gexc.AlreadyExists:
            logger.info("database %s was created concurrently", target.database)
    database.reload()
    if (database.database_dialect == DatabaseDialect.POSTGRESQL) != postgresql:
        has, wants = ("PostgreSQL", "GoogleSQL") if not postgresql else ("GoogleSQL", "PostgreSQL")
        raise SchemaError(
            f"database {target.database!r} is a {has} database and {what} needs a {wants} one: "
            "name another target.database (a new one is created with the right dialect)"
        )
    todo = missing_statements(ddl, list(database.ddl_statements))
    if todo:
        logger.info("applying %d DDL statements to %s", len(todo), target.database)
        _wait(database.update_ddl(todo), f"update the schema of {target.database}")
        database.reload()
        still = missing_statements(ddl, list(database.ddl_statements))
        if still:
            raise SchemaError(f"the database did not create {sorted(object_names(still))}")
    return database


def apply_database_options(client: Any, target: Target) -> None:
    """Set the run's options on a local Spanner database (its latency model), on every run start,
    so that no earlier run's model lingers. Other targets have no such options. A local server too
    old to know the option still runs a run without a model (the reset is then logged, not fatal)."""
    if target.kind is not TargetKind.LOCAL:
        return
    database = client.instance(target.instance).database(target.database)
    knee = target.commit_knee
    statement = (
        f"ALTER DATABASE `{target.database}` SET OPTIONS (spanload_latency_model = '{target.latency_model.value}', "
        f"spanload_commit_knee_rate = {'NULL' if knee is None else knee.rate}, "
        f"spanload_commit_knee_delay_ms = {'NULL' if knee is None else knee.delay_ms})"
    )
    try:
        _wait(database.update_ddl([statement]), f"set the latency model of {target.database}")
    except SchemaError as err:
        if target.latency_model is not LatencyModel.NONE or knee is not None:
            raise
        logger.info("the local Spanner keeps no latency model for %s: %s", target.database, err)


def _wait(operation: Any, what: str) -> None:
    try:
        operation.result(timeout=DDL_TIMEOUT_S)
    except gexc.GoogleAPICallError as err:
        code = err.grpc_status_code.name if err.grpc_status_code is not None else type(err).__name__
        raise SchemaError(f"could not {what}: {code}: {err.message}") from err
