"""Issue 17, "Transactions": reads after a transaction's own writes conflict on the rows they touch, and precommit
tokens of multiplexed read-write transactions.

Expected behaviour comes from Spanner's documentation, never from the server's own output:
- "Locking" (cloud.google.com/spanner/docs/dml-tasks, "Transactions" overview): reads and DML take shared locks on the
  rows (ranges) they read, writes exclusive locks on the rows they write; two read-write transactions that touch
  different rows both commit; when both read and write the same row, one of them is ABORTED (and the client runs it
  again).
- MultiplexedSessionPrecommitToken / CommitRequest.precommit_token (google/spanner/v1): on a multiplexed session
  every response of a read-write transaction carries a precommit token with an incrementing seq_num; the client
  sends the one with the highest seq_num in Commit; "Failing to do so results in a FailedPrecondition error".
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import (
    BeginTransactionRequest,
    CommitRequest,
    CreateSessionRequest,
    DirectedReadOptions,
    ExecuteSqlRequest,
    KeySet,
    Session,
    TransactionOptions,
    TransactionSelector,
)
from google.cloud.spanner_v1.transaction import Transaction

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = ["CREATE TABLE Acc (Id INT64 NOT NULL, Bal INT64 NOT NULL) PRIMARY KEY (Id)"]
OVERLAP_TIMEOUT_S = 30


@pytest.fixture(scope="module")
def tdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


def _reset(db: SpannerDb) -> None:
    def work(tx: Transaction) -> None:
        tx.execute_update("DELETE FROM Acc WHERE TRUE")
        tx.insert("Acc", ["Id", "Bal"], [(i, 100) for i in range(1, 5)])

    db.database.run_in_transaction(work)


def _balances(db: SpannerDb) -> list[list[int]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql("SELECT Id, Bal FROM Acc ORDER BY Id")]


def _deposit(row: int, barrier: threading.Barrier, attempts: list[int]) -> Callable[[Transaction], list[Any]]:
    """A transaction that writes a row, then reads it back three ways (query, read, DML), writes it again and reads
    it once more; on its first attempt it waits for the other transaction to reach the same point before it
    commits."""

    def work(tx: Transaction) -> list[Any]:
        attempts.append(row)
        tx.execute_update(f"UPDATE Acc SET Bal = Bal + 10 WHERE Id = {row}")
        seen = [list(r) for r in tx.execute_sql(f"SELECT Bal FROM Acc WHERE Id = {row}")]
        seen += [list(r) for r in tx.read("Acc", ["Bal"], KeySet(keys=[[row]]))]
        tx.execute_update(f"UPDATE Acc SET Bal = Bal + 1 WHERE Id = {row} AND Bal > 0")
        seen += [list(r) for r in tx.execute_sql(f"SELECT Bal FROM Acc WHERE Id = {row}")]
        tx.update("Acc", ["Id", "Bal"], [(row + 2, 0)])  # a buffered mutation on a third row
        if attempts.count(row) == 1:
            barrier.wait(OVERLAP_TIMEOUT_S)
        return seen

    return work


def _run_pair(db: SpannerDb, rows: tuple[int, int]) -> tuple[list[int], list[list[Any]]]:
    barrier = threading.Barrier(2)
    attempts: list[int] = []
    results: dict[int, Any] = {}
    errors: list[BaseException] = []

    def run(i: int, row: int) -> None:
        try:
            results[i] = db.database.run_in_transaction(_deposit(row, barrier, attempts))
        except BaseException as err:  # reported below
            errors.append(err)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i, row)) for i, row in enumerate(rows)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(OVERLAP_TIMEOUT_S * 2)
    assert not [t.name for t in threads if t.is_alive()], "a transaction thread is still running (a hang)"
    assert not errors, errors
    return attempts, [results[0], results[1]]


def test_transactions_on_different_rows_after_their_own_writes_both_commit(tdb: SpannerDb) -> None:
    _reset(tdb)
    attempts, seen = _run_pair(tdb, (1, 2))
    assert sorted(attempts) == [1, 2], f"a transaction was run again (aborted): {attempts}"
    assert seen == [[[110], [110], [111]], [[110], [110], [111]]]
    assert _balances(tdb) == [[1, 111], [2, 111], [3, 0], [4, 0]]


def test_transactions_on_the_same_row_after_their_own_writes_one_aborts(tdb: SpannerDb) -> None:
    _reset(tdb)
    attempts, _ = _run_pair(tdb, (1, 1))
    assert attempts == [1, 1, 1], f"exactly one of the two must be aborted and run again: {attempts}"
    assert _balances(tdb) == [[1, 122], [2, 100], [3, 0], [4, 100]]


def test_reads_of_other_rows_after_own_writes_do_not_abort(tdb: SpannerDb, server_address: str) -> None:
    """Without the client's retry: a transaction that wrote row 1 and then read rows 1 and 2 commits although another
    transaction wrote row 3 meanwhile; one that read row 3 after its own write is ABORTED."""
    _reset(tdb)
    raw = raw_spanner_client(server_address)
    session = raw.create_session(CreateSessionRequest(database=tdb.database.name))
    try:
        rw = TransactionOptions(read_write=TransactionOptions.ReadWrite())
        outcomes = []
        for read_row in (2, 3):
            txn = raw.begin_transaction(BeginTransactionRequest(session=session.name, options=rw))
            sel = TransactionSelector(id=txn.id)
            seq = iter(range(1, 10))
            for sql in (
                "UPDATE Acc SET Bal = Bal - 1 WHERE Id = 1",
                f"SELECT Bal FROM Acc WHERE Id IN (1, {read_row})",
            ):
                raw.execute_sql(ExecuteSqlRequest(session=session.name, transaction=sel, sql=sql, seqno=next(seq)))
            tdb.database.run_in_transaction(lambda tx: tx.execute_update("UPDATE Acc SET Bal = Bal + 5 WHERE Id = 3"))
            token = txn.precommit_token if txn._pb.HasField("precommit_token") else None
            try:
                raw.commit(CommitRequest(session=session.name, transaction_id=txn.id, precommit_token=token))
                outcomes.append("committed")
            except gexc.Aborted:
                outcomes.append("aborted")
    finally:
        raw.delete_session(name=session.name)
    assert outcomes == ["committed", "aborted"]
    assert _balances(tdb) == [[1, 99], [2, 100], [3, 110], [4, 100]]


def test_the_client_commits_with_the_latest_precommit_token(tdb: SpannerDb) -> None:
    _reset(tdb)
    tdb.recorder.clear()

    def work(tx: Transaction) -> None:
        tx.execute_update("UPDATE Acc SET Bal = 1 WHERE Id = 1")
        tx.execute_update("UPDATE Acc SET Bal = 2 WHERE Id = 2")
        tx.batch_update(["UPDATE Acc SET Bal = 3 WHERE Id = 3"])

    tdb.database.run_in_transaction(work)
    sent = [c.response().precommit_token for c in tdb.recorder.calls() if c.name in ("ExecuteSql", "ExecuteBatchDml")]
    commit = tdb.recorder.calls("Commit")[-1].request
    if not tdb.multiplexed:
        assert [t.seq_num for t in sent] == [0, 0, 0] and not commit.precommit_token.precommit_token
        return
    seqs = [t.seq_num for t in sent]
    assert len(seqs) == 3 and seqs == sorted(set(seqs)), f"seq_num must increase: {seqs}"
    assert (commit.precommit_token.seq_num, commit.precommit_token.precommit_token) == (
        seqs[-1],
        sent[-1].precommit_token,
    )
    assert _balances(tdb) == [[1, 1], [2, 2], [3, 3], [4, 100]]


def test_commit_without_the_precommit_token_is_failed_precondition(tdb: SpannerDb, server_address: str) -> None:
    _reset(tdb)
    raw = raw_spanner_client(server_address)
    mux = raw.create_session(CreateSessionRequest(database=tdb.database.name, session=Session(multiplexed=True)))
    rw = TransactionOptions(read_write=TransactionOptions.ReadWrite())
    txn = raw.begin_transaction(BeginTransactionRequest(session=mux.name, options=rw))
    result = raw.execute_sql(
        ExecuteSqlRequest(
            session=mux.name,
            transaction=TransactionSelector(id=txn.id),
            sql="UPDATE Acc SET Bal = 7 WHERE Id = 4",
            seqno=1,
        )
    )
    latest = result.precommit_token
    assert latest.seq_num > txn.precommit_token.seq_num
    with pytest.raises(gexc.FailedPrecondition) as info:
        raw.commit(CommitRequest(session=mux.name, transaction_id=txn.id))
    assert "precommit token" in str(info.value.message), info.value.message
    assert _balances(tdb)[3] == [4, 100]  # nothing committed, the transaction is still open
    raw.commit(CommitRequest(session=mux.name, transaction_id=txn.id, precommit_token=latest))
    assert _balances(tdb)[3] == [4, 7]


# DirectedReadOptions: "can only be specified for a read-only transaction, otherwise the API returns an
# INVALID_ARGUMENT error"; in a read-only one they choose replicas, which never changes the rows.
DIRECTED = DirectedReadOptions(
    include_replicas=DirectedReadOptions.IncludeReplicas(
        replica_selections=[DirectedReadOptions.ReplicaSelection(location="us-east1")]
    )
)


def test_directed_reads_only_in_read_only_transactions(tdb: SpannerDb) -> None:
    _reset(tdb)
    with tdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.execute_sql("SELECT Id FROM Acc WHERE Id < 3", directed_read_options=DIRECTED)]
    assert sorted(rows) == [[1], [2]]
    with pytest.raises(gexc.InvalidArgument) as info:
        tdb.database.run_in_transaction(
            lambda tx: list(tx.execute_sql("SELECT Id FROM Acc", directed_read_options=DIRECTED))
        )
    assert "read-only transaction" in str(info.value.message), info.value.message
    with pytest.raises(gexc.InvalidArgument):
        tdb.database.run_in_transaction(
            lambda tx: list(tx.read("Acc", ["Id"], KeySet(all_=True), directed_read_options=DIRECTED))
        )
