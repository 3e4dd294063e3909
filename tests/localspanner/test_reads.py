"""Issue 8, "Reads and snapshots" and "Reads and queries": timestamp bounds, Read, splits, query modes."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud.spanner_v1 import (
    CreateSessionRequest,
    ExecuteSqlRequest,
    KeyRange,
    KeySet,
    ReadRequest,
    ResultSet,
    TransactionOptions,
    TransactionSelector,
    param_types,
)
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.cloud.spanner_v1.types import KeySet as KeySetPb
from google.protobuf import duration_pb2, struct_pb2

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = [
    "CREATE TABLE Versions (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)",
    "CREATE TABLE Scores (Id INT64 NOT NULL, Player STRING(MAX), Score INT64, Note STRING(MAX)) PRIMARY KEY (Id)",
    "CREATE INDEX ScoresByPlayer ON Scores (Player, Score DESC) STORING (Note)",
    "CREATE TABLE Blobs (Id INT64 NOT NULL, Payload STRING(MAX)) PRIMARY KEY (Id)",
]
GAP_S = 1.5
BLOB_ROWS = 1500
BLOB_SIZE = 1024


def _ns(ts: Any) -> int:
    pb = ts.timestamp_pb() if hasattr(ts, "timestamp_pb") else ts
    return int(pb.seconds) * 1_000_000_000 + int(pb.nanos)


def _write(database: Any, value: str) -> DatetimeWithNanoseconds:
    with database.batch() as batch:
        batch.insert_or_update("Versions", ["Id", "V"], [(1, value)])
    committed: DatetimeWithNanoseconds = batch.committed
    return committed


@pytest.fixture(scope="module")
def versions(make_database: DatabaseFactory) -> tuple[SpannerDb, list[DatetimeWithNanoseconds]]:
    """Three versions of one row, GAP_S apart, and the three commit timestamps."""
    db = make_database(DDL)
    stamps = []
    for i, value in enumerate(("v1", "v2", "v3")):
        if i:
            time.sleep(GAP_S)
        stamps.append(_write(db.database, value))
    with db.database.batch() as batch:
        batch.insert(
            "Scores",
            ["Id", "Player", "Score", "Note"],
            [(i, f"p{i % 3}", i * 10, f"note{i}") for i in range(12)],
        )
        batch.insert("Blobs", ["Id", "Payload"], [(i, f"{i:06d}" + "x" * (BLOB_SIZE - 6)) for i in range(BLOB_ROWS)])
    return db, stamps


@pytest.fixture(scope="module")
def raw(server_address: str) -> SpannerClient:
    return raw_spanner_client(server_address)


def _session(raw: SpannerClient, db: SpannerDb) -> str:
    name: str = raw.create_session(CreateSessionRequest(database=db.database.name)).name
    return name


def _value_at(stamps: list[DatetimeWithNanoseconds], read_ns: int) -> str | None:
    visible = [f"v{i + 1}" for i, ts in enumerate(stamps) if _ns(ts) <= read_ns]
    return visible[-1] if visible else None


def test_single_use_read_only(versions: tuple[SpannerDb, list[Any]]) -> None:
    db, _ = versions
    with db.database.snapshot() as snap:
        assert list(snap.read("Versions", ["Id", "V"], KeySet(keys=[[1]]))) == [[1, "v3"]]
    with db.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT V FROM Versions WHERE Id = 1")) == [["v3"]]


def test_strong_multi_use_snapshot_is_consistent(versions: tuple[SpannerDb, list[Any]]) -> None:
    db, _ = versions
    with db.database.snapshot(multi_use=True) as snap:
        first = list(snap.execute_sql("SELECT V FROM Versions WHERE Id = 1"))
        _write(db.database, "v4-not-in-snapshot")
        second = list(snap.execute_sql("SELECT V FROM Versions WHERE Id = 1"))
    _write(db.database, "v3")
    assert first == second == [["v3"]], "a multi-use snapshot reads at one timestamp"


@pytest.mark.parametrize("index", [0, 1, 2])
def test_read_at_past_timestamp(versions: tuple[SpannerDb, list[Any]], index: int) -> None:
    db, stamps = versions
    with db.database.snapshot(read_timestamp=stamps[index]) as snap:
        rows = list(snap.execute_sql("SELECT V FROM Versions WHERE Id = 1"))
    assert rows == [[f"v{index + 1}"]], f"read at commit {index + 1}'s timestamp"
    with db.database.snapshot(read_timestamp=stamps[index], multi_use=True) as snap:
        assert list(snap.read("Versions", ["V"], KeySet(keys=[[1]]))) == [[f"v{index + 1}"]]


def test_exact_staleness(versions: tuple[SpannerDb, list[Any]]) -> None:
    """An exact-staleness read reads at "now minus the staleness" (Spanner's timestamp bounds): the read
    timestamp the client asks back (return_read_timestamp) lies in [before - staleness, after - staleness]
    of the call, and the row is the version committed at or before it. The staleness aims between v2's
    and v3's commits, but whichever version the read timestamp selects, it must be that one."""
    db, stamps = versions
    target_ns = _ns(stamps[1]) + int(GAP_S * 0.3e9)
    staleness_ns = (time.time_ns() - target_ns) // 1000 * 1000  # whole microseconds, as timedelta holds it
    before = time.time_ns()
    with db.database.snapshot(exact_staleness=dt.timedelta(microseconds=staleness_ns // 1000)) as snap:
        rows = list(snap.execute_sql("SELECT V FROM Versions WHERE Id = 1"))
        read_ts = snap._transaction_read_timestamp  # the client's record of the returned read timestamp
    after = time.time_ns()
    assert read_ts is not None, "no read timestamp came back"
    read_ns = _ns(read_ts)
    earliest = (before - staleness_ns) // 1000 * 1000  # the server's timestamps are whole microseconds
    assert earliest <= read_ns <= after - staleness_ns, (
        f"read at {read_ns}, not within [{earliest}, {after - staleness_ns}]"
    )
    assert rows == [[_value_at(stamps, read_ns)]], f"read {rows} at {read_ns}, commits at {[_ns(s) for s in stamps]}"


def _raw_read_only(raw: SpannerClient, db: SpannerDb, options: TransactionOptions.ReadOnly) -> tuple[str | None, int]:
    options.return_read_timestamp = True
    result = raw.execute_sql(
        ExecuteSqlRequest(
            session=_session(raw, db),
            sql="SELECT V FROM Versions WHERE Id = 1",
            transaction=TransactionSelector(single_use=TransactionOptions(read_only=options)),
        )
    )
    pb = ResultSet.pb(result)
    read_ts = pb.metadata.transaction.read_timestamp
    assert read_ts.seconds, "return_read_timestamp=true must return the read timestamp"
    value = pb.rows[0].values[0].string_value if pb.rows else None
    return value, read_ts.seconds * 1_000_000_000 + read_ts.nanos


@pytest.mark.parametrize(
    "bound", ["strong", "exact_staleness", "max_staleness", "min_read_timestamp", "read_timestamp"]
)
def test_timestamp_bound_reads_what_was_committed_at_the_read_timestamp(
    versions: tuple[SpannerDb, list[Any]], raw: SpannerClient, bound: str
) -> None:
    db, stamps = versions
    now = time.time_ns()
    options = {
        "strong": TransactionOptions.ReadOnly(strong=True),
        "exact_staleness": TransactionOptions.ReadOnly(
            exact_staleness=duration_pb2.Duration(seconds=0, nanos=10_000_000)
        ),
        "max_staleness": TransactionOptions.ReadOnly(max_staleness=duration_pb2.Duration(seconds=10)),
        "min_read_timestamp": TransactionOptions.ReadOnly(min_read_timestamp=stamps[1].timestamp_pb()),
        "read_timestamp": TransactionOptions.ReadOnly(read_timestamp=stamps[0].timestamp_pb()),
    }[bound]
    value, read_ns = _raw_read_only(raw, db, options)
    assert value == _value_at(stamps, read_ns), (
        f"{bound}: read {value!r} at {read_ns}, commits at {[_ns(s) for s in stamps]}"
    )
    after = time.time_ns()
    if bound == "strong":
        assert read_ns >= _ns(stamps[2]), "a strong read must see every commit so far"
    elif bound == "exact_staleness":
        assert now - 10_000_000 - 2_000_000_000 <= read_ns <= after - 10_000_000 + 1_000_000, read_ns
    elif bound == "max_staleness":
        assert read_ns >= now - 10_000_000_000 - 1_000_000_000, "max_staleness: not older than the bound"
    elif bound == "min_read_timestamp":
        assert read_ns >= _ns(stamps[1]), "bounded staleness may be newer, never older than the bound"
    else:
        assert read_ns == _ns(stamps[0]) and value == "v1"


def test_bounded_staleness_through_the_client(versions: tuple[SpannerDb, list[Any]]) -> None:
    """A bounded-staleness single-use read returns the version committed at its read timestamp,
    which the client asks for (return_read_timestamp) and keeps: at or after min_read_timestamp, not
    older than now minus max_staleness (Spanner's timestamp bounds)."""
    db, stamps = versions
    for bound, oldest_ns in (
        ({"min_read_timestamp": stamps[1]}, _ns(stamps[1])),
        ({"max_staleness": dt.timedelta(seconds=5)}, time.time_ns() - 5_000_000_000),
    ):
        with db.database.snapshot(**bound) as snap:
            rows = list(snap.execute_sql("SELECT V FROM Versions WHERE Id = 1"))
            read_ts = snap._transaction_read_timestamp  # the client's record of the returned read timestamp
        assert read_ts is not None, f"{bound}: no read timestamp came back"
        read_ns = _ns(read_ts)
        assert read_ns >= oldest_ns, f"{bound}: read at {read_ns}, older than the bound {oldest_ns}"
        assert rows == [[_value_at(stamps, read_ns)]], (
            f"{bound}: read {rows} at {read_ns}, commits at {[_ns(s) for s in stamps]}"
        )


# ---- Read and StreamingRead ---------------------------------------------------------------------


def test_read_by_primary_key_ranges_and_limit(versions: tuple[SpannerDb, list[Any]]) -> None:
    db, _ = versions
    cols = ["Id", "Score"]
    with db.database.snapshot(multi_use=True) as snap:
        keys = list(snap.read("Scores", cols, KeySet(keys=[[3], [1], [99]])))
        assert sorted(keys) == [[1, 10], [3, 30]], "missing keys are skipped"
        closed = list(snap.read("Scores", cols, KeySet(ranges=[KeyRange(start_closed=[2], end_closed=[4])])))
        assert closed == [[2, 20], [3, 30], [4, 40]]
        half_open = list(snap.read("Scores", cols, KeySet(ranges=[KeyRange(start_open=[2], end_open=[5])])))
        assert half_open == [[3, 30], [4, 40]]
        limited = list(snap.read("Scores", cols, KeySet(all_=True), limit=5))
        assert limited == [[i, i * 10] for i in range(5)], "Read returns key order and honours the limit"


def test_read_by_named_index(versions: tuple[SpannerDb, list[Any]]) -> None:
    db, _ = versions
    with db.database.snapshot(multi_use=True) as snap:
        p1 = KeySet(ranges=[KeyRange(start_closed=["p1"], end_closed=["p1"])])
        rows = list(snap.read("Scores", ["Player", "Score", "Note"], p1, index="ScoresByPlayer"))
        # A key range on an index-key prefix covers every entry under it; Score is DESC in the index.
        assert rows == [["p1", 100, "note10"], ["p1", 70, "note7"], ["p1", 40, "note4"], ["p1", 10, "note1"]]
        ranged = list(
            snap.read(
                "Scores",
                ["Player", "Score"],
                KeySet(ranges=[KeyRange(start_closed=["p2"], end_closed=["p2", 50])]),
                index="ScoresByPlayer",
                limit=2,
            )
        )
        assert ranged == [["p2", 110], ["p2", 80]]


def test_non_streaming_read_and_execute_sql(versions: tuple[SpannerDb, list[Any]], raw: SpannerClient) -> None:
    db, _ = versions
    session = _session(raw, db)
    read = raw.read(
        ReadRequest(session=session, table="Scores", columns=["Id", "Player"], key_set=KeySetPb(all_=True), limit=2)
    )
    assert [list(r) for r in read.rows] == [["0", "p0"], ["1", "p1"]]
    assert [f.name for f in read.metadata.row_type.fields] == ["Id", "Player"]
    sql = raw.execute_sql(ExecuteSqlRequest(session=session, sql="SELECT COUNT(*) AS n FROM Scores"))
    assert [list(r) for r in sql.rows] == [["12"]]


def test_typed_and_untyped_parameters(versions: tuple[SpannerDb, list[Any]], raw: SpannerClient) -> None:
    db, _ = versions
    with db.database.snapshot() as snap:
        typed = list(
            snap.execute_sql(
                "SELECT Id FROM Scores WHERE Score >= @lo AND Player = @p ORDER BY Id",
                params={"lo": 50, "p": "p2"},
                param_types={"lo": param_types.INT64, "p": param_types.STRING},
            )
        )
    assert typed == [[5], [8], [11]]
    untyped = raw.execute_sql(
        ExecuteSqlRequest(
            session=_session(raw, db),
            sql="SELECT Id FROM Scores WHERE Score >= @lo AND Player = @p ORDER BY Id",
            params=struct_pb2.Struct(
                fields={"lo": struct_pb2.Value(string_value="50"), "p": struct_pb2.Value(string_value="p2")}
            ),
        )
    )
    assert [list(r) for r in untyped.rows] == [["5"], ["8"], ["11"]], "untyped parameters take their type from use"


def test_large_result_is_split_with_resume_tokens(versions: tuple[SpannerDb, list[Any]], raw: SpannerClient) -> None:
    db, _ = versions
    session = _session(raw, db)
    request = ExecuteSqlRequest(session=session, sql="SELECT Id, Payload FROM Blobs ORDER BY Id")
    parts = list(raw.execute_streaming_sql(request))
    assert len(parts) > 1, f"{BLOB_ROWS * BLOB_SIZE} bytes came in a single PartialResultSet"
    tokens = [p.resume_token for p in parts if p.resume_token]
    assert tokens, "no PartialResultSet carried a resume token"
    rows = list(_assemble(parts))
    assert len(rows) == BLOB_ROWS
    assert [int(r[0]) for r in rows] == list(range(BLOB_ROWS))
    assert all(len(r[1]) == BLOB_SIZE for r in rows)
    # Resuming from a token in the middle returns exactly the rows after it.
    middle = next(i for i, p in enumerate(parts) if p.resume_token and 0 < i < len(parts) - 1)
    seen_before = len(list(_assemble(parts[: middle + 1])))
    resumed = list(
        _assemble(
            list(
                raw.execute_streaming_sql(
                    ExecuteSqlRequest(session=session, sql=request.sql, resume_token=parts[middle].resume_token)
                )
            ),
            metadata=parts[0].metadata,
        )
    )
    assert [int(r[0]) for r in resumed] == list(range(seen_before, BLOB_ROWS)), "resume must continue after the token"


def _assemble(parts: list[Any], metadata: Any = None) -> list[list[Any]]:
    """Merge PartialResultSets into rows (strings are the only chunked type used here)."""
    fields = len((metadata or parts[0].metadata).row_type.fields)
    values: list[Any] = []
    pending = False
    for part in parts:
        vals = list(part.values)
        if pending and vals:
            values[-1] = values[-1] + vals.pop(0)
        values.extend(vals)
        pending = part.chunked_value
    return [values[i : i + fields] for i in range(0, len(values) - len(values) % fields, fields)]


@pytest.mark.parametrize("mode", ["PROFILE", "WITH_STATS"])
def test_query_modes_return_stats(versions: tuple[SpannerDb, list[Any]], mode: str) -> None:
    db, _ = versions
    with db.database.snapshot() as snap:
        result = snap.execute_sql(
            "SELECT Id FROM Scores WHERE Score > 50", query_mode=getattr(ExecuteSqlRequest.QueryMode, mode)
        )
        rows = list(result)
        stats = result.stats
    assert len(rows) == 6
    assert stats is not None, f"{mode} must return ResultSetStats"
    query_stats = dict(stats.query_stats)
    for key in ("elapsed_time", "cpu_time", "rows_returned", "rows_scanned"):
        assert key in query_stats, f"{mode}: query_stats lacks {key}: {query_stats}"
    assert str(query_stats["rows_returned"]) == "6", query_stats
    assert int(query_stats["rows_scanned"]) == 12, f"a scan of all 12 rows returns 6: {query_stats}"
    if mode == "PROFILE":
        assert len(stats.query_plan.plan_nodes) > 0, "PROFILE returns a query plan"
