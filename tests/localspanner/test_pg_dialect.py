"""Issue 24, "Local Spanner: the POSTGRESQL dialect": dialect, DDL, GetDatabaseDdl, with the official Python client.

Expected values come from Spanner's PostgreSQL-dialect documentation ("PostgreSQL data types",
"PostgreSQL DDL", "PostgreSQL DML", "Work with PostgreSQL-dialect databases": databases created
with database_dialect=POSTGRESQL, their schema sent through UpdateDatabaseDdl, parameters $1, $2 ...
named p1, p2 ... on the wire) and from PostgreSQL's documentation (name folding, result column
names, NULL ordering, RETURNING, ON CONFLICT), never from the server's own output.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.api_core import exceptions
from google.cloud.spanner_admin_database_v1 import DatabaseDialect
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from .conftest import OPERATION_TIMEOUT_S, create_instance, make_client, unique
from .pg import SCHEMA, create_pg_database
from .server_process import ServerProcess, start_server


@pytest.fixture(scope="module")
def pgdb(instance: Instance) -> Iterator[Database]:
    database = create_pg_database(instance, SCHEMA)
    yield database
    database.drop()


def test_the_dialect_is_reported_and_kept_by_get_and_list(instance: Instance, pgdb: Database) -> None:
    got = instance.database(pgdb.database_id)
    got.reload()
    assert got.database_dialect == DatabaseDialect.POSTGRESQL
    dialects = {db.name: db.database_dialect for db in instance.list_databases()}
    assert dialects[pgdb.name] == DatabaseDialect.POSTGRESQL


def test_get_database_ddl_answers_in_postgresql(pgdb: Database) -> None:
    pgdb.reload()
    ddl = list(pgdb.ddl_statements)
    assert len(ddl) == 4
    singers = ddl[0]
    # PostgreSQL's canonical type names; spanner.commit_timestamp as the column's type.
    for column in [
        "singer_id bigint NOT NULL",
        "first_name character varying(1024)",
        "last_name character varying,",
        "active boolean",
        "score double precision",
        "price numeric",
        "born date",
        "seen timestamp with time zone",
        "info jsonb",
        "photo bytea",
        "tags character varying[]",
        "marks bigint[]",
        "updated spanner.commit_timestamp",
        "PRIMARY KEY(singer_id)",
    ]:
        assert column in singers, (column, singers)
    assert ddl[1].endswith("INTERLEAVE IN PARENT singers ON DELETE CASCADE")
    assert ddl[2] == "CREATE INDEX albums_by_title ON albums (title DESC) INCLUDE (album_id) WHERE (title IS NOT NULL)"
    assert "CONSTRAINT fk_concerts_singers FOREIGN KEY (singer_id) REFERENCES singers(singer_id)" in ddl[3]


def test_the_ddl_it_answers_builds_the_same_schema(instance: Instance, pgdb: Database) -> None:
    pgdb.reload()
    copy = create_pg_database(instance, list(pgdb.ddl_statements))
    try:
        copy.reload()
        assert list(copy.ddl_statements) == list(pgdb.ddl_statements)
    finally:
        copy.drop()


def test_ddl_errors_carry_postgresql_wording(pgdb: Database) -> None:
    with pytest.raises(
        exceptions.InvalidArgument, match=r'\[ERROR\] syntax error at or near "`"; failed to parse the DDL statements'
    ):
        pgdb.update_ddl(["CREATE TABLE `t` (id bigint PRIMARY KEY)"]).result(OPERATION_TIMEOUT_S)


def test_googlesql_ddl_is_a_syntax_error_in_a_postgresql_database(pgdb: Database) -> None:
    # PostgreSQL's grammar reads INT64 as a type name; the table-level PRIMARY KEY after ")" is the error.
    with pytest.raises(exceptions.InvalidArgument, match=r'\[ERROR\] syntax error at or near "PRIMARY"'):
        pgdb.update_ddl(["CREATE TABLE t (id INT64) PRIMARY KEY (id)"]).result(OPERATION_TIMEOUT_S)


def test_the_dialect_survives_a_restart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    data.mkdir()
    lives: list[ServerProcess] = []

    def start() -> Any:
        server = start_server(tmp_path / f"server-{len(lives)}.log", data_dir=data)
        lives.append(server)
        monkeypatch.setenv("SPANNER_EMULATOR_HOST", server.address)
        return make_client(server.address)

    try:
        inst = create_instance(start(), unique("rs"))
        db = create_pg_database(inst, ["CREATE TABLE kept (id bigint PRIMARY KEY, v text)"])
        assert lives[-1].stop() == 0
        again = start().instance(inst.instance_id).database(db.database_id)
        again.reload()
        assert again.database_dialect == DatabaseDialect.POSTGRESQL
        assert list(again.ddl_statements) == [
            "CREATE TABLE kept (\n  id bigint NOT NULL,\n  v character varying,\n  PRIMARY KEY(id)\n)"
        ]
    finally:
        for server in lives:
            if server.alive():
                server.stop()


def test_the_clients_table_listing_sees_the_public_schema(pgdb: Database) -> None:
    # The client lists a PostgreSQL database's tables with "WHERE TABLE_SCHEMA = $1", $1 = 'public'
    # (Spanner's PostgreSQL information schema puts user tables in schema public).
    assert sorted(t.table_id for t in pgdb.list_tables()) == ["albums", "concerts", "singers"]
    assert pgdb.table("singers").exists()
    assert not pgdb.table("nosuch").exists()


def test_information_schema_columns_names_types_in_postgresql(pgdb: Database) -> None:
    # Spanner's PostgreSQL information schema: COLUMNS.spanner_type and data_type in PostgreSQL's
    # names (data_type 'ARRAY' for arrays, as PostgreSQL's own information_schema has it).
    with pgdb.snapshot() as snap:
        rows = [
            list(r)
            for r in snap.execute_sql(
                "SELECT column_name, data_type, spanner_type FROM information_schema.columns"
                " WHERE table_schema = 'public' AND table_name = 'singers' ORDER BY ordinal_position"
            )
        ]
    assert rows[:3] == [
        ["singer_id", "bigint", "bigint"],
        ["first_name", "character varying", "character varying(1024)"],
        ["last_name", "character varying", "character varying"],
    ]
    assert ["tags", "ARRAY", "character varying[]"] in rows
    assert ["updated", "timestamp with time zone", "timestamp with time zone"] in rows


def test_the_dialect_is_in_database_options_and_schemata(instance: Instance, pgdb: Database) -> None:
    # Spanner's information schema: DATABASE_OPTIONS has option database_dialect, GOOGLE_STANDARD_SQL
    # or POSTGRESQL; a PostgreSQL database's SCHEMATA lists information_schema, pg_catalog, public and
    # spanner_sys, a GoogleSQL one's INFORMATION_SCHEMA, SPANNER_SYS and '' (the default schema). The
    # Java client, inside PGAdapter, reads the first and refuses a database that does not say POSTGRESQL.
    option = "select option_value from information_schema.database_options where option_name='database_dialect'"
    with pgdb.snapshot() as snap:
        assert [list(r) for r in snap.execute_sql(option)] == [["POSTGRESQL"]]
    with pgdb.snapshot() as snap:
        schemas = sorted(r[0] for r in snap.execute_sql("SELECT schema_name FROM information_schema.schemata"))
    assert schemas == ["information_schema", "pg_catalog", "public", "spanner_sys"]
    gsql = instance.database(unique("gsql"))
    gsql.create().result(OPERATION_TIMEOUT_S)
    try:
        with gsql.snapshot() as snap:
            assert [list(r) for r in snap.execute_sql(option)] == [["GOOGLE_STANDARD_SQL"]]
        with gsql.snapshot() as snap:
            names = sorted(r[0] for r in snap.execute_sql("SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA"))
        assert names == ["", "INFORMATION_SCHEMA", "SPANNER_SYS"]
    finally:
        gsql.drop()


def test_alter_column_set_not_null_and_type(instance: Instance) -> None:
    db = create_pg_database(instance, ["CREATE TABLE t (id bigint PRIMARY KEY, s varchar(10), b text)"])
    try:
        db.update_ddl(["ALTER TABLE t ALTER COLUMN s SET NOT NULL", "ALTER TABLE t ALTER COLUMN b TYPE bytea"]).result(
            OPERATION_TIMEOUT_S
        )
        db.reload()
        ddl = list(db.ddl_statements)
        assert ddl == [
            "CREATE TABLE t (\n  id bigint NOT NULL,\n  s character varying(10) NOT NULL,\n"
            "  b bytea,\n  PRIMARY KEY(id)\n)"
        ]
        # Spanner refuses a row without a value for a NOT NULL column with FAILED_PRECONDITION.
        with pytest.raises(exceptions.FailedPrecondition):
            db.run_in_transaction(lambda tx: tx.execute_update("INSERT INTO t (id) VALUES (1)"))
    finally:
        db.drop()


def test_a_generated_column_is_stored_as_its_expression_computes_it(instance: Instance) -> None:
    # Spanner's PostgreSQL DDL: "name type GENERATED ALWAYS AS (expression) STORED"; the built-in
    # workloads' PG twins shard by mod(spanner.farm_fingerprint(id::text), 19).
    db = create_pg_database(
        instance,
        [
            "CREATE TABLE g (id bigint NOT NULL, odd bigint GENERATED ALWAYS AS (id * 2 + 1) STORED,"
            " shard bigint GENERATED ALWAYS AS (mod(spanner.farm_fingerprint(id::text), 19)) STORED,"
            " PRIMARY KEY (id))"
        ],
    )
    try:
        with db.batch() as batch:
            batch.insert("g", ["id"], [[1], [20], [-7]])
        with db.snapshot() as snap:
            rows = list(snap.execute_sql("SELECT id, odd FROM g ORDER BY id"))
        assert rows == [[-7, -13], [1, 3], [20, 41]]
        with db.snapshot() as snap:
            mismatched = list(
                snap.execute_sql("SELECT id FROM g WHERE shard <> mod(spanner.farm_fingerprint(id::text), 19)")
            )
        assert mismatched == []
        with db.snapshot() as snap:
            shards = [r[0] for r in snap.execute_sql("SELECT shard FROM g")]
        # PostgreSQL's mod takes the dividend's sign: a fingerprint mod 19 is in -18..18
        assert len(shards) == 3 and all(-18 <= s <= 18 for s in shards)
        db.reload()
        (ddl,) = list(db.ddl_statements)
        assert "odd bigint GENERATED ALWAYS AS (" in ddl and ") STORED" in ddl
        again = create_pg_database(instance, [ddl])
        try:
            again.reload()
            assert list(again.ddl_statements) == [ddl]
        finally:
            again.drop()
        # a generated column's value is the server's: a write naming it is refused
        with pytest.raises(exceptions.GoogleAPICallError):
            with db.batch() as batch:
                batch.insert("g", ["id", "odd"], [[2, 0]])
    finally:
        db.drop()


def test_timestamptz_add_and_subtract_take_an_interval_text(pgdb: Database) -> None:
    # Spanner's PostgreSQL functions: spanner.timestamptz_add(timestamptz, text) and
    # spanner.timestamptz_subtract(timestamptz, text), the text an interval ('10 seconds').
    with pgdb.snapshot() as snap:
        (row,) = list(
            snap.execute_sql(
                "SELECT spanner.timestamptz_subtract('2024-01-01T00:00:10Z'::timestamptz, '10 seconds'),"
                " spanner.timestamptz_add('2024-01-01T00:00:00Z'::timestamptz, '1 day'),"
                " spanner.timestamptz_subtract('2024-01-01T00:00:00Z'::timestamptz, '90 minutes')"
            )
        )
    assert [t.isoformat() for t in row] == [
        "2024-01-01T00:00:00+00:00",
        "2024-01-02T00:00:00+00:00",
        "2023-12-31T22:30:00+00:00",
    ]
