"""The schema step the control plane takes before any worker starts.

A workload definition's DDL runs here, not in a worker, so no runtime (Python or Go) holds schema
policy of its own. No silent DDL on someone's database: for every workload, on an emulator or cloud
target without ``create_schema``, a run that would add objects to a database holding tables that
are not Spanload's own stops with :class:`~spanload.spanner.schemas.ConsentRequired` (naming each
object) before a worker is spawned. The local target, and a database the run creates, need none.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from typing import Any

from spanload.model.builtin_convert import builtin_definition
from spanload.model.builtin_knobs import LEGACY_KNOBS
from spanload.model.config import PG_INTERFACES, RunConfig, TargetKind, Workload
from spanload.model.workload import Dialect
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas
from spanload.spanner.tpcc_schema import DDL as TPCC_DDL
from spanload.spanner.tpcc_schema import ensure_tpcc_schema, tpcc_ddl

logger = logging.getLogger(__name__)


BUILTIN_TABLES = frozenset(
    name
    for statements in (*(builtin_definition(name).ddl for name in LEGACY_KNOBS), TPCC_DDL)
    for name in schemas.object_names(statements)
)
"""The tables (and indexes) Spanload's own report workloads create (workloads/<report>.yaml and
their PostgreSQL twins, not the example definitions, whose tables could be anyone's; and TPC-C's):
a database that holds only these holds no one else's tables, so adding a workload's to it needs no
consent."""


def workload_ddl(config: RunConfig) -> Sequence[str]:
    """The DDL a run's workload needs: its definition's or TPC-C's (a report workload's config is
    its built-in definition's run by now: engine/placement.py ``check_start``)."""
    if config.workload is Workload.TPCC:
        return tpcc_ddl(config.client.interface in PG_INTERFACES)
    if config.definition is None:
        raise ValueError(f"workload {config.workload.value!r} has no definition: check_start converts it first")
    return config.definition.ddl


def check_consent(config: RunConfig, emulator_host: str | None) -> None:
    """Read-only, before the run's workers are spawned: on an emulator or cloud target without
    ``create_schema``, refuse a run whose DDL would add objects to a database holding other tables.
    Raises :class:`~spanload.spanner.schemas.ConsentRequired` (422) or ``TargetUnreachableError``."""
    if config.target.kind is TargetKind.LOCAL or config.create_schema:
        return
    try:
        _refuse_without_consent(config, emulator_host)
    except spanner_client.TargetUnreachableError as err:  # worker 0 meets it too and fails the run with it
        logger.info("no consent check: %s", err)


def _refuse_without_consent(config: RunConfig, emulator_host: str | None) -> None:
    with _client(config, emulator_host) as client:
        database = client.instance(config.target.instance).database(config.target.database)
        plan = schemas.plan_ddl(database, workload_ddl(config), BUILTIN_TABLES)
    if plan.needs_consent:
        raise schemas.ConsentRequired(config.target.database, plan.other_tables, schemas.created_objects(plan.missing))


def creates_schema_first(config: RunConfig) -> bool:
    """Whether the control plane creates the run's schema before anything connects: a definition's
    always, TPC-C's on a PostgreSQL interface (PGAdapter connects to the database before worker 0
    starts)."""
    pg_tpcc = config.workload is Workload.TPCC and config.client.interface in PG_INTERFACES
    return config.definition is not None or pg_tpcc


def create_schema(config: RunConfig, emulator_host: str | None) -> None:
    """The schema :func:`creates_schema_first` names, created before worker 0 starts."""
    if config.definition is not None:
        create_definition_schema(config, emulator_host)
        return
    with _client(config, emulator_host) as client:
        ensure_tpcc_schema(client, config.target, postgresql=True)


def create_definition_schema(config: RunConfig, emulator_host: str | None) -> None:
    """A definition's DDL: the instance (local and emulator), database and missing objects, created
    before worker 0 starts. Raises ``TargetUnreachableError``, ``SchemaError`` or ``ConsentRequired``."""
    definition = config.definition
    assert definition is not None
    with _client(config, emulator_host) as client:
        postgresql = definition.dialect is Dialect.POSTGRESQL
        schemas.ensure_ddl(client, config.target, definition.ddl, definition.name, postgresql=postgresql)
        schemas.apply_database_options(client, config.target)


@contextlib.contextmanager
def _client(config: RunConfig, emulator_host: str | None) -> Iterator[Any]:
    """An admin client that answered a first RPC (fails fast naming the address), closed after."""
    client = spanner_client.make_client(config.target, emulator_host)
    try:
        spanner_client.probe(client, config.target, emulator_host, config.client.timeout_ms / 1000)
        yield client
    finally:
        client.close()
