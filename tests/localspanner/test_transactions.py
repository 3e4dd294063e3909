"""Issue 8, "Sessions and transactions": read-write transactions, isolation, commit timestamps, writes."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from google.api_core import exceptions as gexc
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud.spanner_v1 import (
    COMMIT_TIMESTAMP,
    BeginTransactionRequest,
    CreateSessionRequest,
    ExecuteSqlRequest,
    KeyRange,
    KeySet,
    ResultSet,
    TransactionOptions,
    TransactionSelector,
    param_types,
)
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.transaction import Transaction
from google.cloud.spanner_v1.types import Transaction as TransactionPb
from google.protobuf import duration_pb2, timestamp_pb2
from google.rpc import error_details_pb2  # type: ignore[import-untyped]

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client
from .schemas import CHANGE_WATCHER_DDL, CHANGE_WATCHER_INDEX, SHARDS

DDL = [
    "CREATE TABLE Counters (Id INT64 NOT NULL, Value INT64 NOT NULL) PRIMARY KEY (Id)",
    "CREATE TABLE Items (Id INT64 NOT NULL, Name STRING(MAX), Qty INT64, Plain TIMESTAMP) PRIMARY KEY (Id)",
    "CREATE TABLE Oncall (Doctor INT64 NOT NULL, OnCall BOOL NOT NULL) PRIMARY KEY (Doctor)",
    "CREATE TABLE Bookings (Id INT64 NOT NULL, Day INT64 NOT NULL) PRIMARY KEY (Id)",
    "CREATE TABLE Visible (Id INT64 NOT NULL) PRIMARY KEY (Id)",
    """CREATE TABLE Changes (
        Id INT64 NOT NULL, LastUpdated TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true)
    ) PRIMARY KEY (Id)""",
    "CREATE INDEX ChangesByTime ON Changes (LastUpdated)",
    """CREATE TABLE Stamps (Id INT64 NOT NULL, Note STRING(MAX),
        StampedAt TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)""",
]

COUNTER_ROWS = 4
THREADS = 16
INCREMENTS_PER_THREAD = 8
JOIN_TIMEOUT_S = 120.0


@pytest.fixture(scope="module")
def tdb(make_database: DatabaseFactory) -> SpannerDb:
    db = make_database(DDL)
    with db.database.batch() as batch:
        batch.insert("Counters", ["Id", "Value"], [(i, 0) for i in range(COUNTER_ROWS)])
    return db


def _counters(database: Database) -> dict[int, int]:
    with database.snapshot() as snap:
        return {row[0]: row[1] for row in snap.execute_sql("SELECT Id, Value FROM Counters")}


def _run_threads(targets: list[Callable[[], None]], timeout: float = JOIN_TIMEOUT_S) -> list[BaseException]:
    errors: list[BaseException] = []
    lock = threading.Lock()

    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except BaseException as err:
                with lock:
                    errors.append(err)

        return run

    threads = [threading.Thread(target=wrap(t), daemon=True) for t in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = sum(t.is_alive() for t in threads)
    assert not stuck, f"{stuck} of {len(threads)} threads still running after {timeout:.0f} s: deadlock?"
    return errors


def _aborted_calls(db: SpannerDb) -> list[Any]:
    return [c for c in db.recorder.calls() if c.code() == grpc.StatusCode.ABORTED]


# ---- read-write transactions -------------------------------------------------------------------


def test_explicit_begin_transaction_and_commit(tdb: SpannerDb) -> None:
    tdb.recorder.clear()

    def work(tx: Transaction) -> None:
        tx.insert("Items", ["Id", "Name", "Qty"], [(1, "explicit", 1)])

    tdb.database.run_in_transaction(work)
    # a transaction of mutations only has no statement to begin it inline: the client sends
    # BeginTransaction (read-write), then commits the id it returned, in the same session
    (begin,) = tdb.recorder.calls("BeginTransaction")
    (commit,) = tdb.recorder.calls("Commit")
    assert "read_write" in begin.request.options, begin.request
    began = begin.response()
    assert began.id, "BeginTransaction returns the transaction's id"
    assert commit.request.transaction_id == began.id, (commit.request.transaction_id, began.id)
    assert commit.request.session == begin.request.session
    assert [m.insert.table for m in commit.request.mutations] == ["Items"], commit.request.mutations
    assert commit.code() == grpc.StatusCode.OK
    with tdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Name, Qty FROM Items WHERE Id = 1")) == [["explicit", 1]]


def test_inline_begin_with_first_statement(tdb: SpannerDb) -> None:
    tdb.recorder.clear()
    counts = tdb.database.run_in_transaction(
        lambda tx: (
            tx.execute_update("INSERT INTO Items (Id, Name, Qty) VALUES (2, 'inline', 2)"),
            tx.execute_update("UPDATE Items SET Qty = Qty + 1 WHERE Id = 2"),
        )
    )
    assert counts == (1, 1)
    sqls = tdb.recorder.calls("ExecuteSql")
    begins = [c for c in sqls if "begin" in c.request.transaction]
    assert begins, "the client's first DML should carry an inline begin"
    first = begins[0].response()
    assert first.metadata.transaction.id, "a statement with an inline begin must return the transaction id"
    with tdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Qty FROM Items WHERE Id = 2")) == [[3]]


def test_single_use_commit_through_batch(tdb: SpannerDb) -> None:
    tdb.recorder.clear()
    with tdb.database.batch() as batch:
        batch.insert("Items", ["Id", "Name", "Qty"], [(3, "single-use", 3)])
    commits = tdb.recorder.calls("Commit")
    assert commits and "single_use_transaction" in commits[-1].request, "batch() commits in one single-use RPC"
    assert not tdb.recorder.calls("BeginTransaction"), "a single-use commit needs no BeginTransaction"
    assert batch.committed is not None
    with tdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Name FROM Items WHERE Id = 3")) == [["single-use"]]


@contextmanager
def _manual_transaction(database: Database) -> Iterator[Transaction]:
    session = database.session()
    session.create()
    try:
        yield session.transaction()
    finally:
        session.delete()


def test_rollback_discards_the_writes(tdb: SpannerDb) -> None:
    with _manual_transaction(tdb.database) as tx:
        tx.begin()
        assert tx.execute_update("INSERT INTO Items (Id, Name, Qty) VALUES (4, 'rolled back', 4)") == 1
        rows = list(tx.execute_sql("SELECT Name FROM Items WHERE Id = 4"))
        assert rows == [["rolled back"]], "a transaction reads its own DML writes"
        tx.rollback()
    with tdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Name FROM Items WHERE Id = 4")) == []


Write = Callable[[], None]


def _race(database: Database, names: list[int], body: Callable[[Transaction, int], Write]) -> Counter[int]:
    """One read-write transaction per name, all at once; returns how often each was attempted.

    ``body(tx, name)`` does the reads and returns the writes. On its first attempt every transaction
    waits at a barrier between the two, so all of them have read before any of them writes.
    """
    barrier = threading.Barrier(len(names), timeout=20)
    attempts: Counter[int] = Counter()

    def transaction(name: int) -> Callable[[], None]:
        def work(tx: Transaction) -> None:
            attempts[name] += 1
            write = body(tx, name)
            if attempts[name] == 1:
                barrier.wait()
            write()

        return lambda: database.run_in_transaction(work)

    errors = _run_threads([transaction(n) for n in names], timeout=90)
    assert not errors, (
        f"{errors!r}: transactions that read the same rows must not block each other's reads "
        "(shared read locks) and must all finish, after retries if need be"
    )
    return attempts


def _bump(row: int, by: int) -> Callable[[Transaction, int], Write]:
    def body(tx: Transaction, _name: int) -> Write:
        rows = list(tx.execute_sql("SELECT Value FROM Counters WHERE Id = @id", {"id": row}, {"id": param_types.INT64}))
        return lambda: tx.update("Counters", ["Id", "Value"], [(row, rows[0][0] + by)])

    return body


def test_transactions_on_different_rows_run_concurrently(tdb: SpannerDb) -> None:
    """Both transactions are open at once (a barrier between read and write): neither may abort."""
    before = _counters(tdb.database)
    attempts = _race(tdb.database, [0, 1], lambda tx, row: _bump(row, 10)(tx, row))
    assert attempts == Counter({0: 1, 1: 1}), f"transactions on different rows were retried: {attempts}"
    after = _counters(tdb.database)
    assert after[0] == before[0] + 10 and after[1] == before[1] + 10


def test_conflicting_transactions_serialize_and_loser_is_aborted_with_retry_delay(tdb: SpannerDb) -> None:
    tdb.recorder.clear()
    before = _counters(tdb.database)[2]
    attempts = _race(tdb.database, [1, 2], _bump(2, 1))
    assert _counters(tdb.database)[2] == before + 2, "lost update: both increments must survive"
    assert sum(attempts.values()) >= 3, f"both read the same value, so one must have been aborted: {attempts}"
    aborted = _aborted_calls(tdb)
    assert aborted, "the loser must get ABORTED"
    for call in aborted:
        raw = call.trailing_metadata().get("google.rpc.retryinfo-bin")
        assert raw is not None, f"{call.name} ABORTED without RetryInfo (google.rpc.retryinfo-bin)"
        info = error_details_pb2.RetryInfo.FromString(raw)
        delay = info.retry_delay.seconds + info.retry_delay.nanos / 1e9
        assert 0 < delay <= 1.0, f"retry delay {delay} s"


def test_no_write_skew(tdb: SpannerDb) -> None:
    """Serializable, not snapshot isolation: two doctors may not both go off call at once.

    Each transaction reads both rows and takes its own doctor off call only if both are on call.
    Under snapshot isolation both would commit (write skew); serializably, one must see the other.
    """
    with tdb.database.batch() as batch:
        batch.insert_or_update("Oncall", ["Doctor", "OnCall"], [(1, True), (2, True)])

    def go_off_call(tx: Transaction, doctor: int) -> Write:
        on_call = [r[0] for r in tx.execute_sql("SELECT Doctor FROM Oncall WHERE OnCall")]
        if len(on_call) == 2:
            return lambda: tx.update("Oncall", ["Doctor", "OnCall"], [(doctor, False)])
        return lambda: None

    attempts = _race(tdb.database, [1, 2], go_off_call)
    with tdb.database.snapshot() as snap:
        still = [list(r) for r in snap.execute_sql("SELECT Doctor FROM Oncall WHERE OnCall")]
    assert len(still) == 1, f"write skew: doctors on call afterwards {still} (attempts {dict(attempts)})"


def test_no_phantom_insert(tdb: SpannerDb) -> None:
    """Two transactions each book day 7 only if nobody has: serializably, exactly one booking exists."""

    def book(tx: Transaction, booking: int) -> Write:
        taken = next(iter(tx.execute_sql("SELECT COUNT(*) FROM Bookings WHERE Day = 7")))[0]
        if taken == 0:
            return lambda: tx.insert("Bookings", ["Id", "Day"], [(booking, 7)])
        return lambda: None

    attempts = _race(tdb.database, [1, 2], book)
    with tdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.execute_sql("SELECT Id FROM Bookings WHERE Day = 7")]
    assert len(rows) == 1, f"phantom: bookings for day 7 are {rows} (attempts {dict(attempts)})"


def test_16_threads_increment_the_same_rows_without_lost_updates(tdb: SpannerDb) -> None:
    rng = random.Random(8)
    plan = [[rng.randrange(COUNTER_ROWS) for _ in range(INCREMENTS_PER_THREAD)] for _ in range(THREADS)]
    attempts = Counter[str]()
    lock = threading.Lock()
    before = _counters(tdb.database)
    tdb.recorder.clear()

    def increment(tx: Transaction, row: int) -> None:
        with lock:
            attempts["attempts"] += 1
        rows = list(tx.execute_sql("SELECT Value FROM Counters WHERE Id = @id", {"id": row}, {"id": param_types.INT64}))
        tx.update("Counters", ["Id", "Value"], [(row, rows[0][0] + 1)])

    def worker(rows: list[int]) -> Callable[[], None]:
        def run() -> None:
            for row in rows:
                tdb.database.run_in_transaction(increment, row, timeout_secs=JOIN_TIMEOUT_S)

        return run

    errors = _run_threads([worker(p) for p in plan])
    assert not errors, f"{len(errors)} workers failed: {errors[:3]!r}"
    expected = Counter(row for p in plan for row in p)
    after = _counters(tdb.database)
    lost = {row: before[row] + expected[row] - after[row] for row in expected}
    assert all(v == 0 for v in lost.values()), f"lost or extra updates per row: {lost}"
    total = THREADS * INCREMENTS_PER_THREAD
    retries = attempts["attempts"] - total
    aborted = len(_aborted_calls(tdb))
    print(f"\n{total} transactions, {retries} retries, {aborted} ABORTED RPCs ({tdb.mode} sessions)")
    assert retries <= aborted, f"{retries} retries but only {aborted} ABORTED statuses: something else failed"


def test_abandoned_transaction_is_cleaned_up(tdb: SpannerDb) -> None:
    """A transaction that takes a lock and is never committed or rolled back must not block others."""
    if tdb.multiplexed:
        pytest.skip("run once, with regular sessions (the abandoned transaction holds a regular session)")
    session = tdb.database.session()
    session.create()
    abandoned = session.transaction()
    abandoned.begin()
    assert abandoned.execute_update("UPDATE Counters SET Value = Value + 100 WHERE Id = 3") == 1
    before = _counters(tdb.database)[3]
    errors = _run_threads(
        [
            lambda: tdb.database.run_in_transaction(
                lambda tx: tx.execute_update("UPDATE Counters SET Value = Value + 1 WHERE Id = 3"), timeout_secs=100
            )
        ],
        timeout=110,
    )
    assert not errors, f"a transaction blocked by an abandoned one never finished: {errors!r}"
    assert _counters(tdb.database)[3] == before + 1, "the abandoned +100 must never be applied"
    with pytest.raises(gexc.Aborted):  # the transaction that took its lock won; Spanner aborts the loser
        abandoned.commit()
    assert _counters(tdb.database)[3] == before + 1
    session.delete()


# ---- commit timestamps --------------------------------------------------------------------------


def _commit_row(database: Database, table: str, row: tuple[Any, ...], columns: list[str]) -> DatetimeWithNanoseconds:
    with database.batch() as batch:
        batch.insert_or_update(table, columns, [row])
    committed: DatetimeWithNanoseconds = batch.committed
    return committed


def _ns(ts: Any) -> int:
    pb = ts.timestamp_pb() if hasattr(ts, "timestamp_pb") else ts
    return int(pb.seconds) * 1_000_000_000 + int(pb.nanos)


def _from_ns(ns: int) -> DatetimeWithNanoseconds:
    pb = timestamp_pb2.Timestamp(seconds=ns // 10**9, nanos=ns % 10**9)
    ts: DatetimeWithNanoseconds = DatetimeWithNanoseconds.from_timestamp_pb(pb)
    return ts


def test_commit_timestamps_strictly_increase(tdb: SpannerDb) -> None:
    sequential = [_ns(_commit_row(tdb.database, "Stamps", (i, "seq"), ["Id", "Note"])) for i in range(40)]
    assert all(b > a for a, b in itertools.pairwise(sequential)), "sequential commits must increase"
    assert all(t % 1000 == 0 for t in sequential), "Spanner commit timestamps have microsecond precision"
    stamps: list[int] = []
    lock = threading.Lock()

    def writer(base: int) -> Callable[[], None]:
        def run() -> None:
            for i in range(15):
                ts = _ns(_commit_row(tdb.database, "Stamps", (base + i, "par"), ["Id", "Note"]))
                with lock:
                    stamps.append(ts)

        return run

    errors = _run_threads([writer(1000 * (k + 1)) for k in range(4)])
    assert not errors, errors
    assert len(set(stamps)) == len(stamps), "two commits got the same timestamp"
    assert min(stamps) > sequential[-1]


def test_commit_visible_exactly_from_its_timestamp(tdb: SpannerDb) -> None:
    ts = _commit_row(tdb.database, "Stamps", (5000, "visible"), ["Id", "Note"])
    sql = "SELECT Note FROM Stamps WHERE Id = 5000"
    with tdb.database.snapshot(read_timestamp=ts) as snap:
        assert list(snap.execute_sql(sql)) == [["visible"]], "a read at the commit timestamp must see the commit"
    with tdb.database.snapshot(read_timestamp=_from_ns(_ns(ts) - 1)) as snap:
        assert list(snap.execute_sql(sql)) == [], "a read 1 ns before the commit timestamp must not see it"
    with tdb.database.snapshot() as snap:
        assert list(snap.execute_sql(sql)) == [["visible"]]


READ_KINDS = ["single-use strong", "single-use max_staleness", "multi-use strong"]


@pytest.mark.parametrize("kind", READ_KINDS)
def test_reads_see_exactly_the_commits_up_to_their_timestamp(tdb: SpannerDb, server_address: str, kind: str) -> None:
    """Under concurrent commits, every read at R sees each commit iff its timestamp <= R."""
    raw = raw_spanner_client(server_address)
    offset = 100_000 * (READ_KINDS.index(kind) + 1)
    committed: dict[int, int] = {}
    reads: list[tuple[int, set[int]]] = []
    done = threading.Event()
    lock = threading.Lock()
    sql = f"SELECT Id FROM Visible WHERE Id >= {offset} AND Id < {offset + 100_000}"
    read_only = TransactionOptions.ReadOnly(return_read_timestamp=True)
    if kind.endswith("max_staleness"):
        read_only.max_staleness = duration_pb2.Duration(nanos=50_000_000)
    else:
        read_only.strong = True

    def writer(base: int) -> Callable[[], None]:
        def run() -> None:
            for i in range(40):
                with tdb.database.batch() as batch:
                    batch.insert("Visible", ["Id"], [(base + i,)])
                with lock:
                    committed[base + i] = _ns(batch.committed)

        return run

    def read_once(session: str) -> None:
        def query(selector: TransactionSelector, seqno: int = 0) -> tuple[Any, set[int]]:
            request = ExecuteSqlRequest(session=session, sql=sql, transaction=selector, seqno=seqno)
            result = ResultSet.pb(raw.execute_sql(request))
            return result.metadata.transaction.read_timestamp, {int(r.values[0].string_value) for r in result.rows}

        if kind.startswith("multi-use"):
            begin = BeginTransactionRequest(session=session, options=TransactionOptions(read_only=read_only))
            txn = TransactionPb.pb(raw.begin_transaction(begin))
            _, first = query(TransactionSelector(id=txn.id), 1)
            _, second = query(TransactionSelector(id=txn.id), 2)
            assert first == second, "two reads in one read-only transaction differ"
            reads.append((txn.read_timestamp.seconds * 10**9 + txn.read_timestamp.nanos, first))
            return
        pb, ids = query(TransactionSelector(single_use=TransactionOptions(read_only=read_only)))
        reads.append((pb.seconds * 10**9 + pb.nanos, ids))

    reader_errors: list[BaseException] = []

    def reader() -> None:
        try:
            session = raw.create_session(CreateSessionRequest(database=tdb.database.name)).name
            while not done.is_set():
                read_once(session)
            raw.delete_session(name=session)
        except BaseException as err:  # reaches pytest through reader_errors below
            with lock:
                reader_errors.append(err)

    readers = [threading.Thread(target=reader, daemon=True) for _ in range(2)]
    for t in readers:
        t.start()
    errors = _run_threads([writer(offset + k * 1000) for k in range(4)])
    done.set()
    for t in readers:
        t.join(30)
    assert not any(t.is_alive() for t in readers), "a reader thread was still running 30 s after the writers ended"
    assert not errors, errors
    assert not reader_errors, reader_errors
    assert len(reads) >= 5, f"only {len(reads)} reads ran alongside the writers"
    for read_ts, ids in reads:
        assert read_ts > 0, "return_read_timestamp must give the read timestamp"
        expected = {i for i, ts in committed.items() if ts <= read_ts}
        assert ids == expected, (
            f"{kind} read at {read_ts} misses {sorted(expected - ids)[:5]} and sees rows committed after it: "
            f"{[(i, committed[i]) for i in sorted(ids - expected)[:5]]}"
        )


def test_commit_timestamp_sentinel_stores_the_response_timestamp(tdb: SpannerDb) -> None:
    with tdb.database.batch() as batch:
        batch.insert("Stamps", ["Id", "Note", "StampedAt"], [(6000, "sentinel", COMMIT_TIMESTAMP)])
    with tdb.database.snapshot() as snap:
        stored = next(iter(snap.execute_sql("SELECT StampedAt FROM Stamps WHERE Id = 6000")))[0]
    assert _ns(stored) == _ns(batch.committed), f"stored {stored!r} != CommitResponse {batch.committed!r}"


def test_pending_commit_timestamp_in_dml(tdb: SpannerDb) -> None:
    with tdb.database.batch() as batch:  # its own row to update: tests of a file may run on other workers
        batch.insert_or_update("Stamps", ["Id", "Note"], [(6000, "to stamp")])
    with _manual_transaction(tdb.database) as tx:
        tx.begin()
        tx.execute_update("INSERT INTO Stamps (Id, Note, StampedAt) VALUES (6001, 'dml', PENDING_COMMIT_TIMESTAMP())")
        tx.execute_update("UPDATE Stamps SET StampedAt = PENDING_COMMIT_TIMESTAMP() WHERE Id = 6000")
        committed = tx.commit()
    with tdb.database.snapshot() as snap:
        rows = list(snap.execute_sql("SELECT Id, StampedAt FROM Stamps WHERE Id IN (6000, 6001) ORDER BY Id"))
    assert [r[0] for r in rows] == [6000, 6001]
    assert all(_ns(r[1]) == _ns(committed) for r in rows), f"{rows} != {committed}"


def test_commit_timestamp_sentinel_rejected_without_the_option(tdb: SpannerDb) -> None:
    with pytest.raises(gexc.FailedPrecondition), tdb.database.batch() as batch:
        batch.insert("Items", ["Id", "Plain"], [(7000, COMMIT_TIMESTAMP)])  # no allow_commit_timestamp


def test_future_timestamp_rejected_in_a_commit_timestamp_column(tdb: SpannerDb) -> None:
    """A value after the commit time would break every change watcher, so Spanner refuses it."""
    now = time.time_ns()
    try:
        with tdb.database.batch() as batch:
            batch.insert("Stamps", ["Id", "Note", "StampedAt"], [(6100, "future", _from_ns(now + 3600 * 10**9))])
    except gexc.FailedPrecondition as err:
        assert "future" in err.message.lower(), err.message
    else:
        pytest.fail(
            "a timestamp an hour ahead was accepted in an allow_commit_timestamp column; "
            "Spanner answers FAILED_PRECONDITION 'Cannot write timestamps in the future'"
        )
    with tdb.database.batch() as batch:
        batch.insert("Stamps", ["Id", "Note", "StampedAt"], [(6101, "past", _from_ns(now - 3600 * 10**9))])
    with tdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.execute_sql("SELECT Id FROM Stamps WHERE Id IN (6100, 6101)")]
    assert rows == [[6101]]


def test_return_commit_stats_gives_the_mutation_count(tdb: SpannerDb) -> None:
    session = tdb.database.session()
    session.create()
    try:
        batch = session.batch()
        batch.insert("Items", ["Id", "Name", "Qty"], [(8000 + i, "stats", i) for i in range(3)])
        batch.commit(return_commit_stats=True)
    finally:
        session.delete()
    assert batch.commit_stats is not None
    assert batch.commit_stats.mutation_count == 9, f"3 rows x 3 columns: {batch.commit_stats}"


class WatchShape:
    """A table that writers fill with commit timestamps and the poll query that watches it."""

    def __init__(
        self, table: str, key: Callable[[int, int, int], Any], sql: str, params: dict[str, Any], types: dict[str, Any]
    ) -> None:
        self.table = table
        self.key = key
        self.sql = sql
        self.params = params
        self.types = types


WATCH_SHAPES = {
    "plain": WatchShape(
        "Changes",
        lambda w, seq, k: w * 100_000 + seq * 10 + k,
        "SELECT Id, LastUpdated FROM Changes WHERE LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT 10000",
        {},
        {},
    ),
    "change watcher (FORCE_INDEX, shard list)": WatchShape(
        "DataChanges",
        lambda w, seq, k: f"w{w}-s{seq}-k{k}",
        f"SELECT Id, LastUpdated FROM DataChanges@{{FORCE_INDEX={CHANGE_WATCHER_INDEX}}} "
        "WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
        {"shards": SHARDS, "limit": 10000},
        {"shards": param_types.Array(param_types.INT64), "limit": param_types.INT64},
    ),
}


@pytest.fixture(scope="module")
def watcher_db(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(CHANGE_WATCHER_DDL)


@pytest.mark.parametrize("shape_name", list(WATCH_SHAPES))
def test_change_watcher_never_misses_a_commit(tdb: SpannerDb, watcher_db: SpannerDb, shape_name: str) -> None:
    """A poller reads `LastUpdated > @ts ORDER BY LastUpdated` while 8 writers commit; it must see all."""
    shape = WATCH_SHAPES[shape_name]
    database = tdb.database if shape.table == "Changes" else watcher_db.database
    writers, commits_per_writer = 8, 30
    written: dict[Any, int] = {}
    done = threading.Event()
    lock = threading.Lock()
    seen: dict[Any, int] = {}
    order: list[int] = []
    polls = Counter[str]()

    def writer(w: int) -> Callable[[], None]:
        def run() -> None:
            rng = random.Random(w)
            for seq in range(commits_per_writer):
                ids = [shape.key(w, seq, k) for k in range(rng.randint(1, 3))]
                with database.batch() as batch:
                    batch.insert(shape.table, ["Id", "LastUpdated"], [(i, COMMIT_TIMESTAMP) for i in ids])
                with lock:
                    for i in ids:
                        written[i] = _ns(batch.committed)
                time.sleep(rng.random() * 0.004)  # spread the commits so polls interleave with them

        return run

    def poll_once(last: int) -> int:
        params = {**shape.params, "ts": _from_ns(last)}
        types = {**shape.types, "ts": param_types.TIMESTAMP}
        with database.snapshot() as snap:
            rows = list(snap.execute_sql(shape.sql, params=params, param_types=types))
        polls["polls"] += 1
        newest = last
        for row_id, ts in rows:
            t = _ns(ts)
            assert row_id not in seen, f"row {row_id} returned twice"
            assert t > last, f"row {row_id} at {t} is not after the poll timestamp {last}"
            seen[row_id] = t
            order.append(t)
            newest = max(newest, t)
        return newest

    poll_errors: list[BaseException] = []
    during: dict[str, int] = {}

    def poller() -> None:
        last = 0
        try:
            while not done.is_set():
                last = poll_once(last)
            during.update(polls=polls["polls"], rows=len(seen))
            for _ in range(3):  # catch up after the writers stopped
                last = poll_once(last)
        except BaseException as err:
            poll_errors.append(err)

    poll_thread = threading.Thread(target=poller, daemon=True)
    poll_thread.start()
    errors = _run_threads([writer(w) for w in range(writers)])
    done.set()
    poll_thread.join(60)
    assert not poll_thread.is_alive(), "the poller did not finish"
    assert not poll_errors, f"the poller failed: {poll_errors[0]!r}"
    assert not errors, errors
    missed = sorted(set(written) - set(seen), key=str)
    assert not missed, f"the watcher missed {len(missed)} of {len(written)} rows, e.g. {missed[:5]}"
    assert seen == written, "every row must carry exactly its commit timestamp"
    assert order == sorted(order)
    assert during["polls"] >= 5 and during["rows"] > 0, (
        f"the poller must run while the writers commit: {during} before they finished"
    )


# ---- writes ---------------------------------------------------------------------------------------


def test_mutations_of_every_kind(tdb: SpannerDb) -> None:
    base = 20_000
    with tdb.database.batch() as batch:
        batch.insert("Items", ["Id", "Name", "Qty"], [(base + i, f"n{i}", i) for i in range(10)])
    with tdb.database.batch() as batch:
        batch.update("Items", ["Id", "Qty"], [(base + 1, 100)])
        batch.insert_or_update("Items", ["Id", "Name"], [(base + 2, "upserted"), (base + 10, "new")])
        batch.replace("Items", ["Id", "Name"], [(base + 3, "replaced")])
        batch.delete("Items", KeySet(keys=[[base + 4]]))
        batch.delete("Items", KeySet(ranges=[KeyRange(start_closed=[base + 6], end_open=[base + 8])]))
        batch.delete("Items", KeySet(ranges=[KeyRange(start_open=[base + 8], end_closed=[base + 9])]))
    with tdb.database.snapshot() as snap:
        rows = list(
            snap.execute_sql(
                "SELECT Id - @b, Name, Qty FROM Items WHERE Id >= @b AND Id < @e ORDER BY Id",
                params={"b": base, "e": base + 100},
                param_types={"b": param_types.INT64, "e": param_types.INT64},
            )
        )
    assert rows == [
        [0, "n0", 0],
        [1, "n1", 100],
        [2, "upserted", 2],
        [3, "replaced", None],
        [5, "n5", 5],
        [8, "n8", 8],
        [10, "new", None],
    ]


def test_dml_with_then_return(tdb: SpannerDb) -> None:
    def work(tx: Transaction) -> tuple[list[Any], list[Any], list[Any], int]:
        ins = list(
            tx.execute_sql(
                "INSERT INTO Items (Id, Name, Qty) VALUES (30000, 'a', 1), (30001, 'b', 2) "
                "THEN RETURN Id, Qty * 10 AS Tenfold"
            )
        )
        upd = list(tx.execute_sql("UPDATE Items SET Qty = Qty + 5 WHERE Id IN (30000, 30001) THEN RETURN Id, Qty"))
        dele = list(tx.execute_sql("DELETE FROM Items WHERE Id = 30001 THEN RETURN Name"))
        plain = tx.execute_update("UPDATE Items SET Name = 'z' WHERE Id >= 30000 AND Id < 30010")
        return ins, upd, dele, plain

    ins, upd, dele, plain = tdb.database.run_in_transaction(work)
    assert sorted(ins) == [[30000, 10], [30001, 20]]
    assert sorted(upd) == [[30000, 6], [30001, 7]]
    assert dele == [["b"]]
    assert plain == 1
    with tdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Id, Name, Qty FROM Items WHERE Id >= 30000 AND Id < 30010")) == [
            [30000, "z", 6]
        ]


def test_batch_dml_stops_at_the_first_failing_statement(tdb: SpannerDb) -> None:
    statements = [
        "INSERT INTO Items (Id, Name) VALUES (40000, 'first')",
        "UPDATE Items SET Qty = 7 WHERE Id = 40000",
        "INSERT INTO Items (Id, Name) VALUES (40000, 'duplicate')",
        "INSERT INTO Items (Id, Name) VALUES (40001, 'never')",
    ]
    status, counts = tdb.database.run_in_transaction(lambda tx: tx.batch_update(statements))
    assert status.code == 6, f"ALREADY_EXISTS (6) expected for the third statement: {status}"
    # Cloud Spanner's text for a key that exists (as its mutations' test in test_sql_storage.py has it;
    # the emulator words it "Table Items: Row {Int64(40000)} already exists.")
    assert status.message.split(", request_id = ")[0] == "Row [40000] in table Items already exists", status
    assert counts == [1, 1], f"row counts of the statements before the failure only: {counts}"
    with tdb.database.snapshot() as snap:
        rows = list(snap.execute_sql("SELECT Id, Name, Qty FROM Items WHERE Id IN (40000, 40001)"))
    assert rows == [[40000, "first", 7]]
