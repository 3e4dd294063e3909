"""Issue 17, "Types and values": the UUID type in columns, parameters, functions and casts.

Expected values come from Spanner's documentation, never from the server's own output:
- GoogleSQL "Data types", UUID type: a 128-bit value written as 32 hexadecimal digits in five groups 8-4-4-4-12;
  columns (keys included) and arrays of it; the canonical form is lower case.
- "Utility functions", NEW_UUID(): "Returns a random universally unique identifier (UUID) as a UUID", with 122
  random bits and 6 fixed bits per RFC 4122 section 4.4 (version 4, variant 10); GoogleSQL accepts any number of
  hyphens, single ones between hexadecimal digits, not at the start or the end.
- "Conversion rules": UUID casts to and from STRING, and to and from BYTES (16 bytes); SAFE_CAST gives NULL for
  a value that does not convert.
- "Primary key default values": `DEFAULT (NEW_UUID())` (or GENERATE_UUID() on a STRING(36) key) generates the
  key of a row whose insert leaves the column out, with DML (`INSERT INTO Fans (Name) VALUES (...) THEN RETURN
  FanId`) and with insert mutations alike.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import KeySet
from google.cloud.spanner_v1 import param_types as T

from .conftest import DatabaseFactory, SpannerDb

DDL = [
    "CREATE TABLE U (Id UUID NOT NULL DEFAULT (NEW_UUID()), S STRING(MAX), A ARRAY<UUID>) PRIMARY KEY (Id)",
    "CREATE TABLE G (Id STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), S STRING(MAX)) PRIMARY KEY (Id)",
]
U1 = uuid.UUID("9d3f8a1e-6c2b-4f5e-8a7d-1b2c3d4e5f60")
U2 = uuid.UUID("0000ffff-0000-4000-8000-000000000001")


@pytest.fixture(scope="module")
def udb(make_database: DatabaseFactory) -> SpannerDb:
    tdb = make_database(DDL)
    with tdb.database.batch() as batch:
        batch.insert("U", ["Id", "S", "A"], [(U1, "one", [U1, None, U2]), (U2, "two", None)])
    return tdb


def _rows(db: SpannerDb, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None) -> Any:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql, params=params, param_types=types)]


def _is_v4(u: Any) -> bool:
    return isinstance(u, uuid.UUID) and u.version == 4 and u.variant == uuid.RFC_4122


def test_uuid_columns_read_back_as_uuids(udb: SpannerDb) -> None:
    assert _rows(udb, "SELECT Id, A FROM U WHERE S = 'one'") == [[U1, [U1, None, U2]]]
    with udb.database.snapshot() as snap:
        read = [list(r) for r in snap.read("U", ["S"], KeySet(keys=[[str(U2)]]))]
    assert read == [["two"]]


def test_uuid_column_type_in_information_schema(udb: SpannerDb) -> None:
    rows = _rows(udb, "SELECT COLUMN_NAME, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'U'")
    assert sorted(rows) == [["A", "ARRAY<UUID>"], ["Id", "UUID"], ["S", "STRING(MAX)"]]


def test_uuid_keys_order_as_their_bytes(udb: SpannerDb) -> None:
    assert _rows(udb, "SELECT S FROM U WHERE S IN ('one', 'two') ORDER BY Id") == [["two"], ["one"]]


def test_insert_leaving_out_a_defaulted_uuid_key(make_database: DatabaseFactory) -> None:
    tdb = make_database(DDL)
    count = tdb.database.run_in_transaction(
        lambda tx: tx.execute_update("INSERT INTO U (S) VALUES ('a'), ('b') THEN RETURN Id")
    )
    assert count == 2
    ids = [r[0] for r in _rows(tdb, "SELECT Id FROM U")]
    assert len(ids) == 2 and len(set(ids)) == 2
    assert all(_is_v4(u) for u in ids)


def test_insert_mutation_leaving_out_a_defaulted_uuid_key(make_database: DatabaseFactory) -> None:
    tdb = make_database(DDL)
    with tdb.database.batch() as batch:
        batch.insert("U", ["S"], [("m1",), ("m2",)])
        batch.insert("G", ["S"], [("g1",)])
    ids = [r[0] for r in _rows(tdb, "SELECT Id FROM U")]
    assert len(set(ids)) == 2 and all(_is_v4(u) for u in ids)
    [[text]] = _rows(tdb, "SELECT Id FROM G")
    assert _is_v4(uuid.UUID(text)) and text == text.lower() and len(text) == 36


def test_dml_insert_leaving_out_a_generate_uuid_string_key(make_database: DatabaseFactory) -> None:
    tdb = make_database(DDL)
    tdb.database.run_in_transaction(lambda tx: tx.execute_update("INSERT INTO G (S) VALUES ('a'), ('b')"))
    ids = [r[0] for r in _rows(tdb, "SELECT Id FROM G")]
    assert len(set(ids)) == 2 and all(_is_v4(uuid.UUID(i)) for i in ids)


def test_new_uuid_is_a_random_version_4_uuid(udb: SpannerDb) -> None:
    [[a, b, same]] = _rows(udb, "SELECT NEW_UUID(), NEW_UUID(), CAST(NEW_UUID() AS STRING) = ''")
    assert _is_v4(a) and _is_v4(b) and a != b
    assert same is False


PARAMS: dict[str, tuple[str, dict[str, Any], dict[str, Any], list[list[Any]]]] = {
    "typed parameter compared with a column": ("SELECT S FROM U WHERE Id = @u", {"u": U1}, {"u": T.UUID}, [["one"]]),
    "parameter round trip": ("SELECT @u", {"u": U2}, {"u": T.UUID}, [[U2]]),
    "array parameter": ("SELECT @a, ARRAY_LENGTH(@a)", {"a": [U1, None]}, {"a": T.Array(T.UUID)}, [[[U1, None], 2]]),
    "IN UNNEST of an array parameter": (
        "SELECT S FROM U WHERE Id IN UNNEST(@a) ORDER BY S",
        {"a": [U1, U2]},
        {"a": T.Array(T.UUID)},
        [["one"], ["two"]],
    ),
    "untyped string parameter read as the column's UUID": (
        "SELECT S FROM U WHERE Id = @u",
        {"u": str(U2).upper()},
        {},
        [["two"]],
    ),
    "CAST of a bad string parameter with SAFE_CAST": (
        "SELECT SAFE_CAST(@s AS UUID)",
        {"s": "xyz"},
        {"s": T.STRING},
        [[None]],
    ),
}


@pytest.mark.parametrize("case", list(PARAMS))
def test_uuid_parameters(udb: SpannerDb, case: str) -> None:
    sql, params, types, want = PARAMS[case]
    assert _rows(udb, sql, params, types) == want


CASTS: dict[str, tuple[str, list[list[Any]]]] = {
    "upper case to canonical": ("SELECT CAST('9D3F8A1E-6C2B-4F5E-8A7D-1B2C3D4E5F60' AS UUID)", [[U1]]),
    "no hyphens": ("SELECT CAST(CAST('9d3f8a1e6c2b4f5e8a7d1b2c3d4e5f60' AS UUID) AS STRING)", [[str(U1)]]),
    "hyphens anywhere between digits": ("SELECT CAST('9d3f-8a1e-6c2b-4f5e-8a7d-1b2c-3d4e-5f60' AS UUID)", [[U1]]),
    "a leading hyphen is not a UUID": ("SELECT SAFE_CAST('-9d3f8a1e6c2b4f5e8a7d1b2c3d4e5f60' AS UUID)", [[None]]),
    "two hyphens in a row are not a UUID": ("SELECT SAFE_CAST('9d3f8a1e--6c2b4f5e8a7d1b2c3d4e5f60' AS UUID)", [[None]]),
    "too short": ("SELECT SAFE_CAST('9d3f8a1e-6c2b-4f5e-8a7d' AS UUID)", [[None]]),
    # The Python client hands BYTES results back base64-encoded.
    "to BYTES": (
        "SELECT CAST(CAST('9d3f8a1e-6c2b-4f5e-8a7d-1b2c3d4e5f60' AS UUID) AS BYTES)",
        [[base64.b64encode(U1.bytes)]],
    ),
    "from 16 BYTES": (f"SELECT CAST(FROM_BASE64('{base64.b64encode(U1.bytes).decode()}') AS UUID)", [[U1]]),
    "from BYTES of another length": ("SELECT SAFE_CAST(b'short' AS UUID)", [[None]]),
    "string literal compared with a UUID column": (
        "SELECT S FROM U WHERE Id = '9D3F8A1E-6C2B-4F5E-8A7D-1B2C3D4E5F60'",
        [["one"]],
    ),
}


@pytest.mark.parametrize("case", list(CASTS))
def test_uuid_casts(udb: SpannerDb, case: str) -> None:
    sql, want = CASTS[case]
    assert _rows(udb, sql) == want


def test_cast_of_a_bad_uuid_string_is_an_error(udb: SpannerDb) -> None:
    with pytest.raises(gexc.GoogleAPICallError, match="UUID"):
        _rows(udb, "SELECT CAST(@s AS UUID)", {"s": "not-a-uuid"}, {"s": T.STRING})


def test_writing_a_bad_uuid_is_refused(udb: SpannerDb) -> None:
    # As for every other type, a value that does not fit its column fails the mutation (FAILED_PRECONDITION).
    with pytest.raises(gexc.FailedPrecondition, match="UUID"), udb.database.batch() as batch:
        batch.insert("U", ["Id", "S"], [("not-a-uuid", "bad")])
    assert _rows(udb, "SELECT COUNT(*) FROM U WHERE S = 'bad'") == [[0]]
