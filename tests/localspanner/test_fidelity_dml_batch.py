"""Issue 17, "DML" (the rest): ExecuteBatchDml failures and their codes, THEN RETURN through execute_update and with
expressions and aliases, and Partitioned DML.

Expected values come from Spanner's documentation, never from the server's own output:
- ExecuteBatchDml: "Execution stops after the first failed statement; the remaining statements are not executed";
  the response has one ResultSet per statement that succeeded, and the status of the first failed one, so the
  failing statement's index is the number of result sets; the transaction stays usable and keeps what ran.
- THEN RETURN ("Data manipulation language syntax", GoogleSQL): the values of the expressions, named by their
  aliases, for each row the statement inserted, updated or deleted; execute_update returns the row count.
- Partitioned DML ("Partitioned DML", and the ResultSetStats reference): the statement commits on its own; the
  row count is a lower bound (`row_count_lower_bound`); only UPDATE and DELETE are allowed ("INSERT is not supported
  for Partitioned DML"), and only fully partitionable ones (no other table, no self-join); a PartitionedDml
  transaction runs one DML statement and is never committed by the client ("Cannot commit or rollback a read-only or
  partitioned-dml transaction", FAILED_PRECONDITION).
- Issue 25: a Partitioned DML statement naming a missing table fails as python-spanner's system test
  test_database_partitioned_error expects from the emulator: INVALID_ARGUMENT whose text starts "Table not found:
  NonExistent [at 1:8]", then the statement's line and a caret under the name (ZetaSQL's multi-line error mode).
"""

from __future__ import annotations

from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import (
    BeginTransactionRequest,
    CommitRequest,
    CreateSessionRequest,
    ExecuteSqlRequest,
    TransactionOptions,
    TransactionSelector,
)
from google.cloud.spanner_v1.transaction import Transaction

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = [
    "CREATE TABLE T (Id INT64 NOT NULL, V INT64, Tag STRING(MAX)) PRIMARY KEY (Id)",
    "CREATE TABLE Log (Id INT64 NOT NULL, Note STRING(MAX)) PRIMARY KEY (Id)",
]
START = [(1, 10, "a"), (2, 20, "b"), (3, 30, "a")]


@pytest.fixture(scope="module")
def bdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


def _reset(db: SpannerDb) -> None:
    def work(tx: Transaction) -> None:
        tx.execute_update("DELETE FROM T WHERE TRUE")
        tx.execute_update("DELETE FROM Log WHERE TRUE")
        tx.insert("T", ["Id", "V", "Tag"], START)

    db.database.run_in_transaction(work)


def _rows(db: SpannerDb, sql: str = "SELECT Id, V FROM T ORDER BY Id") -> list[list[Any]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql)]


# (statements, index of the failing one, its gRPC code)
FAILING_BATCHES = {
    "duplicate key (ALREADY_EXISTS)": (
        ["UPDATE T SET V = 11 WHERE Id = 1", "INSERT INTO T (Id, V) VALUES (2, 0)", "UPDATE T SET V = 0 WHERE TRUE"],
        1,
        6,
    ),
    "unknown column (INVALID_ARGUMENT)": (
        ["UPDATE T SET V = 11 WHERE Id = 1", "UPDATE T SET V = 12 WHERE Id = 2", "UPDATE T SET Nope = 1 WHERE TRUE"],
        2,
        3,
    ),
    "division by zero (OUT_OF_RANGE)": (
        ["UPDATE T SET V = 11 WHERE Id = 1", "UPDATE T SET V = DIV(V, 0) WHERE TRUE"],
        1,
        11,
    ),
    "NOT NULL key (FAILED_PRECONDITION)": (
        ["UPDATE T SET V = 11 WHERE Id = 1", "INSERT INTO T (Id, V) VALUES (NULL, 1)"],
        1,
        9,
    ),
    "a query in the batch (INVALID_ARGUMENT)": (["UPDATE T SET V = 11 WHERE Id = 1", "SELECT 1"], 1, 3),
}
APPLIED = {  # the rows after the statements before the failing one, and then one more statement
    "duplicate key (ALREADY_EXISTS)": [[1, 11], [2, 20], [3, 30], [9, 9]],
    "unknown column (INVALID_ARGUMENT)": [[1, 11], [2, 12], [3, 30], [9, 9]],
    "division by zero (OUT_OF_RANGE)": [[1, 11], [2, 20], [3, 30], [9, 9]],
    "NOT NULL key (FAILED_PRECONDITION)": [[1, 11], [2, 20], [3, 30], [9, 9]],
    "a query in the batch (INVALID_ARGUMENT)": [[1, 11], [2, 20], [3, 30], [9, 9]],
}


@pytest.mark.parametrize("case", list(FAILING_BATCHES))
def test_batch_dml_failure_names_the_statement_and_its_code(bdb: SpannerDb, case: str) -> None:
    statements, index, code = FAILING_BATCHES[case]
    _reset(bdb)

    def work(tx: Transaction) -> tuple[Any, list[int], int]:
        status, counts = tx.batch_update(statements)
        after = tx.execute_update("INSERT INTO T (Id, V) VALUES (9, 9)")  # the transaction goes on
        return status, counts, after

    status, counts, after = bdb.database.run_in_transaction(work)
    assert (status.code, len(counts), after) == (code, index, 1), status.message
    assert counts == [1] * index
    assert _rows(bdb) == APPLIED[case]


def test_batch_dml_failing_at_its_first_statement_keeps_the_transaction(bdb: SpannerDb) -> None:
    _reset(bdb)

    def work(tx: Transaction) -> tuple[Any, list[int], Any, list[int]]:
        s1, c1 = tx.batch_update(["UPDATE NoSuchTable SET V = 1 WHERE TRUE", "UPDATE T SET V = 0 WHERE TRUE"])
        s2, c2 = tx.batch_update(["UPDATE T SET V = V + 1 WHERE Id < 3", "DELETE FROM T WHERE Id = 3"])
        return s1, c1, s2, c2

    s1, c1, s2, c2 = bdb.database.run_in_transaction(work)
    assert (s1.code, c1, s2.code, c2) == (3, [], 0, [2, 1]), (s1.message, s2.message)
    assert "NoSuchTable" in s1.message
    assert _rows(bdb) == [[1, 11], [2, 21]]


def test_batch_dml_statements_see_each_other(bdb: SpannerDb) -> None:
    _reset(bdb)

    def work(tx: Transaction) -> tuple[Any, list[int]]:
        return tx.batch_update(
            [
                "INSERT INTO Log (Id, Note) SELECT Id, Tag FROM T WHERE Tag = 'a'",
                "UPDATE T SET V = -V WHERE Id IN (SELECT Id FROM Log)",
                "DELETE FROM Log WHERE Id = 1",
            ]
        )

    status, counts = bdb.database.run_in_transaction(work)
    assert (status.code, counts) == (0, [2, 2, 1])
    assert _rows(bdb) == [[1, -10], [2, 20], [3, -30]]
    assert _rows(bdb, "SELECT Id, Note FROM Log") == [[3, "a"]]


def test_then_return_through_execute_update_counts_the_rows(bdb: SpannerDb) -> None:
    _reset(bdb)
    count = bdb.database.run_in_transaction(
        lambda tx: tx.execute_update("UPDATE T SET V = V + 1 WHERE Tag = 'a' THEN RETURN Id, V")
    )
    assert count == 2
    assert _rows(bdb) == [[1, 11], [2, 20], [3, 31]]


def test_then_return_expressions_aliases_and_table_alias(bdb: SpannerDb) -> None:
    _reset(bdb)

    def work(tx: Transaction) -> list[tuple[list[str], list[list[Any]]]]:
        out = []
        for sql in (
            "UPDATE T AS t SET V = V * 2 WHERE t.Id = 1 THEN RETURN t.Id AS key, V + 1 AS next, UPPER(Tag) tag",
            "INSERT INTO T (Id, V, Tag) VALUES (4, 40, 'c'), (5, 50, 'c') THEN RETURN Id * 10 AS tens",
            "DELETE FROM T t WHERE t.Tag = 'c' THEN RETURN t.*",
        ):
            result = tx.execute_sql(sql)
            rows = sorted(list(r) for r in result)
            out.append(([f.name for f in result.fields], rows))
        return out

    assert bdb.database.run_in_transaction(work) == [
        (["key", "next", "tag"], [[1, 21, "A"]]),
        (["tens"], [[40], [50]]),
        (["Id", "V", "Tag"], [[4, 40, "c"], [5, 50, "c"]]),
    ]
    assert _rows(bdb) == [[1, 20], [2, 20], [3, 30]]


# THEN RETURN WITH ACTION [AS alias]: one more STRING column, named ACTION or the alias, saying what the statement did
# to each row: INSERT, UPDATE or DELETE; for INSERT OR UPDATE, UPDATE where the row existed. The other columns of an
# upserted row are those it has after the statement: an updated row keeps the columns the statement did not list.
WITH_ACTION = {
    "INSERT": ("INSERT INTO T (Id, V) VALUES (8, 80) THEN RETURN WITH ACTION Id", ["Id", "ACTION"], [[8, "INSERT"]]),
    "UPDATE with alias": (
        "UPDATE T SET V = 0 WHERE Id = 2 THEN RETURN WITH ACTION AS act Id, V",
        ["Id", "V", "act"],
        [[2, 0, "UPDATE"]],
    ),
    "DELETE": ("DELETE FROM T WHERE Id = 3 THEN RETURN WITH ACTION V", ["V", "ACTION"], [[30, "DELETE"]]),
    "INSERT OR UPDATE": (
        "INSERT OR UPDATE INTO T (Id, V) VALUES (1, 5), (7, 70) THEN RETURN WITH ACTION Id, V, Tag",
        ["Id", "V", "Tag", "ACTION"],
        [[1, 5, "a", "UPDATE"], [7, 70, None, "INSERT"]],
    ),
}


@pytest.mark.parametrize("case", list(WITH_ACTION))
def test_then_return_with_action(bdb: SpannerDb, case: str) -> None:
    sql, names, expected = WITH_ACTION[case]
    _reset(bdb)

    def work(tx: Transaction) -> tuple[list[str], list[list[Any]]]:
        result = tx.execute_sql(sql)
        rows = sorted(list(r) for r in result)
        return [f.name for f in result.fields], rows

    assert bdb.database.run_in_transaction(work) == (names, expected)


def test_partitioned_dml_updates_and_deletes(bdb: SpannerDb) -> None:
    _reset(bdb)
    updated = bdb.database.execute_partitioned_dml("UPDATE T SET V = V + 1 WHERE Tag = 'a'")
    deleted = bdb.database.execute_partitioned_dml("DELETE FROM T WHERE V > 30")
    assert (updated, deleted) == (2, 1)
    assert _rows(bdb) == [[1, 11], [2, 20]]


@pytest.mark.parametrize(
    "sql,words",
    [
        ("INSERT INTO T (Id, V) VALUES (7, 7)", "INSERT is not supported for Partitioned DML"),
        ("SELECT Id FROM T", "may only be used to execute DML statements"),
        # the documentation's own example of a statement that is not fully partitionable: it reads another table
        ("DELETE FROM T WHERE Id NOT IN (SELECT Id FROM Log)", "fully partitionable"),
        ("UPDATE T SET V = (SELECT MAX(V) FROM T) WHERE TRUE", "fully partitionable"),
    ],
    ids=["INSERT", "query", "another table", "self-join"],
)
def test_partitioned_dml_refuses_other_statements(bdb: SpannerDb, sql: str, words: str) -> None:
    _reset(bdb)
    with pytest.raises(gexc.InvalidArgument) as info:
        bdb.database.execute_partitioned_dml(sql)
    assert words in str(info.value.message), info.value.message
    assert _rows(bdb) == [[1, 10], [2, 20], [3, 30]]


def test_partitioned_dml_on_a_missing_table_is_spanners_error(bdb: SpannerDb) -> None:
    expected_error_prefix = (
        "InvalidArgument: 400 Table not found: NonExistent [at 1:8]\n"
        "UPDATE NonExistent SET name = 'foo' WHERE id > 1\n"
        "       ^"
    )
    with pytest.raises(gexc.InvalidArgument) as info:
        bdb.database.execute_partitioned_dml("UPDATE NonExistent SET name = 'foo' WHERE id > 1")
    assert f"{type(info.value).__name__}: {info.value}".startswith(expected_error_prefix), str(info.value)


def test_partitioned_dml_transaction_runs_one_statement_and_is_not_committed(
    bdb: SpannerDb, server_address: str
) -> None:
    _reset(bdb)
    raw = raw_spanner_client(server_address)
    session = raw.create_session(CreateSessionRequest(database=bdb.database.name))
    try:
        pdml = TransactionOptions(partitioned_dml=TransactionOptions.PartitionedDml())
        txn = raw.begin_transaction(BeginTransactionRequest(session=session.name, options=pdml))
        selector = TransactionSelector(id=txn.id)
        first = ExecuteSqlRequest(session=session.name, transaction=selector, sql="UPDATE T SET V = 1 WHERE Id = 1")
        # the row count of Partitioned DML is a lower bound, and the only one sent
        stats = [p.stats for p in raw.execute_streaming_sql(first) if p._pb.HasField("stats")]
        assert [s._pb.WhichOneof("row_count") for s in stats] == ["row_count_lower_bound"]
        assert stats[0].row_count_lower_bound == 1
        second = ExecuteSqlRequest(
            session=session.name, transaction=selector, sql="UPDATE T SET V = 2 WHERE Id = 2", seqno=1
        )
        with pytest.raises(gexc.InvalidArgument) as info:
            list(raw.execute_streaming_sql(second))
        assert "may only be used to execute one statement" in str(info.value.message), info.value.message
        with pytest.raises(gexc.FailedPrecondition):
            raw.commit(CommitRequest(session=session.name, transaction_id=txn.id))
    finally:
        raw.delete_session(name=session.name)
    assert _rows(bdb) == [[1, 1], [2, 20], [3, 30]]
