"""Issue 8, "SQL and storage": statuses for bad SQL and bad writes, wire encodings, result types."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud.spanner_v1 import (
    CommitRequest,
    CreateSessionRequest,
    ExecuteSqlRequest,
    JsonObject,
    KeySet,
    Mutation,
    ResultSet,
    TransactionOptions,
    Type,
    TypeCode,
    param_types,
)
from google.cloud.spanner_v1.database import Database
from google.protobuf import struct_pb2

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = [
    """CREATE TABLE Types (
        Id INT64 NOT NULL,
        I INT64, F FLOAT64, F32 FLOAT32, B BOOL, S STRING(MAX), Byt BYTES(MAX), Ts TIMESTAMP, D DATE,
        J JSON, N NUMERIC,
        AI ARRAY<INT64>, AF ARRAY<FLOAT64>, AB ARRAY<BOOL>, AS_ ARRAY<STRING(MAX)>, ABy ARRAY<BYTES(MAX)>,
        ATs ARRAY<TIMESTAMP>, AD ARRAY<DATE>, AJ ARRAY<JSON>, AN ARRAY<NUMERIC>
    ) PRIMARY KEY (Id)""",
    "CREATE TABLE Parent (Pid INT64 NOT NULL, Name STRING(MAX) NOT NULL) PRIMARY KEY (Pid)",
    """CREATE TABLE Child (Pid INT64 NOT NULL, Cid INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Pid, Cid),
        INTERLEAVE IN PARENT Parent ON DELETE CASCADE""",
]

UTC = dt.UTC
TS = DatetimeWithNanoseconds(2024, 1, 2, 3, 4, 5, nanosecond=123456789, tzinfo=UTC)


@pytest.fixture(scope="module")
def sdb(make_database: DatabaseFactory) -> SpannerDb:
    tdb = make_database(DDL)
    with tdb.database.batch() as batch:
        batch.insert("Parent", ["Pid", "Name"], [(1, "p1")])
    return tdb


# ---- semantic and syntax errors -------------------------------------------------------------

QUERY_ERRORS: dict[str, tuple[str, dict[str, Any] | None, type[Exception], str]] = {
    "unknown table": ("SELECT * FROM NoSuchTable", None, gexc.InvalidArgument, "NoSuchTable"),
    "unknown column": ("SELECT NoSuchColumn FROM Types", None, gexc.InvalidArgument, "NoSuchColumn"),
    "type mismatch": ("SELECT Id FROM Types WHERE Id = 'abc'", None, gexc.InvalidArgument, "INT64, STRING"),
    "missing parameter": ("SELECT Id FROM Types WHERE Id = @nosuchparam", None, gexc.InvalidArgument, "nosuchparam"),
    "syntax error with position": (
        "SELECT Id FROM Types WHERE",
        None,
        gexc.InvalidArgument,
        "Syntax error: Unexpected end of statement [at 1:27]",
    ),
}


@pytest.mark.parametrize("case", sorted(QUERY_ERRORS))
def test_query_error_gets_spanner_status(sdb: SpannerDb, case: str) -> None:
    sql, params, expected, named = QUERY_ERRORS[case]
    with pytest.raises(gexc.GoogleAPICallError) as info, sdb.database.snapshot() as snap:
        list(snap.execute_sql(sql, params=params))
    assert isinstance(info.value, expected), f"{case}: expected {expected.__name__}, got {info.value!r}"
    assert named in info.value.message, f"{case}: message should name {named!r}: {info.value.message}"
    if case == "syntax error with position":
        assert re.search(r"\d+:\d+|line \d+|column \d+|position \d+", info.value.message), (
            f"a syntax error must give its position: {info.value.message}"
        )


def test_unsupported_construct_is_named_with_position(sdb: SpannerDb) -> None:
    """A construct outside the subset: INVALID_ARGUMENT or UNIMPLEMENTED naming it and where it is."""
    with sdb.database.batch() as batch:  # a sample of 1 row is only a sample of a table with more rows
        batch.insert_or_update("Types", ["Id"], [(6001,), (6002,), (6003,)])
    sql = "SELECT Id FROM Types TABLESAMPLE RESERVOIR (1 ROWS)"
    try:
        with sdb.database.snapshot() as snap:
            rows = list(snap.execute_sql(sql))
    except (gexc.InvalidArgument, gexc.MethodNotImplemented) as err:
        assert "TABLESAMPLE" in err.message.upper(), f"message does not name the construct: {err.message}"
        assert re.search(r"\d+:\d+|line \d+|column \d+|position \d+", err.message), err.message
    else:
        assert len(rows) == 1, f"TABLESAMPLE RESERVOIR (1 ROWS) of 3 rows or more returned {len(rows)} rows"


def _commit(database: Database, fn: Callable[[Any], None]) -> None:
    with database.batch() as batch:
        fn(batch)


# Each case's code and Cloud Spanner's message, as users' reports of Cloud Spanner's errors show them:
# google/truestreet#5 (the table), googleapis/python-spanner-django#148 (the column) and #154/#384
# ("<column> must not be NULL in table <table>."), GoogleCloudPlatform/dotnet-docs-samples#1320 (the
# parent row), mozilla-services/syncstorage-rs#1055 (a number for an INT64 column: "Invalid value for
# column ... Expected INT64."), and gcpug/handy-spanner's tests written against Cloud Spanner (the
# missing row, the NOT NULL column left out, the key that exists).
WRITE_ERRORS: dict[str, tuple[Callable[[Any], None], type[Exception], str]] = {
    "insert into unknown table": (
        lambda b: b.insert("NoSuchTable", ["Id"], [(1,)]),
        gexc.NotFound,
        "Table not found: NoSuchTable",
    ),
    "insert unknown column": (
        lambda b: b.insert("Types", ["Id", "NoSuchColumn"], [(1, 1)]),
        gexc.NotFound,
        "Column not found in table Types: NoSuchColumn",
    ),
    "duplicate key": (
        lambda b: b.insert("Parent", ["Pid", "Name"], [(1, "again")]),
        gexc.AlreadyExists,
        "Row [1] in table Parent already exists",
    ),
    "update of a missing row": (
        lambda b: b.update("Parent", ["Pid", "Name"], [(999, "x")]),
        gexc.NotFound,
        "Row [999] in table Parent is missing. Row cannot be updated.",
    ),
    "missing parent row": (
        lambda b: b.insert("Child", ["Pid", "Cid", "V"], [(404, 1, "orphan")]),
        gexc.NotFound,
        "Parent row for row [404,1] in table Child is missing. Row cannot be written.",
    ),
    "NULL in a NOT NULL column": (
        lambda b: b.insert("Parent", ["Pid", "Name"], [(2, None)]),
        gexc.FailedPrecondition,
        "Name must not be NULL in table Parent.",
    ),
    "NOT NULL column left out": (
        lambda b: b.insert("Parent", ["Pid"], [(3,)]),
        gexc.FailedPrecondition,
        "A new row in table Parent does not specify a non-null value for these NOT NULL columns: Name",
    ),
    "the same new key twice in one commit": (
        lambda b: b.insert("Parent", ["Pid", "Name"], [(8, "a"), (8, "b")]),
        gexc.AlreadyExists,
        "Row [8] in table Parent already exists",
    ),
    "value of the wrong type": (  # a float is sent as a number_value, which an INT64 column does not take
        lambda b: b.insert("Types", ["Id", "I"], [(50, 1.5)]),
        gexc.FailedPrecondition,
        "Invalid value for column I in table Types: Expected INT64.",
    ),
}


@pytest.mark.parametrize("case", sorted(WRITE_ERRORS))
def test_mutation_error_gets_spanner_status(sdb: SpannerDb, case: str) -> None:
    fn, code, text = WRITE_ERRORS[case]
    with pytest.raises(gexc.GoogleAPICallError) as info:
        _commit(sdb.database, fn)
    assert type(info.value) is code, f"{case}: expected {code.__name__}, got {info.value!r}"
    assert info.value.message.split(", request_id = ")[0] == text, f"{case}: {info.value.message!r}"
    with sdb.database.snapshot(multi_use=True) as snap:
        assert list(snap.execute_sql("SELECT Pid, Name FROM Parent ORDER BY Pid")) == [[1, "p1"]], (
            f"{case}: the failed commit changed Parent"
        )
        assert list(snap.execute_sql("SELECT COUNT(*) FROM Child")) == [[0]]


# The same conditions as WRITE_ERRORS' (and the same texts, from the same sources), met by DML; an
# unknown table in SQL is the analyzer's error, with the position ("[at 1:8]"), and on the lines after
# it the statement with a caret under that position (not compared).
DML_ERRORS: dict[str, tuple[str, type[Exception], str]] = {
    "duplicate key": (
        "INSERT INTO Parent (Pid, Name) VALUES (1, 'dup')",
        gexc.AlreadyExists,
        "Row [1] in table Parent already exists",
    ),
    "NOT NULL column left out": (
        "INSERT INTO Parent (Pid) VALUES (5)",
        gexc.FailedPrecondition,
        "A new row in table Parent does not specify a non-null value for these NOT NULL columns: Name",
    ),
    "missing parent row": (
        "INSERT INTO Child (Pid, Cid, V) VALUES (404, 1, 'x')",
        gexc.NotFound,
        "Parent row for row [404,1] in table Child is missing. Row cannot be written.",
    ),
    "unknown table": (
        "UPDATE NoSuchTable SET X = 1 WHERE TRUE",
        gexc.InvalidArgument,
        "Table not found: NoSuchTable [at 1:8]",
    ),
}


@pytest.mark.parametrize("case", sorted(DML_ERRORS))
def test_dml_error_gets_spanner_status(sdb: SpannerDb, case: str) -> None:
    sql, expected, text = DML_ERRORS[case]
    with pytest.raises(gexc.GoogleAPICallError) as info:
        sdb.database.run_in_transaction(lambda tx: tx.execute_update(sql))
    assert type(info.value) is expected, f"{case}: expected {expected.__name__}, got {info.value!r}"
    message = info.value.message.split(", request_id = ")[0]
    assert message.splitlines()[0] == text, f"{case}: {info.value.message!r}"


INT_ARRAY = param_types.Array(param_types.INT64)
TRANSLATION_CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any], list[list[Any]]]] = {
    "column IN UNNEST(@param)": (
        "SELECT Pid FROM Parent WHERE Pid IN UNNEST(@keep)",
        {"keep": [1, 2]},
        {"keep": INT_ARRAY},
        [[1]],
    ),
    "FROM UNNEST(@param)": ("SELECT x FROM UNNEST(@xs) AS x ORDER BY x", {"xs": [3, 1]}, {"xs": INT_ARRAY}, [[1], [3]]),
    "FROM UNNEST(@a) WHERE x IN UNNEST(@b)": (
        "SELECT x FROM UNNEST(@xs) AS x WHERE x IN UNNEST(@keep) ORDER BY x",
        {"xs": [3, 1, 2, 5], "keep": [2, 3, 4]},
        {"xs": INT_ARRAY, "keep": INT_ARRAY},
        [[2], [3]],
    ),
    "JSON_VALUE": ("""SELECT JSON_VALUE(JSON '{"a": {"b": "deep"}}', '$.a.b')""", {}, {}, [["deep"]]),
    "JSON_QUERY": ("""SELECT TO_JSON_STRING(JSON_QUERY(JSON '{"a": [1, 2]}', '$.a'))""", {}, {}, [["[1,2]"]]),
}


@pytest.mark.parametrize("case", sorted(TRANSLATION_CASES))
def test_translation_needs_work_in_the_sqlite_build(sdb: SpannerDb, case: str) -> None:
    """The SQLite build must have what the translation needs (an old fake crashed on IN UNNEST)."""
    sql, params, types, want = TRANSLATION_CASES[case]
    with sdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.execute_sql(sql, params=params or None, param_types=types or None)]
    assert rows == want, f"{case}: {rows}"


# GoogleSQL semantics where a translation to SQLite goes wrong unless it takes care (value, or an error class).
SEMANTICS: dict[str, tuple[str, Any]] = {
    "LIKE is case-sensitive": ("SELECT 'ABC' LIKE 'abc', 'ABC' LIKE 'A%'", [False, True]),
    "CAST FLOAT64 to INT64 rounds half away from zero": ("SELECT CAST(1.5 AS INT64), CAST(-2.5 AS INT64)", [2, -3]),
    "CAST FLOAT64 to STRING is shortest": ("SELECT CAST(1.0 AS STRING), CAST(0.1 AS STRING)", ["1", "0.1"]),
    "CAST BOOL to STRING": ("SELECT CAST(TRUE AS STRING)", ["true"]),
    "division by zero": ("SELECT 1 / 0", gexc.OutOfRange),
    "MOD by zero": ("SELECT MOD(5, 0)", gexc.OutOfRange),
    "INT64 overflow": ("SELECT 9223372036854775807 + 1", gexc.OutOfRange),
    "bad CAST to INT64": ("SELECT CAST('abc' AS INT64)", gexc.OutOfRange),
    "INT64 / INT64 is FLOAT64": ("SELECT 7 / 2, DIV(7, 2), DIV(-7, 2)", [3.5, 3, -3]),
    "SAFE_DIVIDE": ("SELECT SAFE_DIVIDE(1, 0), SAFE_DIVIDE(6, 3)", [None, 2.0]),
    "strings compare by bytes": ("SELECT 'a' < 'B', 'B' < 'a'", [False, True]),
    "NULL propagates": (
        "SELECT CONCAT('a', NULL), TRUE AND NULL, NULL = NULL, FALSE AND NULL",
        [None, None, None, False],
    ),
    "INT64 = FLOAT64 compares values": ("SELECT 1 = 1.0, 2 > 1.5", [True, True]),
    "ARRAY_LENGTH and OFFSET": ("SELECT ARRAY_LENGTH([1, 2, 3]), [10, 20, 30][OFFSET(1)]", [3, 20]),
    "TIMESTAMP to STRING in the default time zone": (
        "SELECT CAST(TIMESTAMP '2024-01-01 00:00:00+00' AS STRING)",
        ["2023-12-31 16:00:00-08"],
    ),
}


@pytest.mark.parametrize("case", sorted(SEMANTICS))
def test_googlesql_semantics(sdb: SpannerDb, case: str) -> None:
    sql, want = SEMANTICS[case]
    if isinstance(want, type):
        with pytest.raises(want), sdb.database.snapshot() as snap:
            list(snap.execute_sql(sql))
        return
    with sdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.execute_sql(sql)]
    assert rows == [want], f"{case}: {sql} gave {rows}, Spanner gives {want}"


def test_dml_in_a_read_only_transaction_is_refused(sdb: SpannerDb) -> None:
    with pytest.raises((gexc.InvalidArgument, gexc.FailedPrecondition)), sdb.database.snapshot() as snap:
        list(snap.execute_sql("UPDATE Parent SET Name = 'x' WHERE TRUE"))
    with sdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT Name FROM Parent WHERE Pid = 1")) == [["p1"]]


# ---- wire encodings -----------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")


def _b64(raw: bytes) -> bytes:
    return base64.b64encode(raw)


# column, value written, value expected back through the client, raw wire kind and text (None: any)
WIRE_CASES: list[tuple[str, Any, Any, str, Any]] = [
    ("I", 9007199254740993, 9007199254740993, "string_value", "9007199254740993"),
    ("I", -9223372036854775808, -9223372036854775808, "string_value", "-9223372036854775808"),
    ("F", 1.5, 1.5, "number_value", 1.5),
    ("F", NAN, NAN, "string_value", "NaN"),
    ("F", INF, INF, "string_value", "Infinity"),
    ("F", -INF, -INF, "string_value", "-Infinity"),
    ("F32", 0.25, 0.25, "number_value", 0.25),
    ("B", True, True, "bool_value", True),
    ("S", "héllo ✓ 'quoted'", "héllo ✓ 'quoted'", "string_value", "héllo ✓ 'quoted'"),
    # The Python client hands BYTES back as the base64 text it received, so that is what it reads.
    ("Byt", _b64(b"\x00\xff\x10bin"), b"AP8QYmlu", "string_value", "AP8QYmlu"),
    ("Ts", TS, TS, "string_value", "2024-01-02T03:04:05.123456789Z"),
    ("D", dt.date(2024, 2, 29), dt.date(2024, 2, 29), "string_value", "2024-02-29"),
    ("J", JsonObject({"b": [True, None], "a": 1}), JsonObject({"a": 1, "b": [True, None]}), "string_value", None),
    (
        "N",
        decimal.Decimal("12345678901234567890.123456789"),
        decimal.Decimal("12345678901234567890.123456789"),
        "string_value",
        "12345678901234567890.123456789",
    ),
    ("AI", [1, None, -3], [1, None, -3], "list_value", None),
    ("AF", [0.5, NAN, -INF], [0.5, NAN, -INF], "list_value", None),
    ("AB", [True, False, None], [True, False, None], "list_value", None),
    ("AS_", ["a", None, ""], ["a", None, ""], "list_value", None),
    ("ABy", [_b64(b"x"), None], [b"eA==", None], "list_value", None),
    ("ATs", [TS, None], [TS, None], "list_value", None),
    ("AD", [dt.date(1, 1, 1), dt.date(9999, 12, 31)], [dt.date(1, 1, 1), dt.date(9999, 12, 31)], "list_value", None),
    ("AJ", [JsonObject({"k": "v"}), None], [JsonObject({"k": "v"}), None], "list_value", None),
    ("AN", [decimal.Decimal("-0.5"), None], [decimal.Decimal("-0.5"), None], "list_value", None),
    ("AI", [], [], "list_value", None),
    ("S", None, None, "null_value", None),
    ("AI", None, None, "null_value", None),
]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, JsonObject) and isinstance(b, JsonObject):
        return bool(a.serialize() == b.serialize())
    return type(a) is type(b) and bool(a == b)


def _raw_value(database: Database, address: str, sql: str, row_id: int) -> struct_pb2.Value:
    raw = raw_spanner_client(address)
    session = raw.create_session(CreateSessionRequest(database=database.name))
    try:
        result = raw.execute_sql(
            ExecuteSqlRequest(
                session=session.name,
                sql=sql,
                params=struct_pb2.Struct(fields={"id": struct_pb2.Value(string_value=str(row_id))}),
                param_types={"id": Type(code=TypeCode.INT64)},
            )
        )
    finally:
        raw.delete_session(name=session.name)
    value: struct_pb2.Value = ResultSet.pb(result).rows[0].values[0]
    return value


@pytest.mark.parametrize("index", range(len(WIRE_CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(WIRE_CASES)])
def test_wire_encoding_round_trips(sdb: SpannerDb, server_address: str, index: int) -> None:
    column, written, expected, kind, wire = WIRE_CASES[index]
    row_id = 1000 + index
    with sdb.database.batch() as batch:
        batch.insert_or_update("Types", ["Id", column], [(row_id, written)])
    with sdb.database.snapshot(multi_use=True) as snap:
        by_read = list(snap.read("Types", ["Id", column], keyset=_keys(row_id)))
        by_sql = list(
            snap.execute_sql(
                f"SELECT Id, {column} FROM Types WHERE Id = @id",
                params={"id": row_id},
                param_types={"id": param_types.INT64},
            )
        )
    for how, rows in (("Read", by_read), ("ExecuteSql", by_sql)):
        assert len(rows) == 1, f"{how}: {rows}"
        assert rows[0][0] == row_id
        assert _same(rows[0][1], expected), f"{how} {column}: wrote {written!r}, read {rows[0][1]!r}"
    value = _raw_value(sdb.database, server_address, f"SELECT {column} FROM Types WHERE Id = @id", row_id)
    assert value.WhichOneof("kind") == kind, f"{column}: wire kind {value.WhichOneof('kind')}, want {kind}: {value}"
    if wire is not None:
        got = getattr(value, kind)
        assert got == wire, f"{column}: wire text {got!r}, want {wire!r}"


def _keys(*ids: int) -> KeySet:
    return KeySet(keys=[[i] for i in ids])


def test_json_wire_text_is_normalized(sdb: SpannerDb, server_address: str) -> None:
    with sdb.database.batch() as batch:
        batch.insert_or_update("Types", ["Id", "J"], [(900, JsonObject({"b": 2, "a": [1, "x"]}))])
    value = _raw_value(sdb.database, server_address, "SELECT J FROM Types WHERE Id = @id", 900)
    assert value.string_value == '{"a":[1,"x"],"b":2}', f"Spanner stores JSON normalized: {value.string_value!r}"


ORDER_TS = [
    DatetimeWithNanoseconds(2024, 1, 1, 0, 0, 0, tzinfo=UTC),
    DatetimeWithNanoseconds(2024, 1, 1, 0, 0, 0, 500000, tzinfo=UTC),
    DatetimeWithNanoseconds(2024, 1, 1, 0, 0, 0, nanosecond=123456789, tzinfo=UTC),
    DatetimeWithNanoseconds(2024, 1, 1, 0, 0, 1, 1, tzinfo=UTC),
    DatetimeWithNanoseconds(1999, 12, 31, 23, 59, 59, tzinfo=UTC),
]
ORDER_NUMERIC = [decimal.Decimal(x) for x in ("9", "10", "-1", "0.5", "100.25", "-20")]


def test_timestamp_and_numeric_order_and_arithmetic(sdb: SpannerDb) -> None:
    """Stored text must not order as text: 10 > 9, and .5 s after .123456789 s; NUMERIC sums exactly."""
    rows = [(2000 + i, ORDER_TS[i % len(ORDER_TS)], ORDER_NUMERIC[i]) for i in range(len(ORDER_NUMERIC))]
    with sdb.database.batch() as batch:
        batch.insert_or_update("Types", ["Id", "Ts", "N"], rows)
    where = "WHERE Id BETWEEN 2000 AND 2999"
    with sdb.database.snapshot(multi_use=True) as snap:
        by_ts = [r[0] for r in snap.execute_sql(f"SELECT Id FROM Types {where} ORDER BY Ts, Id")]
        by_n = [r[0] for r in snap.execute_sql(f"SELECT N FROM Types {where} ORDER BY N")]
        over_nine = [r[0] for r in snap.execute_sql(f"SELECT N FROM Types {where} AND N > 9 ORDER BY N")]
        after = [
            r[0]
            for r in snap.execute_sql(
                f"SELECT Id FROM Types {where} AND Ts > @t ORDER BY Id",
                params={"t": ORDER_TS[1]},
                param_types={"t": param_types.TIMESTAMP},
            )
        ]
        sums = list(snap.execute_sql(f"SELECT NUMERIC '0.1' + NUMERIC '0.2', SUM(N) FROM Types {where}"))
    assert by_ts == [2004, 2000, 2005, 2002, 2001, 2003]
    assert by_n == sorted(ORDER_NUMERIC)
    assert over_nine == [decimal.Decimal("10"), decimal.Decimal("100.25")]
    assert after == [2003]
    assert sums == [[decimal.Decimal("0.3"), sum(ORDER_NUMERIC)]]


BIG_VALUE_BYTES = 6 * 1024 * 1024  # Spanner allows up to 10 MiB in one cell


def test_six_mib_value_round_trips(sdb: SpannerDb, server_address: str) -> None:
    """A Commit bigger than gRPC's default 4 MiB must be accepted: the official clients retry
    RESOURCE_EXHAUSTED on Commit, so refusing it makes them hang instead of failing."""
    raw = raw_spanner_client(server_address)
    session = raw.create_session(CreateSessionRequest(database=sdb.database.name)).name
    value = "é" * (BIG_VALUE_BYTES // 2)
    row = struct_pb2.ListValue(values=[struct_pb2.Value(string_value="77"), struct_pb2.Value(string_value=value)])
    try:
        raw.commit(
            CommitRequest(
                session=session,
                single_use_transaction=TransactionOptions(read_write=TransactionOptions.ReadWrite()),
                mutations=[Mutation(insert_or_update=Mutation.Write(table="Types", columns=["Id", "S"], values=[row]))],
            ),
            retry=None,
            timeout=30,
        )
    except gexc.GoogleAPICallError as err:
        pytest.fail(f"a {BIG_VALUE_BYTES >> 20} MiB commit was refused: {err!r}")
    finally:
        raw.delete_session(name=session)
    try:
        with sdb.database.snapshot() as snap:
            rows = list(snap.execute_sql("SELECT S, BYTE_LENGTH(S) FROM Types WHERE Id = 77"))
    except gexc.ResourceExhausted as err:
        pytest.fail(
            "reading the value back overflowed the client's 4 MiB message limit: a large value must be split "
            f"into chunked PartialResultSets (chunked_value), as Spanner does: {err.message}"
        )
    finally:
        with sdb.database.batch() as batch:
            batch.delete("Types", KeySet(keys=[[77]]))
    assert rows[0][1] == BIG_VALUE_BYTES and rows[0][0] == value


# ---- result metadata ------------------------------------------------------------------------------

METADATA_SQL = """SELECT 1 AS i, 1.5 AS f, 'x' AS s, TRUE AS b, b'\\x01' AS byt, DATE '2024-01-01' AS d,
  TIMESTAMP '2024-01-01T00:00:00Z' AS ts, NUMERIC '1.5' AS n, JSON '{"a":1}' AS j, [1, 2] AS ai,
  @p AS p, @q AS q, 1 + 1 AS sum_i, 1 / 2 AS div_f, CAST(1 AS STRING) AS cast_s, COUNT(*) AS cnt,
  CURRENT_TIMESTAMP() AS now, ARRAY(SELECT 'a') AS as_"""

METADATA_TYPES: list[int] = [
    TypeCode.INT64,
    TypeCode.FLOAT64,
    TypeCode.STRING,
    TypeCode.BOOL,
    TypeCode.BYTES,
    TypeCode.DATE,
    TypeCode.TIMESTAMP,
    TypeCode.NUMERIC,
    TypeCode.JSON,
    TypeCode.ARRAY,
    TypeCode.FLOAT64,
    TypeCode.DATE,
    TypeCode.INT64,
    TypeCode.FLOAT64,
    TypeCode.STRING,
    TypeCode.INT64,
    TypeCode.TIMESTAMP,
    TypeCode.ARRAY,
]


def test_result_metadata_types_for_expressions_and_parameters(sdb: SpannerDb) -> None:
    with sdb.database.snapshot() as snap:
        result = snap.execute_sql(
            METADATA_SQL,
            params={"p": 2.5, "q": dt.date(2020, 5, 6)},
            param_types={"p": param_types.FLOAT64, "q": param_types.DATE},
        )
        rows = list(result)
        fields = result.fields
    got: list[int] = [int(f.type_.code) for f in fields]
    names = [f.name for f in fields]
    assert names[:3] == ["i", "f", "s"], names
    assert got == METADATA_TYPES, "\n".join(
        f"{n}: got {TypeCode(g).name}, want {TypeCode(w).name}"
        for n, g, w in zip(names, got, METADATA_TYPES, strict=True)
        if g != w
    )
    assert fields[9].type_.array_element_type.code == TypeCode.INT64
    assert fields[17].type_.array_element_type.code == TypeCode.STRING
    row = rows[0]
    assert row[:4] == [1, 1.5, "x", True]
    assert row[4] == b"AQ==", "BYTES come back as base64 text through the Python client"
    assert row[10] == 2.5 and row[11] == dt.date(2020, 5, 6)
    assert row[12] == 2 and row[13] == 0.5 and row[14] == "1" and row[15] == 1


def test_column_types_in_metadata(sdb: SpannerDb) -> None:
    with sdb.database.snapshot() as snap:
        result = snap.execute_sql("SELECT * FROM Types LIMIT 1")
        list(result)
        fields = {f.name: f.type_ for f in result.fields}
    assert fields["I"].code == TypeCode.INT64
    assert fields["F32"].code == TypeCode.FLOAT32
    assert fields["N"].code == TypeCode.NUMERIC
    assert fields["J"].code == TypeCode.JSON
    assert fields["AJ"].code == TypeCode.ARRAY and fields["AJ"].array_element_type.code == TypeCode.JSON
    assert fields["ATs"].array_element_type.code == TypeCode.TIMESTAMP
