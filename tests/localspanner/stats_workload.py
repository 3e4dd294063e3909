"""The workload the SPANNER_SYS tests read back, run once per session as early as possible.

SPANNER_SYS.*_MINUTE tables show only closed minute intervals, so test_stats.py waited for the minute
of its workload to close: 30 s on average, up to 60. Run when the conformance suite starts (the
conftest's autouse fixture does that when test_stats.py is collected), that minute closes while
the other modules run."""

from __future__ import annotations

import contextlib
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from google.cloud.spanner_v1 import KeySet
from google.cloud.spanner_v1.instance import Instance

from spanload.model import tags

from .conftest import SpannerDb, create_database

MARKER_RUNS = 5
TXN_RUNS = 4


@dataclass(frozen=True)
class Workload:
    db: SpannerDb
    marker: str
    marker_client_s: float  # client wall time of all MARKER_RUNS queries
    lock_client_s: list[float]  # client wall time of the lock conflict's reader (set by run_lock_conflict)


@dataclass(frozen=True)
class StatsWorkloads:
    main: Workload  # for the tests that query SPANNER_SYS freely
    gauges: Workload  # for the gauge test alone: no SPANNER_SYS query may add a later minute to it

    def drop(self) -> None:
        for workload in (self.main, self.gauges):
            with contextlib.suppress(Exception):  # the server may be gone; local_spanner reports that
                workload.db.database.drop()


def marker_sql(marker: str) -> str:
    """The marker query: scans the 10 rows of Seen, returns 3."""
    return f"SELECT Id, '{marker}' AS marker FROM Seen WHERE MOD(Id, 4) = 0"


def run_workload(instance: Instance, address: str) -> Workload:
    """A distinctive query run MARKER_RUNS times and a transaction shape committed TXN_RUNS times."""
    db = create_database(
        instance,
        address,
        [
            "CREATE TABLE Seen (Id INT64 NOT NULL, Tag STRING(MAX)) PRIMARY KEY (Id)",
            "CREATE TABLE TxnOnly (Id INT64 NOT NULL, N INT64) PRIMARY KEY (Id)",
            "CREATE TABLE Ctr (Id INT64 NOT NULL, N INT64) PRIMARY KEY (Id)",
        ],
    )
    with db.database.batch() as batch:
        batch.insert("Seen", ["Id", "Tag"], [(i, "t") for i in range(10)])
    marker = "m" + uuid.uuid4().hex[:8]
    began = time.perf_counter()
    for _ in range(MARKER_RUNS):
        with db.database.snapshot() as snap:
            assert len(list(snap.execute_sql(marker_sql(marker)))) == 3
    marker_client_s = time.perf_counter() - began
    for i in range(TXN_RUNS):
        db.database.run_in_transaction(
            lambda tx, i=i: (
                list(tx.read("TxnOnly", ["Id"], KeySet(keys=[[i]]))),
                tx.insert_or_update("TxnOnly", ["Id", "N"], [(i, i)]),
            )
        )
    return Workload(db, marker, marker_client_s, [])


# Issue 27's request and transaction tags: two runs' tagged statements on one database, sent with
# the official client's own options (request_options, run_in_transaction's transaction_tag).
TAGGED_RUNS = {"a": 3, "b": 2}  # executions of the tagged query per run
TXN_TAGGED_RUNS = {"a": 2, "b": 1}  # tagged commits per run


def run_id(marker: str, which: str) -> str:
    """Two run ids whose tags (their first 12 characters) differ."""
    return f"{marker}{which * 3}"


def tagged_sql(marker: str) -> str:
    """Upper case: the untagged marker query's tests find their rows by ``LIKE '%marker%'``."""
    return f"SELECT '{marker.upper()}' AS tagged, Id FROM Seen WHERE Id < 2"


def other_text_sql(marker: str) -> str:
    """Another statement of run a's operation: same tag, so the same statistics row."""
    return f"SELECT COUNT(*), '{marker.upper()}' AS tagged FROM Seen"


def run_tagged(workload: Workload) -> None:
    db, marker = workload.db, workload.marker
    run_reads(workload)
    workload.lock_client_s.append(run_lock_conflict(workload))
    for which, n in TAGGED_RUNS.items():
        tag = tags.operation_tag(run_id(marker, which), "poll")
        for _ in range(n):
            with db.database.snapshot() as snap:
                assert len(list(snap.execute_sql(tagged_sql(marker), request_options={"request_tag": tag}))) == 2
    with db.database.snapshot() as snap:
        list(
            snap.execute_sql(
                other_text_sql(marker), request_options={"request_tag": tags.operation_tag(run_id(marker, "a"), "poll")}
            )
        )
    for which, n in TXN_TAGGED_RUNS.items():
        tag = tags.operation_tag(run_id(marker, which), "write")
        for i in range(n):
            db.database.run_in_transaction(
                lambda tx, i=i: tx.insert_or_update("TxnOnly", ["Id", "N"], [(100 + i, i)]), transaction_tag=tag
            )


# Issue 27's READ_STATS and LOCK_STATS: tagged Read RPCs, and one conflict between two tagged read-write
# transactions.
READ_RUNS_RO = 3  # tagged reads of Seen in read-only snapshots
READ_RUNS_RW = 2  # the same read in read-write transactions
SEEN_ROWS = 10


def read_tag(marker: str) -> str:
    return tags.operation_tag(run_id(marker, "a"), "read")


def lock_tags(marker: str) -> tuple[str, str]:
    """The transaction tags of the conflict's reader (which loses) and writer (which commits first), of a
    run id of their own: TXN_STATS tests count the tags that start with the marker's run ids."""
    return tags.operation_tag("lk" + marker, "reader"), tags.operation_tag("lk" + marker, "writer")


def run_reads(workload: Workload) -> None:
    db, tag = workload.db, read_tag(workload.marker)
    opts = {"request_tag": tag}
    for _ in range(READ_RUNS_RO):
        with db.database.snapshot() as snap:
            assert len(list(snap.read("Seen", ["Tag", "Id"], KeySet(all_=True), request_options=opts))) == SEEN_ROWS
    for _ in range(READ_RUNS_RW):
        db.database.run_in_transaction(
            lambda tx: len(list(tx.read("Seen", ["Tag", "Id"], KeySet(all_=True), request_options=opts)))
        )


def run_lock_conflict(workload: Workload) -> float:
    """The reader reads Ctr(1) and, before it commits, the writer updates the row and commits: the
    reader's first attempt is aborted and the client retries it. Returns the client's wall time of the
    whole reader transaction (every attempt)."""
    db = workload.db
    reader_tag, writer_tag = lock_tags(workload.marker)
    with db.database.batch() as batch:
        batch.insert("Ctr", ["Id", "N"], [(1, 0)])
    attempts: list[int] = []

    def reader(tx: Any) -> None:
        attempts.append(1)
        ((_, n),) = list(tx.read("Ctr", ["Id", "N"], KeySet(keys=[[1]])))
        if len(attempts) == 1:  # the client allows one transaction per thread: the writer runs in another
            with ThreadPoolExecutor(1) as pool:
                pool.submit(
                    db.database.run_in_transaction,
                    lambda w: w.update("Ctr", ["Id", "N"], [(1, n + 10)]),
                    transaction_tag=writer_tag,
                ).result(timeout=60)
        tx.update("Ctr", ["Id", "N"], [(1, n + 1)])

    began = time.perf_counter()
    db.database.run_in_transaction(reader, transaction_tag=reader_tag)
    took = time.perf_counter() - began
    assert len(attempts) == 2, f"the reader ran {len(attempts)} times: its first attempt must be aborted once"
    return took
