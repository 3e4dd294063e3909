"""Issue 17, "Reads": PartitionQuery and PartitionRead with their partitions executed (the Python client's
BatchSnapshot), and FORCE_INDEX and other hints on reads at a past timestamp.

Expected values come from Spanner's documentation, never from the server's own output:
- "Read data in parallel" (cloud.google.com/spanner/docs/reads): a batch snapshot partitions a read or a query; each
  partition returns part of the rows and together they return every row once. PartitionQuery's `sql` "fails if the
  query is not root partitionable": the first operator of its plan must be a distributed union (no ORDER BY, LIMIT
  or aggregation above the scan); Spanner answers INVALID_ARGUMENT "Query is not root partitionable since it does
  not have a DistributedUnion at the root".
- "Query syntax" (table hints FORCE_INDEX, including FORCE_INDEX=_BASE_TABLE; statement hints): a hint never changes
  the rows; a snapshot at a read timestamp reads the data committed at that timestamp, through an index as well.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import KeySet, param_types
from google.cloud.spanner_v1.database import BatchSnapshot

from .conftest import DatabaseFactory, SpannerDb

DDL = [
    "CREATE TABLE Items (Id INT64 NOT NULL, Shard INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (Id)",
    "CREATE INDEX ItemsByShard ON Items (Shard) STORING (Name)",
    "CREATE TABLE Parts (Id INT64 NOT NULL, Part INT64 NOT NULL, Label STRING(MAX)) PRIMARY KEY (Id, Part),"
    " INTERLEAVE IN PARENT Items ON DELETE CASCADE",
]
ITEMS = [(i, i % 4, f"n{i}") for i in range(40)]


@pytest.fixture(scope="module")
def pdb(make_database: DatabaseFactory) -> tuple[SpannerDb, dt.datetime]:
    """Items as first written, and the commit timestamp of that first state; then every Name changes."""
    db = make_database(DDL)
    with db.database.batch() as batch:
        batch.insert("Items", ["Id", "Shard", "Name"], ITEMS)
        batch.insert("Parts", ["Id", "Part", "Label"], [(i, p, f"p{i}.{p}") for i in range(3) for p in range(2)])
    first = batch.committed
    assert first is not None
    with db.database.batch() as batch:
        batch.update("Items", ["Id", "Shard", "Name"], [(i, (i + 1) % 4, f"m{i}") for i in range(40)])
    return db, first


def _run_partitions(snapshot: BatchSnapshot, batches: list[dict[str, Any]]) -> list[list[Any]]:
    return sorted(list(row) for batch in batches for row in snapshot.process(batch))


def test_partitioned_read_executes_every_partition(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, _ = pdb
    snapshot = db.database.batch_snapshot()
    try:
        batches = list(snapshot.generate_read_batches("Items", ["Id", "Name"], KeySet(all_=True)))
        assert len(batches) >= 1
        rows = _run_partitions(snapshot, batches)
    finally:
        snapshot.close()
    assert rows == [[i, f"m{i}"] for i in range(40)]


def test_partitioned_read_through_an_index_with_a_key_range(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, _ = pdb
    snapshot = db.database.batch_snapshot()
    try:
        keyset = KeySet(keys=[[2]])
        batches = list(snapshot.generate_read_batches("Items", ["Id", "Shard", "Name"], keyset, index="ItemsByShard"))
        rows = _run_partitions(snapshot, batches)
    finally:
        snapshot.close()
    # after the update, Shard = (Id + 1) % 4: Shard 2 holds Ids 1, 5, 9, ...
    assert rows == [[i, 2, f"m{i}"] for i in range(1, 40, 4)]


def test_partitioned_query_with_parameters_and_a_semicolon(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, _ = pdb
    snapshot = db.database.batch_snapshot()
    try:
        batches = list(
            snapshot.generate_query_batches(
                "SELECT Id, Name FROM Items WHERE Shard = @shard;",
                params={"shard": 0},
                param_types={"shard": param_types.INT64},
            )
        )
        rows = _run_partitions(snapshot, batches)
    finally:
        snapshot.close()
    assert rows == [[i, f"m{i}"] for i in range(3, 40, 4)]


def test_batch_snapshot_at_a_past_timestamp_reads_the_old_rows(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, first = pdb
    snapshot = db.database.batch_snapshot(read_timestamp=first)
    try:
        query = list(snapshot.generate_query_batches("SELECT Id, Name FROM Items WHERE Id < 3"))
        read = list(snapshot.generate_read_batches("Items", ["Id", "Name"], KeySet(keys=[[5]])))
        rows = _run_partitions(snapshot, query) + _run_partitions(snapshot, read)
    finally:
        snapshot.close()
    assert rows == [[0, "n0"], [1, "n1"], [2, "n2"], [5, "n5"]]


ROOT_PARTITIONABLE = {
    "interleaved join": (
        "SELECT i.Id, p.Label FROM Items i JOIN Parts p ON p.Id = i.Id WHERE i.Id = 1",
        [[1, "p1.0"], [1, "p1.1"]],
    ),
    "index hint": ("SELECT Id FROM Items@{FORCE_INDEX=ItemsByShard} WHERE Shard = 3 AND Id < 10", [[2], [6]]),
    "no table": ("SELECT 1", [[1]]),
}


@pytest.mark.parametrize("case", list(ROOT_PARTITIONABLE))
def test_root_partitionable_queries_are_partitioned(pdb: tuple[SpannerDb, dt.datetime], case: str) -> None:
    db, _ = pdb
    sql, expected = ROOT_PARTITIONABLE[case]
    snapshot = db.database.batch_snapshot()
    try:
        rows = _run_partitions(snapshot, list(snapshot.generate_query_batches(sql)))
    finally:
        snapshot.close()
    assert rows == expected


NOT_ROOT_PARTITIONABLE = {
    "ORDER BY": "SELECT Id FROM Items ORDER BY Id",
    "LIMIT": "SELECT Id FROM Items LIMIT 5",
    "aggregate": "SELECT COUNT(*) FROM Items",
    "GROUP BY": "SELECT Shard, COUNT(*) FROM Items GROUP BY Shard",
    "DISTINCT": "SELECT DISTINCT Shard FROM Items",
}


@pytest.mark.parametrize("case", list(NOT_ROOT_PARTITIONABLE))
def test_queries_that_are_not_root_partitionable_are_refused(pdb: tuple[SpannerDb, dt.datetime], case: str) -> None:
    db, _ = pdb
    snapshot = db.database.batch_snapshot()
    try:
        with pytest.raises(gexc.InvalidArgument) as info:
            list(snapshot.generate_query_batches(NOT_ROOT_PARTITIONABLE[case]))
    finally:
        snapshot.close()
    assert "Query is not root partitionable since it does not have a DistributedUnion at the root" in str(
        info.value.message
    ), info.value.message


def test_partition_query_refuses_dml(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, _ = pdb
    snapshot = db.database.batch_snapshot()
    try:
        with pytest.raises(gexc.InvalidArgument):
            list(snapshot.generate_query_batches("UPDATE Items SET Name = 'x' WHERE Id = 1"))
    finally:
        snapshot.close()
    with db.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Name FROM Items WHERE Id = 1")) == [["m1"]]


# Hints on reads at a past timestamp: the rows are those committed at the read timestamp, whatever the hint.
PAST_HINTED = {
    "FORCE_INDEX": "SELECT Id, Name FROM Items@{FORCE_INDEX=ItemsByShard} WHERE Shard = 1 ORDER BY Id",
    "_BASE_TABLE": "SELECT Id, Name FROM Items@{FORCE_INDEX=_BASE_TABLE} WHERE Shard = 1 ORDER BY Id",
    "statement hint": "@{USE_ADDITIONAL_PARALLELISM=TRUE} SELECT Id, Name FROM Items WHERE Shard = 1 ORDER BY Id",
    "join hint": (
        "SELECT i.Id, i.Name FROM Items@{FORCE_INDEX=ItemsByShard} i JOIN@{JOIN_METHOD=HASH_JOIN} Parts p"
        " ON p.Id = i.Id WHERE i.Shard = 1 AND p.Part = 0 ORDER BY i.Id"
    ),
}
# first state: Shard = Id % 4, Name = n<Id>; now: Shard = (Id + 1) % 4, Name = m<Id>
PAST_EXPECTED = {
    "FORCE_INDEX": [[i, f"n{i}"] for i in range(1, 40, 4)],
    "_BASE_TABLE": [[i, f"n{i}"] for i in range(1, 40, 4)],
    "statement hint": [[i, f"n{i}"] for i in range(1, 40, 4)],
    "join hint": [[1, "n1"]],
}


@pytest.mark.parametrize("multi_use", [False, True], ids=["single-use", "multi-use"])
@pytest.mark.parametrize("case", list(PAST_HINTED))
def test_hinted_query_at_a_past_timestamp(pdb: tuple[SpannerDb, dt.datetime], case: str, multi_use: bool) -> None:
    db, first = pdb
    with db.database.snapshot(read_timestamp=first, multi_use=multi_use) as snap:
        rows = [list(r) for r in snap.execute_sql(PAST_HINTED[case])]
    assert rows == PAST_EXPECTED[case]


def test_read_through_an_index_at_a_past_timestamp(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, first = pdb
    with db.database.snapshot(read_timestamp=first) as snap:
        rows = [list(r) for r in snap.read("Items", ["Id", "Name"], KeySet(keys=[[1]]), index="ItemsByShard")]
    assert sorted(rows) == [[i, f"n{i}"] for i in range(1, 40, 4)]


# PartitionQuery/PartitionRead reference: "Partition tokens ... can be used by ExecuteStreamingSql [StreamingRead] to
# specify a subset of the query [read] result"; a token is for the session, the read-only transaction and the request
# it was made for. Anything else is INVALID_ARGUMENT.
TOKEN_MISUSE = {
    "another query": ("query", lambda b: b["query"].update(sql="SELECT Id FROM Items WHERE Shard = 1"), "different"),
    "other parameters": ("query", lambda b: b["query"]["params"].update(shard=2), "different"),
    "another read": ("read", lambda b: b["read"].update(columns=["Id", "Shard"]), "different"),
    "a made-up token": ("query", lambda b: b.update(partition=b"not-a-token"), "Invalid partition token"),
}


@pytest.mark.parametrize("case", list(TOKEN_MISUSE))
def test_a_partition_token_runs_only_its_own_request(pdb: tuple[SpannerDb, dt.datetime], case: str) -> None:
    db, _ = pdb
    kind, change, words = TOKEN_MISUSE[case]
    snapshot = db.database.batch_snapshot()
    try:
        if kind == "query":
            batches = list(
                snapshot.generate_query_batches(
                    "SELECT Id FROM Items WHERE Shard = @shard",
                    params={"shard": 0},
                    param_types={"shard": param_types.INT64},
                )
            )
        else:
            batches = list(snapshot.generate_read_batches("Items", ["Id"], KeySet(keys=[[1]])))
        change(batches[0])
        with pytest.raises(gexc.InvalidArgument) as info:
            list(snapshot.process(batches[0]))
    finally:
        snapshot.close()
    assert words in str(info.value.message), info.value.message


def test_negative_partition_options_are_refused(pdb: tuple[SpannerDb, dt.datetime]) -> None:
    db, _ = pdb
    snapshot = db.database.batch_snapshot()
    try:
        with pytest.raises(gexc.InvalidArgument) as info:
            list(snapshot.generate_query_batches("SELECT Id FROM Items", max_partitions=-1))
    finally:
        snapshot.close()
    assert "max partition count must be greater than zero" in str(info.value.message), info.value.message
