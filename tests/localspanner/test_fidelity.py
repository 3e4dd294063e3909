"""Issues 17 and 18: the official Python client's behaviour against the local Spanner, where it used to differ.

Expected values come from Spanner's documentation (each case cites the section), never from the server's output.
"""

from __future__ import annotations

import math
from typing import Any

import grpc
import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import CreateSessionRequest, ExecuteSqlRequest, KeySet, ResultSet, param_types
from google.cloud.spanner_v1.instance import Instance
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.cloud.spanner_v1.services.spanner.transports import SpannerGrpcTransport

from .conftest import DatabaseFactory, SpannerDb, create_database

DDL = [
    """CREATE TABLE Floats (
        Id INT64 NOT NULL, F FLOAT64, AF ARRAY<FLOAT64>
    ) PRIMARY KEY (Id)""",
]

NAN, INF = float("nan"), float("inf")


@pytest.fixture(scope="module")
def fdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


def _same(a: Any, b: Any) -> bool:
    """Equal, where NaN equals NaN (the Python client reads FLOAT64 NaN as float('nan'))."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


# ---- issue 18: hostile queries -------------------------------------------------------------------

DEPTH = 20_000


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT " + "(" * DEPTH + "1" + ")" * DEPTH,
        "SELECT " + "ABS(" * DEPTH + "1" + ")" * DEPTH,
        "SELECT " + "[" * DEPTH + "1" + "]" * DEPTH,
    ],
    ids=["parens", "calls", "arrays"],
)
def test_deep_expression_is_invalid_argument(fdb: SpannerDb, sql: str) -> None:
    """A 20,000-deep expression is refused with INVALID_ARGUMENT naming the depth limit. How long that takes is
    printed by `go test -bench HostileDepth -run '^$' ./query/` in localspanner/ (it was ~9.5 s in the parser)."""
    with pytest.raises(gexc.InvalidArgument) as info, fdb.database.snapshot() as snap:
        list(snap.execute_sql(sql))
    assert "Expression nesting exceeds the maximum depth of 150" in info.value.message, info.value.message
    # The server answers normally afterwards.
    with fdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT 1")) == [[1]]


# ---- issue 18: transfinite floats -----------------------------------------------------------------
# FLOAT64 holds IEEE-754 doubles including +inf, -inf and NaN ("Floating point types", GoogleSQL data types:
# "Special floating point values ... inf, -inf, NaN"), in columns and in ARRAY<FLOAT64>.

FLOAT_ROWS: dict[str, tuple[Any, Any]] = {
    "inf": (INF, [INF]),
    "minus-inf": (-INF, [-INF]),
    "nan": (NAN, [NAN]),
    "all-three": (1.5, [INF, -INF, NAN]),
    "with-null": (None, [NAN, None, INF, 0.0, -0.5]),
}


@pytest.mark.parametrize("case", sorted(FLOAT_ROWS))
@pytest.mark.parametrize("how", ["mutation", "dml"])
def test_transfinite_floats_round_trip(fdb: SpannerDb, case: str, how: str) -> None:
    scalar, array = FLOAT_ROWS[case]
    row_id = sorted(FLOAT_ROWS).index(case) + (100 if how == "dml" else 0)
    if how == "mutation":
        with fdb.database.batch() as batch:
            batch.insert_or_update("Floats", ["Id", "F", "AF"], [(row_id, scalar, array)])
    else:
        fdb.database.run_in_transaction(
            lambda tx: tx.execute_update(
                "INSERT OR UPDATE INTO Floats (Id, F, AF) VALUES (@id, @f, @af)",
                params={"id": row_id, "f": scalar, "af": array},
                param_types={
                    "id": param_types.INT64,
                    "f": param_types.FLOAT64,
                    "af": param_types.Array(param_types.FLOAT64),
                },
            )
        )
    with fdb.database.snapshot(multi_use=True) as snap:
        by_read = list(snap.read("Floats", ["Id", "F", "AF"], keyset=KeySet(keys=[[row_id]])))
        by_sql = list(
            snap.execute_sql(
                "SELECT Id, F, AF FROM Floats WHERE Id = @id",
                params={"id": row_id},
                param_types={"id": param_types.INT64},
            )
        )
        # The parameter itself round trips through a query too.
        echoed = list(
            snap.execute_sql(
                "SELECT @f, @af",
                params={"f": scalar, "af": array},
                param_types={"f": param_types.FLOAT64, "af": param_types.Array(param_types.FLOAT64)},
            )
        )
    for how_read, rows in (("Read", by_read), ("ExecuteSql", by_sql)):
        assert len(rows) == 1, f"{how_read}: {rows}"
        assert _same(rows[0], [row_id, scalar, array]), f"{how_read}: wrote {scalar!r}, {array!r}, read {rows[0]!r}"
    assert _same(echoed, [[scalar, array]]), f"SELECT @f, @af: {echoed!r}"


# SQL-computed arrays: SQLite's JSON functions write +-inf as 9.0e+999, which the server once answered INTERNAL
# ("stored ARRAY holds a bad number"). IEEE_DIVIDE(1, 0) is +inf, IEEE_DIVIDE(-1, 0) -inf, IEEE_DIVIDE(0, 0) NaN
# ("Mathematical functions", IEEE_DIVIDE).
COMPUTED = "[IEEE_DIVIDE(1, 0), IEEE_DIVIDE(-1, 0), IEEE_DIVIDE(0, 0)]"


def test_sql_computed_transfinite_arrays(fdb: SpannerDb) -> None:
    fdb.database.run_in_transaction(
        lambda tx: tx.execute_update(f"INSERT OR UPDATE INTO Floats (Id, F, AF) VALUES (500, 2.5, {COMPUTED})")
    )
    fdb.database.run_in_transaction(
        lambda tx: tx.execute_update("INSERT OR UPDATE INTO Floats (Id, F, AF) VALUES (501, IEEE_DIVIDE(1, 0), [])")
    )
    with fdb.database.snapshot(multi_use=True) as snap:
        literal = list(snap.execute_sql(f"SELECT {COMPUTED}"))
        stored = list(snap.read("Floats", ["AF"], keyset=KeySet(keys=[[500]])))
        agg = list(
            snap.execute_sql("SELECT ARRAY_AGG(F) FROM (SELECT F FROM Floats WHERE Id IN (500, 501) ORDER BY Id)")
        )
        sub = list(
            snap.execute_sql(
                "SELECT ARRAY(SELECT x FROM UNNEST(AF) x WITH OFFSET o ORDER BY o) FROM Floats WHERE Id = 500"
            )
        )
    want = [INF, -INF, NAN]
    assert _same(literal, [[want]]), literal
    assert _same(stored, [[want]]), stored
    assert len(agg) == 1 and sorted(agg[0][0]) == [2.5, INF], agg  # ARRAY_AGG's order is unspecified
    assert _same(sub, [[want]]), sub


# ---- issue 17, wire format ---------------------------------------------------------------------------
# "Query syntax" (GoogleSQL): a statement may end with one semicolon; Spanner accepts "SELECT 1;" in ExecuteSql
# and PartitionQuery.


@pytest.mark.parametrize("sql", ["SELECT Id FROM Floats WHERE Id = 0;", "SELECT Id FROM Floats WHERE Id = 0 ;\n"])
def test_one_trailing_semicolon_is_accepted(fdb: SpannerDb, sql: str) -> None:
    with fdb.database.batch() as batch:
        batch.insert_or_update("Floats", ["Id", "F"], [(0, 1.0)])
    with fdb.database.snapshot() as snap:
        assert list(snap.execute_sql(sql)) == [[0]]
    snapshot = fdb.database.batch_snapshot()
    try:
        batches = list(snapshot.generate_query_batches(sql))
        rows = [list(row) for batch in batches for row in snapshot.process_query_batch(batch)]
    finally:
        snapshot.close()
    assert rows == [[0]]


def test_two_semicolons_stay_a_syntax_error(fdb: SpannerDb) -> None:
    with pytest.raises(gexc.InvalidArgument), fdb.database.snapshot() as snap:
        list(snap.execute_sql("SELECT 1;;"))


def test_gzip_compressed_requests_are_answered(fdb: SpannerDb, server_address: str) -> None:
    """grpc-encoding: gzip (gRPC's compression, which the official clients can turn on) is answered."""
    channel = grpc.insecure_channel(server_address, compression=grpc.Compression.Gzip)
    raw = SpannerClient(transport=SpannerGrpcTransport(channel=channel))
    session = raw.create_session(CreateSessionRequest(database=fdb.database.name))
    try:
        result = raw.execute_sql(ExecuteSqlRequest(session=session.name, sql="SELECT 'gz' || 'ip'"))
    finally:
        raw.delete_session(name=session.name)
        channel.close()
    assert [v.string_value for v in ResultSet.pb(result).rows[0].values] == ["gzip"]


def test_session_of_a_dropped_database_is_database_not_found(
    instance: Instance, server_address: str, session_mode: str
) -> None:
    """Spanner answers a session of a dropped database NOT_FOUND "Database not found: <name>" (clients treat it as
    fatal), not "Session not found" (which they retry)."""
    tdb = create_database(instance, server_address, ["CREATE TABLE T (Id INT64) PRIMARY KEY (Id)"], session_mode)
    raw = SpannerClient(transport=SpannerGrpcTransport(channel=grpc.insecure_channel(server_address)))
    session = raw.create_session(CreateSessionRequest(database=tdb.database.name))
    tdb.database.drop()
    with pytest.raises(gexc.NotFound) as info:
        raw.execute_sql(ExecuteSqlRequest(session=session.name, sql="SELECT 1"))
    assert info.value.message.startswith(f"Database not found: {tdb.database.name}"), info.value.message
