"""A PostgreSQL-dialect database for the conformance tests: its schema and helpers."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.cloud.spanner_admin_database_v1 import DatabaseDialect
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from spanload.model import tags
from spanload.spanner import request_tags
from spanload.spanner.pgadapter import warm_up
from spanload.workers.interp.pg_driver import PgDatabase

from .conftest import OPERATION_TIMEOUT_S, unique

SCHEMA = [
    """CREATE TABLE singers (
        singer_id bigint PRIMARY KEY,
        first_name varchar(1024),
        last_name text,
        active boolean,
        score double precision,
        price numeric,
        born date,
        seen timestamptz,
        info jsonb,
        photo bytea,
        tags text[],
        marks bigint[],
        updated spanner.commit_timestamp
    )""",
    """CREATE TABLE albums (
        singer_id bigint NOT NULL,
        album_id bigint NOT NULL,
        title varchar(100),
        PRIMARY KEY (singer_id, album_id)
    ) INTERLEAVE IN PARENT singers ON DELETE CASCADE""",
    "CREATE INDEX albums_by_title ON albums (title DESC) INCLUDE (album_id) WHERE title IS NOT NULL",
    """CREATE TABLE concerts (
        concert_id bigint NOT NULL,
        singer_id bigint,
        PRIMARY KEY (concert_id),
        CONSTRAINT fk_concerts_singers FOREIGN KEY (singer_id) REFERENCES singers (singer_id)
    )""",
]


def create_pg_database(instance: Instance, ddl: list[str]) -> Database:
    database = instance.database(unique("pg"), database_dialect=DatabaseDialect.POSTGRESQL)
    database.create().result(OPERATION_TIMEOUT_S)
    if ddl:
        database.update_ddl(ddl).result(OPERATION_TIMEOUT_S)
    return database


def query(
    database: Database, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None
) -> tuple[list[list[Any]], Any]:
    with database.snapshot() as snap:
        res = snap.execute_sql(sql, params=params, param_types=types)
        rows = [list(r) for r in res]
        return rows, res.fields


@pytest.fixture(scope="module")
def pgdb(instance: Instance) -> Iterator[Database]:
    """A PostgreSQL database with SCHEMA for the tests of a module (import it there)."""
    database = create_pg_database(instance, SCHEMA)
    yield database
    database.drop()


@dataclass(frozen=True)
class PgTaggedRun:
    """Issue 27 through the ``pgadapter`` interface: a run's two operations, run by the interpreter's
    PostgreSQL driver through PGAdapter when the session starts (SPANNER_SYS shows closed minutes
    only, as Spanner does, so the test reads them back once that minute has closed)."""

    database: Database
    poll_tag: str  # a single-use query's operation
    write_tag: str  # a read-write transaction's operation (one INSERT)


def run_pg_tagged(instance: Instance, pgadapter_address: str) -> PgTaggedRun:
    database = create_pg_database(instance, ["CREATE TABLE seen (id bigint PRIMARY KEY)"])
    run = uuid.uuid4().hex
    tag = tags.operation_tags(run, ["poll", "write"])
    request_tags.configure(tags.run_tag(run), tag)
    # PGAdapter's first connection to a database starts its Java client: 15 s under a load average of
    # 24, past the driver's 10 s connect timeout. Spanload's runs warm it up first; so does the test.
    warm_up(pgadapter_address, database.database_id)
    db = PgDatabase(pgadapter_address, database.database_id)
    try:
        request_tags.use("poll")
        with db.snapshot() as snap:
            snap.execute_sql("SELECT id FROM seen WHERE id = $1", {"p1": 1})
        request_tags.use("write")
        db.run_in_transaction(lambda tx: tx.execute_update("INSERT INTO seen (id) VALUES ($1)", {"p1": 1}))
    finally:
        db.close()
        request_tags.configure("", {})
        request_tags.use("")
    return PgTaggedRun(database, tag["poll"], tag["write"])
