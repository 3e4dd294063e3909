"""Issue 17, "DML": table-qualified SET columns, ExecuteBatchDml, THEN RETURN.

Expected values come from Spanner's documentation (GoogleSQL "Data manipulation language" and the ExecuteBatchDml
reference), never from the server's own output.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import param_types
from google.cloud.spanner_v1.transaction import Transaction

from .conftest import DatabaseFactory, SpannerDb

DDL = ["CREATE TABLE T (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)"]
START = [(1, 10), (2, 20), (3, 30)]


@pytest.fixture
def ddb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


@pytest.fixture(scope="module")
def shared(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


def _reset(db: SpannerDb) -> None:
    def work(tx: Transaction) -> None:
        tx.execute_update("DELETE FROM T WHERE TRUE")
        tx.insert("T", ["Id", "V"], START)

    db.database.run_in_transaction(work)


def _rows(db: SpannerDb) -> list[list[Any]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql("SELECT Id, V FROM T ORDER BY Id")]


# UPDATE statement: "UPDATE table_name [[AS] alias] SET update_item[, ...] WHERE condition", where update_item is
# "path_expression = expression": the column may be qualified with the table name, or with its alias.
SET_FORMS = {
    "table name": "UPDATE T SET T.V = 11 WHERE Id = 1",
    "alias": "UPDATE T t SET t.V = 11 WHERE t.Id = 1",
    "AS alias": "UPDATE T AS x SET x.V = 11 WHERE x.Id = 1",
    "mixed": "UPDATE T AS x SET V = 11 WHERE Id = 1",
}


@pytest.mark.parametrize("form", list(SET_FORMS))
def test_update_with_a_qualified_set_column(shared: SpannerDb, form: str) -> None:
    _reset(shared)
    count = shared.database.run_in_transaction(lambda tx: tx.execute_update(SET_FORMS[form]))
    assert count == 1
    assert _rows(shared) == [[1, 11], [2, 20], [3, 30]]


def test_update_qualified_with_another_name_is_refused(shared: SpannerDb) -> None:
    with pytest.raises(gexc.InvalidArgument) as info:
        shared.database.run_in_transaction(lambda tx: tx.execute_update("UPDATE T AS x SET y.V = 1 WHERE TRUE"))
    assert "y" in info.value.message, info.value.message


# ExecuteBatchDml: "Statements are executed in sequential order ... Execution stops after the first failed
# statement; the remaining statements are not executed." The response has one ResultSet (with its row count) per
# statement that ran successfully, and "status: If all DML statements are executed successfully, the status is OK.
# Otherwise, the error status of the first failed statement." The Python client returns (status, row_counts).


def test_batch_dml_counts_each_statement_and_mixes_with_execute_sql(shared: SpannerDb) -> None:
    _reset(shared)

    def work(tx: Transaction) -> tuple[Any, ...]:
        first = tx.batch_update(["UPDATE T SET V = 1 WHERE Id = 1", "UPDATE T SET V = 2 WHERE Id > 1"])
        middle = tx.execute_update("UPDATE T SET V = V + 100 WHERE Id = 3")
        second = tx.batch_update(
            [
                (
                    "UPDATE T SET V = @v WHERE Id = @id",
                    {"v": 7, "id": 2},
                    {"v": param_types.INT64, "id": param_types.INT64},
                ),
                "INSERT INTO T (Id, V) VALUES (4, 40), (5, 50)",
            ]
        )
        return first, middle, second

    (s1, c1), middle, (s2, c2) = shared.database.run_in_transaction(work)
    assert (s1.code, c1, middle, s2.code, c2) == (0, [1, 2], 1, 0, [1, 2])
    assert _rows(shared) == [[1, 1], [2, 7], [3, 102], [4, 40], [5, 50]]


def test_batch_dml_stops_at_the_first_failure_and_keeps_the_earlier_statements(shared: SpannerDb) -> None:
    _reset(shared)

    def work(tx: Transaction) -> tuple[Any, Any, list[list[Any]]]:
        status, counts = tx.batch_update(
            [
                "UPDATE T SET V = 1 WHERE Id = 1",
                "UPDATE T SET V = 2 WHERE Id > 1",
                "UPDATE NoSuchTable SET V = 3 WHERE TRUE",
                "UPDATE T SET V = 4 WHERE TRUE",
            ]
        )
        seen = [list(r) for r in tx.execute_sql("SELECT Id, V FROM T ORDER BY Id")]
        return status, counts, seen

    status, counts, seen = shared.database.run_in_transaction(work)
    assert status.code == 3, status  # INVALID_ARGUMENT: "Table not found"
    assert "NoSuchTable" in status.message, status.message
    assert counts == [1, 2]  # the two statements before the failing one (index 2)
    assert seen == [[1, 1], [2, 2], [3, 2]]  # applied in the transaction; the fourth never ran
    assert _rows(shared) == [[1, 1], [2, 2], [3, 2]]  # and committed with it


# THEN RETURN: "returns the values of the columns of the rows that the statement inserted, updated or deleted".


def test_then_return_on_insert_update_and_delete(shared: SpannerDb) -> None:
    _reset(shared)

    def work(tx: Transaction) -> list[list[list[Any]]]:
        out = []
        for sql in (
            "INSERT INTO T (Id, V) VALUES (9, 90) THEN RETURN Id, V",
            "UPDATE T SET V = V + 1 WHERE Id IN (1, 9) THEN RETURN Id, V",
            "DELETE FROM T WHERE Id = 2 THEN RETURN *",
        ):
            out.append(sorted(list(r) for r in tx.execute_sql(sql)))
        return out

    assert shared.database.run_in_transaction(work) == [[[9, 90]], [[1, 11], [9, 91]], [[2, 20]]]
    assert _rows(shared) == [[1, 11], [3, 30], [9, 91]]


# query_mode PLAN: "This mode returns only the query plan, without any results or execution statistics
# information" (ExecuteSqlRequest.QueryMode). A DML statement analysed so is not run: an INSERT whose key
# parameter is NULL (validation's typed NULLs) neither fails on the NOT NULL key nor writes a row.


def test_plan_mode_analyses_dml_without_running_it(shared: SpannerDb) -> None:
    from google.cloud.spanner_v1 import ExecuteSqlRequest

    _reset(shared)
    plan = ExecuteSqlRequest.QueryMode.PLAN

    def work(tx: Transaction) -> list[tuple[str, list[str]]]:
        out = []
        for sql in ("INSERT INTO T (Id, V) VALUES (@id, @v) THEN RETURN V", "UPDATE T SET V = @v WHERE Id = @id"):
            result = tx.execute_sql(
                sql,
                params={"id": None, "v": None},
                param_types={"id": param_types.INT64, "v": param_types.INT64},
                query_mode=plan,
            )
            rows = list(result)
            assert rows == []
            out.append((sql.split()[0], [f.name for f in result.fields]))
        return out

    assert shared.database.run_in_transaction(work) == [("INSERT", ["V"]), ("UPDATE", [])]
    assert _rows(shared) == [list(r) for r in START]
