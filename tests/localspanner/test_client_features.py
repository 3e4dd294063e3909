"""Issue 8, "every method the Python client uses": partitioned DML, BatchWrite, partitioned queries,
and what a read-write transaction sees of its own buffered mutations and DML."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud.spanner_v1 import KeySet, param_types
from google.cloud.spanner_v1.transaction import Transaction

from .conftest import DatabaseFactory, SpannerDb

DDL = [
    "CREATE TABLE Accounts (Id INT64 NOT NULL, Owner STRING(MAX), Balance INT64) PRIMARY KEY (Id)",
    "CREATE TABLE Events (Id INT64 NOT NULL, Kind STRING(MAX)) PRIMARY KEY (Id)",
]
ACCOUNTS = 50


@pytest.fixture(scope="module")
def fdb(make_database: DatabaseFactory) -> SpannerDb:
    db = make_database(DDL)
    with db.database.batch() as batch:
        batch.insert("Accounts", ["Id", "Owner", "Balance"], [(i, f"o{i % 5}", 100) for i in range(ACCOUNTS)])
    return db


def _all(db: SpannerDb, sql: str) -> list[list[Any]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql)]


def test_partitioned_dml(fdb: SpannerDb) -> None:
    count = fdb.database.execute_partitioned_dml(
        "UPDATE Accounts SET Balance = Balance + @bonus WHERE Owner = @owner",
        params={"bonus": 5, "owner": "o3"},
        param_types={"bonus": param_types.INT64, "owner": param_types.STRING},
    )
    assert count == ACCOUNTS // 5, f"partitioned DML reports {count} rows"
    assert _all(fdb, "SELECT Owner, SUM(Balance) FROM Accounts GROUP BY Owner ORDER BY Owner") == [
        ["o0", 1000],
        ["o1", 1000],
        ["o2", 1000],
        ["o3", 1050],
        ["o4", 1000],
    ]


def test_batch_write_of_mutation_groups(fdb: SpannerDb) -> None:
    with fdb.database.mutation_groups() as groups:
        first = groups.group()
        first.insert("Events", ["Id", "Kind"], [(1, "a"), (2, "b")])
        second = groups.group()
        second.insert("Events", ["Id", "Kind"], [(3, "c")])
        responses = list(groups.batch_write())
    applied = sorted(i for r in responses for i in r.indexes)
    assert applied == [0, 1], f"every group must be reported once: {responses}"
    assert all(r.status.code == 0 for r in responses), responses
    assert all(r.commit_timestamp for r in responses), "each applied group has a commit timestamp"
    assert _all(fdb, "SELECT Id, Kind FROM Events ORDER BY Id") == [[1, "a"], [2, "b"], [3, "c"]]


def test_partitioned_query_returns_every_row_once(fdb: SpannerDb) -> None:
    snapshot = fdb.database.batch_snapshot()
    try:
        batches = list(snapshot.generate_query_batches("SELECT Id FROM Accounts"))
        assert batches, "PartitionQuery returned no partitions"
        ids = sorted(row[0] for batch in batches for row in snapshot.process_query_batch(batch))
    finally:
        snapshot.close()
    assert ids == list(range(ACCOUNTS))


def test_buffered_mutations_are_invisible_until_commit_but_dml_is_visible(fdb: SpannerDb) -> None:
    """In Spanner a transaction's mutations are buffered to commit; its DML is applied at once."""

    def work(tx: Transaction) -> tuple[list[Any], list[Any], list[Any]]:
        tx.insert("Events", ["Id", "Kind"], [(100, "mutation")])
        after_mutation = [list(r) for r in tx.execute_sql("SELECT Kind FROM Events WHERE Id = 100")]
        tx.execute_update("INSERT INTO Events (Id, Kind) VALUES (101, 'dml')")
        after_dml = [list(r) for r in tx.execute_sql("SELECT Kind FROM Events WHERE Id = 101")]
        by_read = [list(r) for r in tx.read("Events", ["Kind"], KeySet(keys=[[101]]))]
        return after_mutation, after_dml, by_read

    after_mutation, after_dml, by_read = fdb.database.run_in_transaction(work)
    assert after_mutation == [], "a buffered mutation must not be visible inside its own transaction"
    assert after_dml == [["dml"]] and by_read == [["dml"]], "a DML write is visible to the transaction's reads"
    assert _all(fdb, "SELECT Id, Kind FROM Events WHERE Id >= 100 ORDER BY Id") == [[100, "mutation"], [101, "dml"]]
