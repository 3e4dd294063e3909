"""Issue 24, "Proof": the PostgreSQL dialect through a real PGAdapter (0.53.1, the jars `make
install` resolves) with psycopg 3, against the local Spanner: the path of ``client.interface:
pgadapter``. One PGAdapter for the module.

Expected values come from PostgreSQL's documentation (psycopg's type mapping of bigint, numeric,
boolean, double precision, date, timestamptz, bytea, text[]; name folding; NULL ordering;
RETURNING; ROLLBACK; SQLSTATE 23505 unique_violation, 40001 for a transaction to be retried) and
Spanner's PG-dialect documentation (spanner.commit_timestamp columns and
spanner.pending_commit_timestamp(), the database_dialect option), never from the server's output.
Parameters go typed (a ``str`` as ``text``) and every statement is a server-side prepared one.
"""

from __future__ import annotations

import datetime
import decimal
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from google.cloud.spanner_v1 import KeySet, param_types
from google.cloud.spanner_v1.database import Database
from psycopg.types.string import StrDumper

from spanload.spanner.local_server import LocalSpanner
from spanload.workers.interp.pg_driver import PgDatabase

from .pg import PgTaggedRun, pgdb  # noqa: F401 (a fixture)

# The tagged run goes with the module's first test, so its minute closes while the others run and
# the last test (which reads it back from SPANNER_SYS) waits only for what is left of it.
pytestmark = pytest.mark.usefixtures("pg_tagged_run")


@pytest.fixture
def conn(pgadapter: LocalSpanner, pgdb: Database) -> Iterator[psycopg.Connection[Any]]:  # noqa: F811 (the fixture)
    host, _, port = pgadapter.address.rpartition(":")
    with psycopg.connect(
        host=host, port=int(port), dbname=pgdb.database_id, autocommit=True, cursor_factory=psycopg.RawCursor
    ) as connection:
        connection.adapters.register_dumper(str, StrDumper)
        connection.execute("DELETE FROM concerts")
        connection.execute("DELETE FROM singers")
        yield connection


def rows(conn: psycopg.Connection[Any], sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return conn.execute(sql, list(args), prepare=True).fetchall()


def test_every_type_round_trips_as_postgresql_drivers_read_it(conn: psycopg.Connection[Any]) -> None:
    seen = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.UTC)
    conn.execute(
        "INSERT INTO singers (singer_id, first_name, active, score, price, born, seen, photo, tags, marks)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [1, "Marc", True, 1.25, decimal.Decimal("12.50"), datetime.date(1970, 9, 3), seen, b"Ab", ["a", None], [1, 2]],
        prepare=True,
    )
    ((row),) = rows(
        conn,
        "SELECT singer_id, first_name, active, score, price, born, seen, photo, tags, marks, last_name"
        " FROM singers WHERE singer_id = $1",
        1,
    )
    expected = (1, "Marc", True, 1.25, decimal.Decimal("12.50"), datetime.date(1970, 9, 3), seen, b"Ab")
    assert row == (*expected, ["a", None], [1, 2], None)


def test_result_columns_fold_to_lower_case_and_nulls_sort_last(conn: psycopg.Connection[Any]) -> None:
    conn.execute("INSERT INTO singers (singer_id, score) VALUES (1, 2.0), (2, NULL), (3, 1.0)")
    cur = conn.execute('SELECT singer_id AS Id, score AS "Score" FROM singers ORDER BY score', prepare=True)
    assert [c.name for c in cur.description or ()] == ["id", "Score"]
    assert [r[0] for r in cur.fetchall()] == [3, 1, 2]  # "null values sort as if larger than any non-null"


def test_returning_rollback_and_the_commit_timestamp(conn: psycopg.Connection[Any]) -> None:
    with conn.transaction():
        inserted = rows(
            conn,
            "INSERT INTO singers (singer_id, first_name, updated) VALUES ($1, $2, spanner.pending_commit_timestamp())"
            " RETURNING singer_id, first_name",
            7,
            "x",
        )
    assert inserted == [(7, "x")]
    with pytest.raises(psycopg.errors.RaiseException) as rolled, conn.transaction():  # the raise rolls it back
        conn.execute("INSERT INTO singers (singer_id) VALUES ($1)", [8], prepare=True)
        raise psycopg.errors.RaiseException("undo")
    assert "undo" in str(rolled.value)
    assert rows(conn, "SELECT singer_id FROM singers ORDER BY singer_id") == [(7,)]
    ((updated,),) = rows(conn, "SELECT updated FROM singers WHERE singer_id = $1", 7)
    assert updated.tzinfo is not None
    assert abs(updated - datetime.datetime.now(datetime.UTC)) < datetime.timedelta(minutes=5)


def test_a_duplicate_key_is_unique_violation(conn: psycopg.Connection[Any]) -> None:
    conn.execute("INSERT INTO singers (singer_id) VALUES ($1)", [1], prepare=True)
    with pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute("INSERT INTO singers (singer_id) VALUES ($1)", [1], prepare=True)


def test_a_read_only_transaction_refuses_writes(conn: psycopg.Connection[Any]) -> None:
    conn.read_only = True
    try:
        with pytest.raises(psycopg.Error), conn.transaction():
            conn.execute("INSERT INTO singers (singer_id) VALUES ($1)", [1], prepare=True)
    finally:
        conn.read_only = False
    assert rows(conn, "SELECT count(*) FROM singers") == [(0,)]


def test_the_database_says_it_is_postgresql(conn: psycopg.Connection[Any]) -> None:
    option = "SELECT option_value FROM information_schema.database_options WHERE option_name = $1"
    assert rows(conn, option, "database_dialect") == [("POSTGRESQL",)]


def test_the_drivers_mutation_rows_apply_in_order_as_one_batch_each(
    pgadapter: LocalSpanner,
    pgdb: Database,  # noqa: F811 (the fixture)
    conn: psycopg.Connection[Any],
) -> None:
    """The interpreter's PostgreSQL driver sends a mutation step's rows as one pipeline (psycopg's
    executemany, which PGAdapter runs as one batch): each row is still its own statement, applied in
    order, so a key written twice in one step keeps its last row (PostgreSQL runs the statements of
    a batch one after another), and insert, insert_or_update, update, replace and delete keep their
    meaning."""
    db = PgDatabase(pgadapter.address, pgdb.database_id)
    cols = ["singer_id", "first_name", "last_name"]

    def work(tx: Any) -> None:
        tx.insert("singers", cols, [[1, "Ann", "A"], [2, "Bob", "B"], [3, "Cy", "C"]])
        tx.insert_or_update("singers", cols, [[2, "Bo", "B2"], [4, "Di", "D"], [2, "Bea", "B3"]])  # 2 twice
        tx.update("singers", ["singer_id", "last_name"], [[1, "A2"], [4, "D2"]])
        tx.replace("singers", ["singer_id", "first_name"], [[3, "Cyd"]])  # last_name back to NULL
        tx.delete("singers", KeySet(keys=[[1]]))

    try:
        db.run_in_transaction(work)
    finally:
        db.close()
    assert rows(conn, "SELECT singer_id, first_name, last_name FROM singers ORDER BY singer_id") == [
        (2, "Bea", "B3"),
        (3, "Cyd", None),
        (4, "Di", "D2"),
    ]


STATS_WAIT_S = 75.0  # SPANNER_SYS shows closed minutes only, as Spanner does


def test_untyped_string_parameters_take_their_columns_types(
    pgadapter: LocalSpanner,
    pgdb: Database,  # noqa: F811 (the fixture)
    conn: psycopg.Connection[Any],
) -> None:
    """psycopg sends a ``str`` as an unknown-type parameter by default (its StrDumperUnknown, so the
    server infers it: PostgreSQL's "Type Conversion": an unknown literal "is assigned the type of the
    other operand"). PGAdapter asks Spanner for the types (ExecuteSql in PLAN mode, its
    undeclared_parameters) before it binds them: compared with a date column the string is a date, with
    a bigint column a bigint, and INSERT types each by its target column."""
    host, _, port = pgadapter.address.rpartition(":")
    with psycopg.connect(host=host, port=int(port), dbname=pgdb.database_id, autocommit=True) as plain:
        plain.execute(
            "INSERT INTO singers (singer_id, first_name, born) VALUES (%s, %s, %s)",
            ["7", "Seven", "1970-09-03"],
            prepare=True,
        )
        got = plain.execute(
            "SELECT singer_id, first_name, born FROM singers WHERE born = %s AND singer_id = %s",
            ["1970-09-03", "7"],
            prepare=True,
        ).fetchall()
    assert got == [(7, "Seven", datetime.date(1970, 9, 3))]


def _sys_rows(database: Database, sql: str, tag: str) -> list[list[Any]]:
    """Read back with the official client, until the minute of the tagged run has closed."""
    give_up = time.monotonic() + STATS_WAIT_S
    while True:
        with database.snapshot() as snap:
            found = [list(r) for r in snap.execute_sql(sql, params={"p1": tag}, param_types={"p1": param_types.STRING})]
        if found or time.monotonic() > give_up:
            return found
        time.sleep(1.0)


@pytest.mark.closed_minute  # after test_pg_tpcc.py too, which shares this worker and its PGAdapter
def test_a_runs_statements_and_transactions_carry_its_tags_into_spanner_sys(pg_tagged_run: PgTaggedRun) -> None:
    """Issue 27 through the ``pgadapter`` interface: the driver tags each statement (PGAdapter's
    ``/*@STATEMENT_TAG='…'*/`` hint) and each read-write transaction (``SET spanner.transaction_tag``
    after BEGIN); PGAdapter forwards them as RequestOptions, so Spanner's documented columns
    QUERY_STATS_TOP_MINUTE.REQUEST_TAG and TXN_STATS_TOP_MINUTE.TRANSACTION_TAG name the operation
    (the run: pg.run_pg_tagged, at the session's start)."""
    run = pg_tagged_run
    query_tag = "SELECT request_tag FROM spanner_sys.query_stats_top_minute WHERE request_tag = $1"
    txn_tag = "SELECT transaction_tag FROM spanner_sys.txn_stats_top_minute WHERE transaction_tag = $1"
    assert _sys_rows(run.database, query_tag, run.poll_tag) == [[run.poll_tag]]
    assert _sys_rows(run.database, query_tag, run.write_tag) == [[run.write_tag]]  # the statement in the transaction
    assert _sys_rows(run.database, txn_tag, run.write_tag) == [[run.write_tag]]


def test_the_drivers_snapshot_at_a_read_timestamp_sees_what_was_committed_by_then(
    pgadapter: LocalSpanner,
    pgdb: Database,  # noqa: F811 (the fixture)
    conn: psycopg.Connection[Any],
) -> None:
    """A watch hand-over's drain reads at its bound (``snapshot(read_timestamp=H)``, sent as
    PGAdapter's ``SET spanner.read_only_staleness = 'READ_TIMESTAMP ...'``): such a read sees every
    commit up to H and none after it, and the next strong read on the same connection is strong again."""
    conn.execute("INSERT INTO singers (singer_id, first_name) VALUES (101, 'before')")
    ((at,),) = rows(conn, "SELECT now()")
    time.sleep(0.01)
    conn.execute("INSERT INTO singers (singer_id, first_name) VALUES (102, 'after')")
    db = PgDatabase(pgadapter.address, pgdb.database_id)
    ids = "SELECT singer_id FROM singers WHERE singer_id > 100 ORDER BY singer_id"
    try:
        with db.snapshot(read_timestamp=at) as snap:
            then = [r[0] for r in snap.execute_sql(ids).rows]
        with db.snapshot() as snap:
            now = [r[0] for r in snap.execute_sql(ids).rows]
    finally:
        db.close()
    assert (then, now) == ([101], [101, 102])
