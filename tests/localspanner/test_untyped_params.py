"""Issue 24: parameters sent without a type (ExecuteSql with param_types omitted: TYPE_CODE_UNSPECIFIED
on the wire), as PG drivers through PGAdapter and the Python client send them.

Spanner's docs ("Work with PostgreSQL-dialect databases" / the ExecuteSqlRequest reference): "In
instances where the type of a parameter cannot be inferred from the SQL, ... param_types can be used
to specify the exact SQL type"; "It's an error to execute a SQL statement with unbound parameters."
So an untyped parameter takes the type its context gives it: the column it is compared with, the
column an INSERT writes it to, the INT64 / bigint of LIMIT. PostgreSQL's docs ("Type Conversion",
10.1: "an unknown-type literal ... is assigned the type of the other operand") say the same for PG.
The Python client encodes an int as a JSON string, a float as a JSON number, a date as a string."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from google.cloud.spanner_v1 import TypeAnnotationCode, TypeCode
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance
from google.cloud.spanner_v1.types import ExecuteSqlRequest

from .conftest import SpannerDb, create_database
from .pg import SCHEMA, create_pg_database
from .server_process import ServerProcess

QueryMode = ExecuteSqlRequest.QueryMode


@pytest.fixture(scope="module")
def pgdb(instance: Instance) -> Iterator[Database]:
    database = create_pg_database(instance, SCHEMA)
    database.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO singers (singer_id, first_name, score, born) VALUES "
            "(1, 'Marc', 1.5, '1970-09-03'), (2, 'Cat', 2.5, '1980-01-01'), (3, 'Ali', 3.5, NULL)"
        )
    )
    yield database
    database.drop()


@pytest.fixture(scope="module")
def gsqldb(instance: Instance, local_spanner: ServerProcess) -> Iterator[SpannerDb]:
    db = create_database(
        instance,
        local_spanner.address,
        ["CREATE TABLE S (Id INT64 NOT NULL, Name STRING(MAX), Score FLOAT64, Born DATE) PRIMARY KEY (Id)"],
    )
    db.database.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO S (Id, Name, Score, Born) VALUES (1, 'Marc', 1.5, '1970-09-03'), (2, 'Cat', 2.5, NULL)"
        )
    )
    yield db
    db.database.drop()


def rows(database: Database, sql: str, params: dict[str, Any]) -> list[list[Any]]:
    with database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql, params=params)]


@pytest.mark.parametrize(
    ("sql", "params", "want"),
    [
        ("SELECT first_name FROM singers WHERE singer_id = $1", {"p1": 2}, [["Cat"]]),
        ("SELECT first_name FROM singers WHERE $1 = singer_id", {"p1": 1}, [["Marc"]]),
        ("SELECT first_name FROM singers WHERE singer_id > $1 ORDER BY singer_id", {"p1": 1}, [["Cat"], ["Ali"]]),
        ("SELECT first_name FROM singers WHERE born = $1", {"p1": datetime.date(1970, 9, 3)}, [["Marc"]]),
        ("SELECT first_name FROM singers WHERE score < $1 ORDER BY singer_id", {"p1": 3.0}, [["Marc"], ["Cat"]]),
        ("SELECT singer_id FROM singers ORDER BY singer_id LIMIT $1", {"p1": 2}, [[1], [2]]),
        ("SELECT singer_id FROM singers ORDER BY singer_id LIMIT $1 OFFSET $2", {"p1": 1, "p2": 2}, [[3]]),
        (
            "SELECT first_name FROM singers WHERE singer_id IN ($1, $2) ORDER BY 1",
            {"p1": 3, "p2": 1},
            [["Ali"], ["Marc"]],
        ),
        (
            "SELECT first_name FROM singers WHERE singer_id BETWEEN $1 AND $2 ORDER BY 1",
            {"p1": 2, "p2": 3},
            [["Ali"], ["Cat"]],
        ),
        ("SELECT first_name FROM singers WHERE singer_id + $1 = 3", {"p1": 1}, [["Cat"]]),
        ("SELECT first_name FROM singers WHERE first_name LIKE $1", {"p1": "M%"}, [["Marc"]]),
        (
            "SELECT COALESCE(born, $1) FROM singers WHERE singer_id = 3",
            {"p1": datetime.date(2000, 1, 1)},
            [[datetime.date(2000, 1, 1)]],
        ),
        ("SELECT upper($1)", {"p1": "ab"}, [["AB"]]),
        ("SELECT $1", {"p1": "ab"}, [["ab"]]),
        ("SELECT first_name FROM singers WHERE seen IS NULL AND singer_id = $1", {"p1": 3}, [["Ali"]]),
    ],
)
def test_pg_untyped_parameter_takes_its_contexts_type(
    pgdb: Database, sql: str, params: dict[str, Any], want: Any
) -> None:
    assert rows(pgdb, sql, params) == want


def test_pg_untyped_parameters_take_the_insert_columns_types(pgdb: Database) -> None:
    """INSERT ... VALUES ($1, $2, $3, $4): each parameter is typed by its target column."""
    n = pgdb.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO singers (singer_id, first_name, score, born) VALUES ($1, $2, $3, $4)",
            params={"p1": 10, "p2": "Ten", "p3": 10.5, "p4": datetime.date(2001, 2, 3)},
        )
    )
    assert n == 1
    assert rows(pgdb, "SELECT first_name, score, born FROM singers WHERE singer_id = 10", {}) == [
        ["Ten", 10.5, datetime.date(2001, 2, 3)]
    ]
    pgdb.run_in_transaction(
        lambda tx: tx.execute_update(
            "UPDATE singers SET first_name = $1 WHERE singer_id = $2", params={"p1": "T", "p2": 10}
        )
    )
    assert rows(pgdb, "SELECT first_name FROM singers WHERE singer_id = 10", {}) == [["T"]]


@pytest.mark.parametrize(
    ("sql", "params", "want"),
    [
        ("SELECT Name FROM S WHERE Id = @id", {"id": 2}, [["Cat"]]),
        ("SELECT Name FROM S WHERE Born = @d", {"d": datetime.date(1970, 9, 3)}, [["Marc"]]),
        ("SELECT Id FROM S ORDER BY Id LIMIT @n", {"n": 1}, [[1]]),
    ],
)
def test_googlesql_untyped_parameter_takes_its_contexts_type(
    gsqldb: SpannerDb, sql: str, params: dict[str, Any], want: Any
) -> None:
    assert rows(gsqldb.database, sql, params) == want


def test_googlesql_untyped_parameters_take_the_insert_columns_types(gsqldb: SpannerDb) -> None:
    gsqldb.database.run_in_transaction(
        lambda tx: tx.execute_update(
            "INSERT INTO S (Id, Name, Score, Born) VALUES (@id, @name, @score, @born)",
            params={"id": 7, "name": "Seven", "score": 7.5, "born": datetime.date(2007, 7, 7)},
        )
    )
    assert rows(gsqldb.database, "SELECT Name, Score, Born FROM S WHERE Id = 7", {}) == [
        ["Seven", 7.5, datetime.date(2007, 7, 7)]
    ]


def plan_undeclared(database: Database, sql: str) -> list[tuple[str, int, int]]:
    """ExecuteSql in PLAN mode with no parameters sent: the metadata's undeclared_parameters (name,
    type code, type annotation). PGAdapter asks this to type a PostgreSQL driver's untyped parameters."""
    with database.snapshot() as snap:
        result = snap.execute_sql(sql, query_mode=QueryMode.PLAN)
        list(result)
        fields = result.metadata.undeclared_parameters.fields
    return [(f.name, f.type_.code, f.type_.type_annotation) for f in fields]


def test_pg_plan_mode_reports_the_undeclared_parameters_types(pgdb: Database) -> None:
    """ResultSetMetadata.undeclared_parameters: "A SQL query can be parameterized. In PLAN mode, these
    parameters can be undeclared. This indicates the field names and types for those undeclared
    parameters in the SQL query." (google.spanner.v1 result_set.proto). Each takes the type of the
    column it is compared with (numeric as PG_NUMERIC, Spanner's PG docs' annotation), LIMIT's bigint,
    and with no context PostgreSQL's text ("Type Conversion": unknown literals resolve to text)."""
    got = plan_undeclared(
        pgdb, "SELECT first_name FROM singers WHERE born = $1 AND price > $2 AND singer_id = $3 LIMIT $4"
    )
    assert got == [
        ("p1", TypeCode.DATE, TypeAnnotationCode.TYPE_ANNOTATION_CODE_UNSPECIFIED),
        ("p2", TypeCode.NUMERIC, TypeAnnotationCode.PG_NUMERIC),
        ("p3", TypeCode.INT64, TypeAnnotationCode.TYPE_ANNOTATION_CODE_UNSPECIFIED),
        ("p4", TypeCode.INT64, TypeAnnotationCode.TYPE_ANNOTATION_CODE_UNSPECIFIED),
    ]
    assert plan_undeclared(pgdb, "SELECT $1") == [
        ("p1", TypeCode.STRING, TypeAnnotationCode.TYPE_ANNOTATION_CODE_UNSPECIFIED)
    ]


def test_pg_plan_mode_types_an_inserts_parameters_by_their_columns(pgdb: Database) -> None:
    def plan(tx: Any) -> list[tuple[str, int]]:
        result = tx.execute_sql(
            "INSERT INTO singers (singer_id, first_name, seen) VALUES ($1, $2, $3)", query_mode=QueryMode.PLAN
        )
        list(result)
        return [(f.name, f.type_.code) for f in result.metadata.undeclared_parameters.fields]

    got = pgdb.run_in_transaction(plan)
    assert got == [("p1", TypeCode.INT64), ("p2", TypeCode.STRING), ("p3", TypeCode.TIMESTAMP)]
    assert rows(pgdb, "SELECT COUNT(*) FROM singers WHERE singer_id > 3 AND singer_id <> 10", {}) == [[0]]
