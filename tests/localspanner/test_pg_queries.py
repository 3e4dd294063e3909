"""Issue 24, "Local Spanner: the POSTGRESQL dialect": queries and DML with $n parameters (official Python client).

Expected values come from Spanner's PostgreSQL-dialect documentation ("PostgreSQL data types",
"PostgreSQL DDL", "PostgreSQL DML", "Work with PostgreSQL-dialect databases": databases created
with database_dialect=POSTGRESQL, their schema sent through UpdateDatabaseDdl, parameters $1, $2 ...
named p1, p2 ... on the wire) and from PostgreSQL's documentation (name folding, result column
names, NULL ordering, RETURNING, ON CONFLICT), never from the server's own output.
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Iterator
from typing import Any

import pytest
from google.api_core import exceptions
from google.cloud.spanner_v1 import KeySet, TypeAnnotationCode, TypeCode, param_types
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from .pg import SCHEMA, create_pg_database, query

P1 = {"p1": param_types.INT64}


@pytest.fixture(scope="module")
def pgdb(instance: Instance) -> Iterator[Database]:
    database = create_pg_database(instance, SCHEMA)
    yield database
    database.drop()


@pytest.fixture
def clean(pgdb: Database) -> Database:
    pgdb.run_in_transaction(
        lambda tx: (tx.execute_update("DELETE FROM concerts"), tx.execute_update("DELETE FROM singers"))
    )
    return pgdb


def test_every_type_round_trips_through_dml_with_parameters(clean: Database) -> None:
    row = {
        "p1": 1,
        "p2": "Marc",
        "p3": "Richards",
        "p4": True,
        "p5": 1.25,
        "p6": decimal.Decimal("12.5"),
        "p7": datetime.date(1970, 9, 3),
        "p8": datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.UTC),
        "p9": base64.b64encode(b"Ab"),  # the client hands BYTES over as base64, both ways
        "p10": ["a", None, "c"],
        "p11": [1, 2],
    }
    types = {
        "p1": param_types.INT64,
        "p2": param_types.STRING,
        "p3": param_types.STRING,
        "p4": param_types.BOOL,
        "p5": param_types.FLOAT64,
        "p6": param_types.PG_NUMERIC,
        "p7": param_types.DATE,
        "p8": param_types.TIMESTAMP,
        "p9": param_types.BYTES,
        "p10": param_types.Array(param_types.STRING),
        "p11": param_types.Array(param_types.INT64),
    }
    n = clean.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO singers"
            " (singer_id, first_name, last_name, active, score, price, born, seen, photo, tags, marks)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            params=row,
            param_types=types,
        )
    )
    assert n == 1
    rows, fields = query(
        clean,
        "SELECT singer_id, first_name, last_name, active, score, price, born, seen, photo, tags, marks"
        " FROM singers WHERE singer_id = $1",
        {"p1": 1},
        P1,
    )
    assert rows == [
        [
            1,
            "Marc",
            "Richards",
            True,
            1.25,
            decimal.Decimal("12.5"),
            datetime.date(1970, 9, 3),
            datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.UTC),
            base64.b64encode(b"Ab"),
            ["a", None, "c"],
            [1, 2],
        ]
    ]
    # Spanner marks a PostgreSQL database's numeric with the PG_NUMERIC annotation.
    assert fields[5].type_.code == TypeCode.NUMERIC
    assert fields[5].type_.type_annotation == TypeAnnotationCode.PG_NUMERIC


def test_jsonb_is_annotated_pg_jsonb(clean: Database) -> None:
    clean.run_in_transaction(
        lambda tx: tx.execute_update(
            """INSERT INTO singers (singer_id, info) VALUES (1, '{"b": 2, "a": [1]}'::jsonb)"""
        )
    )
    rows, fields = query(clean, "SELECT info FROM singers")
    assert fields[0].type_.code == TypeCode.JSON
    assert fields[0].type_.type_annotation == TypeAnnotationCode.PG_JSONB
    assert rows[0][0] == {"a": [1], "b": 2}


def test_result_columns_are_named_as_postgresql_names_them(clean: Database) -> None:
    # PostgreSQL: an unnamed column is named after its column or function, else "?column?";
    # unquoted names are folded to lower case.
    _, fields = query(
        clean,
        "SELECT count(*), 1, Singer_ID, upper(first_name), 1 + 1 AS Two FROM singers GROUP BY singer_id, first_name",
    )
    assert [f.name for f in fields] == ["count", "?column?", "singer_id", "upper", "two"]


def test_a_decimal_literal_is_numeric(pgdb: Database) -> None:
    rows, fields = query(pgdb, "SELECT 1.5")
    assert rows == [[decimal.Decimal("1.5")]]
    assert fields[0].type_.code == TypeCode.NUMERIC


def test_update_and_delete_with_returning(clean: Database) -> None:
    def work(tx: Any) -> tuple[list[list[Any]], list[list[Any]]]:
        tx.execute_update("INSERT INTO singers (singer_id, first_name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        updated = [
            list(r)
            for r in tx.execute_sql(
                "UPDATE singers SET first_name = first_name || $1 WHERE singer_id >= $2"
                " RETURNING singer_id, first_name",
                params={"p1": "!", "p2": 2},
                param_types={"p1": param_types.STRING, "p2": param_types.INT64},
            )
        ]
        deleted = [
            list(r)
            for r in tx.execute_sql(
                "DELETE FROM singers WHERE singer_id = $1 RETURNING first_name", params={"p1": 3}, param_types=P1
            )
        ]
        return updated, deleted

    updated, deleted = clean.run_in_transaction(work)
    assert sorted(updated) == [[2, "b!"], [3, "c!"]]
    assert deleted == [["c!"]]
    rows, _ = query(clean, "SELECT singer_id, first_name FROM singers ORDER BY singer_id")
    assert rows == [[1, "a"], [2, "b!"]]


def test_nulls_sort_last_ascending_and_first_descending(clean: Database) -> None:
    # PostgreSQL: "null values sort as if larger than any non-null value".
    clean.run_in_transaction(
        lambda tx: tx.execute_update("INSERT INTO singers (singer_id, score) VALUES (1, 2.0), (2, NULL), (3, 1.0)")
    )
    asc, _ = query(clean, "SELECT singer_id FROM singers ORDER BY score")
    desc, _ = query(clean, "SELECT singer_id FROM singers ORDER BY score DESC")
    first, _ = query(clean, "SELECT singer_id FROM singers ORDER BY score NULLS FIRST")
    assert [r[0] for r in asc] == [3, 1, 2]
    assert [r[0] for r in desc] == [2, 1, 3]
    assert [r[0] for r in first] == [2, 3, 1]


def test_on_conflict_do_nothing_and_do_update(clean: Database) -> None:
    clean.run_in_transaction(
        lambda tx: tx.execute_update("INSERT INTO singers (singer_id, first_name) VALUES (1, 'a')")
    )
    ignored = clean.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO singers (singer_id, first_name) VALUES (1, 'x'), (2, 'b') ON CONFLICT (singer_id) DO NOTHING"
        )
    )
    assert ignored == 1
    clean.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO singers (singer_id, first_name) VALUES (2, 'B')"
            " ON CONFLICT (singer_id) DO UPDATE SET first_name = excluded.first_name"
        )
    )
    rows, _ = query(clean, "SELECT singer_id, first_name FROM singers ORDER BY singer_id")
    assert rows == [[1, "a"], [2, "B"]]


def test_pending_commit_timestamp_is_the_commit_timestamp(clean: Database) -> None:
    def work(tx: Any) -> None:
        tx.execute_update(
            "INSERT INTO singers (singer_id, updated) VALUES ($1, spanner.pending_commit_timestamp())",
            params={"p1": 7},
            param_types=P1,
        )

    session_tx: list[Any] = []

    def capture(tx: Any) -> None:
        session_tx.append(tx)
        work(tx)

    clean.run_in_transaction(capture)
    committed = session_tx[0].committed
    rows, _ = query(clean, "SELECT updated FROM singers WHERE singer_id = 7")
    assert rows[0][0] == committed


def test_interleaved_children_go_with_their_parent(clean: Database) -> None:
    clean.run_in_transaction(
        lambda tx: (
            tx.execute_update("INSERT INTO singers (singer_id) VALUES (1)"),
            tx.execute_update("INSERT INTO albums (singer_id, album_id, title) VALUES (1, 10, 'x'), (1, 11, NULL)"),
        )
    )
    via_index, _ = query(clean, "SELECT album_id FROM albums WHERE title = $1", {"p1": "x"}, {"p1": param_types.STRING})
    assert via_index == [[10]]
    clean.run_in_transaction(lambda tx: tx.execute_update("DELETE FROM singers WHERE singer_id = 1"))
    rows, _ = query(clean, "SELECT count(*) FROM albums")
    assert rows == [[0]]


def test_parameters_in_joins_in_lists_and_any(clean: Database) -> None:
    clean.run_in_transaction(
        lambda tx: (
            tx.execute_update("INSERT INTO singers (singer_id, first_name) VALUES (1, 'a'), (2, 'b'), (3, 'c')"),
            tx.execute_update("INSERT INTO concerts (concert_id, singer_id) VALUES (100, 1), (101, 3)"),
        )
    )
    joined, _ = query(
        clean,
        "SELECT c.concert_id, s.first_name FROM concerts c JOIN singers s ON s.singer_id = c.singer_id"
        " WHERE s.singer_id IN (1, $1) ORDER BY 1",
        {"p1": 3},
        P1,
    )
    assert joined == [[100, "a"], [101, "c"]]
    anyrows, _ = query(
        clean,
        "SELECT singer_id FROM singers WHERE singer_id = ANY($1) ORDER BY singer_id LIMIT $2",
        {"p1": [2, 3], "p2": 1},
        {"p1": param_types.Array(param_types.INT64), "p2": param_types.INT64},
    )
    assert anyrows == [[2]]


def test_query_errors_carry_postgresql_wording(pgdb: Database) -> None:
    with pytest.raises(exceptions.InvalidArgument, match=r'\[ERROR\] syntax error at or near "SELEC"'):
        query(pgdb, "SELEC 1")
    with pytest.raises(exceptions.NotFound, match=r'\[ERROR\] relation "nosuch" does not exist'):
        query(pgdb, "SELECT * FROM nosuch")
    with pytest.raises(exceptions.InvalidArgument, match=r'\[ERROR\] column "nosuch" does not exist'):
        query(pgdb, "SELECT nosuch FROM singers")
    with pytest.raises(exceptions.NotFound, match=r'\[ERROR\] column "nosuch" of relation "singers" does not exist'):
        pgdb.run_in_transaction(lambda tx: tx.execute_update("UPDATE singers SET nosuch = 1 WHERE singer_id = 1"))


def test_read_by_key_annotates_numeric_and_jsonb(clean: Database) -> None:
    clean.run_in_transaction(
        lambda tx: tx.execute_update(
            """INSERT INTO singers (singer_id, price, info) VALUES (4, 2.5, '{"k": 1}'::jsonb)"""
        )
    )
    with clean.snapshot() as snap:
        res = snap.read("singers", ["singer_id", "price", "info"], KeySet(keys=[[4]]))
        rows = [list(r) for r in res]
        fields = res.fields
    assert rows == [[4, decimal.Decimal("2.5"), {"k": 1}]]
    assert [(f.type_.code, f.type_.type_annotation) for f in fields] == [
        (TypeCode.INT64, TypeAnnotationCode.TYPE_ANNOTATION_CODE_UNSPECIFIED),
        (TypeCode.NUMERIC, TypeAnnotationCode.PG_NUMERIC),
        (TypeCode.JSON, TypeAnnotationCode.PG_JSONB),
    ]


def test_a_table_hint_comment_forces_the_index(clean: Database) -> None:
    # Spanner's PostgreSQL hints are comments: FROM t /*@ FORCE_INDEX = i */. Forced through a
    # partial (null-filtered) index, the rows whose key column is NULL are not seen.
    clean.run_in_transaction(
        lambda tx: (
            tx.execute_update("INSERT INTO singers (singer_id) VALUES (1)"),
            tx.execute_update("INSERT INTO albums (singer_id, album_id, title) VALUES (1, 10, 'x'), (1, 11, NULL)"),
        )
    )
    plain, _ = query(clean, "SELECT album_id FROM albums ORDER BY album_id")
    forced, _ = query(clean, "SELECT a.album_id FROM albums /*@ FORCE_INDEX = albums_by_title */ AS a ORDER BY 1")
    assert plain == [[10], [11]]
    assert forced == [[10]]


def test_integer_division_truncates_and_arrays_count_from_one(clean: Database) -> None:
    # PostgreSQL: "integer division truncates the result towards zero"; array subscripts start
    # at 1, and a subscript out of range gives NULL.
    clean.run_in_transaction(
        lambda tx: tx.execute_update("INSERT INTO singers (singer_id, marks) VALUES (1, ARRAY[10, 20])")
    )
    rows, fields = query(clean, "SELECT 7 / 2, -7 / 2, marks[1], marks[2], marks[3] FROM singers")
    assert rows == [[3, -3, 10, 20, None]]
    assert fields[0].type_.code == TypeCode.INT64


def test_is_distinct_from_treats_null_as_a_value(clean: Database) -> None:
    # PostgreSQL: IS DISTINCT FROM is <> with NULL a comparable value (NULL is not distinct from NULL).
    rows, _ = query(
        clean,
        "SELECT 1 IS DISTINCT FROM 1, 1 IS DISTINCT FROM 2, 1 IS DISTINCT FROM NULL, NULL IS DISTINCT FROM NULL,"
        " NULL IS NOT DISTINCT FROM NULL, 1 IS NOT DISTINCT FROM NULL, 2 IS NOT DISTINCT FROM 2",
    )
    assert rows == [[False, True, True, False, True, False, True]]


def test_for_update_reads_the_same_rows(clean: Database) -> None:
    # Spanner's PostgreSQL dialect accepts SELECT ... FOR UPDATE in read-write transactions; it
    # changes locking, not results. FOR SHARE it does not have.
    clean.run_in_transaction(
        lambda tx: tx.execute_update("INSERT INTO singers (singer_id, first_name) VALUES (1, 'a')")
    )

    def read(tx: Any) -> list[list[Any]]:
        return [list(r) for r in tx.execute_sql("SELECT first_name FROM singers WHERE singer_id = 1 FOR UPDATE")]

    assert clean.run_in_transaction(read) == [["a"]]
    with pytest.raises(exceptions.MethodNotImplemented, match="FOR SHARE"):
        query(clean, "SELECT first_name FROM singers FOR SHARE")
