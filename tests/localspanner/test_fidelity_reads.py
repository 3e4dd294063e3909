"""Issue 17, "Reads": KeySet ranges, reads through a secondary index, a table that does not exist.

Expected rows come from the KeyRange documentation of the Spanner API (google/spanner/v1/keys.proto, "KeyRange":
"Start and end keys can omit trailing key components. ... if the key is closed, then rows that exactly match the
provided components are included; if the key is open, then rows that exactly match are not included"), never from
the server's own output.
"""

from __future__ import annotations

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import CreateSessionRequest, KeyRange, KeySet, PartialResultSet, ReadRequest
from google.cloud.spanner_v1.types import KeyRange as KeyRangePb
from google.cloud.spanner_v1.types import KeySet as KeySetPb
from google.protobuf import struct_pb2

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = [
    "CREATE TABLE Users (UserName STRING(MAX) NOT NULL, Age INT64) PRIMARY KEY (UserName)",
    """CREATE TABLE Events (UserName STRING(MAX) NOT NULL, EventDate DATE NOT NULL, Kind STRING(MAX), Place STRING(MAX))
        PRIMARY KEY (UserName, EventDate)""",
    "CREATE INDEX EventsByKind ON Events (Kind) STORING (Place)",
    "CREATE TABLE Scores (Team INT64 NOT NULL, Points INT64 NOT NULL) PRIMARY KEY (Team, Points DESC)",
    "CREATE INDEX UsersByAge ON Users (Age DESC)",
]

USERS = ["Alice", "Amy", "Bob", "Bobby", "Carl", "Dora"]
EVENTS = [
    ("Alice", "2015-03-01", "x"),
    ("Bob", "1999-12-31", "a"),
    ("Bob", "2000-01-01", "b"),
    ("Bob", "2014-09-23", "c"),
    ("Bob", "2014-09-24", "d"),
    ("Bob", "2015-06-30", "e"),
    ("Carl", "2001-01-01", "f"),
]


@pytest.fixture(scope="module")
def rdb(make_database: DatabaseFactory) -> SpannerDb:
    import datetime as dt

    tdb = make_database(DDL)
    with tdb.database.batch() as batch:
        batch.insert("Users", ["UserName", "Age"], [(u, 20 + i) for i, u in enumerate(USERS)])
        batch.insert(
            "Events",
            ["UserName", "EventDate", "Kind", "Place"],
            [(u, dt.date.fromisoformat(d), k, f"at-{k}") for u, d, k in EVENTS],
        )
        batch.insert("Scores", ["Team", "Points"], [(t, p) for t in (1, 2) for p in (10, 20, 30)])
    return tdb


def _read(db: SpannerDb, table: str, columns: list[str], keyset: KeySet, index: str = "") -> list[list[object]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.read(table, columns, keyset=keyset, index=index)]


def _kinds(db: SpannerDb, **bounds: list[object]) -> list[str]:
    rows = _read(db, "Events", ["Kind"], KeySet(ranges=[KeyRange(**bounds)]))
    return [str(r[0]) for r in rows]


# (KeyRange arguments, expected Kinds in key order) over Events (UserName, EventDate); the first five are the
# documentation's own examples.
EVENT_RANGES: dict[str, tuple[dict[str, list[object]], list[str]]] = {
    "doc: Bob's events from 2014-09-23 to before 2014-09-25": (
        {"start_closed": ["Bob", "2014-09-23"], "end_open": ["Bob", "2014-09-25"]},
        ["c", "d"],
    ),
    "doc: Bob's events during and after 2000": (
        {"start_closed": ["Bob", "2000-01-01"], "end_closed": ["Bob"]},
        list("bcde"),
    ),
    "doc: all of Bob's events": ({"start_closed": ["Bob"], "end_closed": ["Bob"]}, list("abcde")),
    "doc: Bob's events before 2000": ({"start_closed": ["Bob"], "end_open": ["Bob", "2000-01-01"]}, ["a"]),
    "open prefix start excludes every Bob row": ({"start_open": ["Bob"], "end_closed": []}, ["f"]),
    "open prefix end excludes every Bob row": ({"start_closed": [], "end_open": ["Bob"]}, ["x"]),
    "open prefix both ends": ({"start_open": ["Bob"], "end_open": ["Bob"]}, []),
    "empty open end matches nothing": ({"start_closed": ["Bob"], "end_open": []}, []),
    "empty open start matches nothing": ({"start_open": [], "end_closed": ["Bob"]}, []),
    "closed full key both ends": ({"start_closed": ["Bob", "2000-01-01"], "end_closed": ["Bob", "2000-01-01"]}, ["b"]),
    "open full key start": ({"start_open": ["Bob", "2000-01-01"], "end_closed": ["Bob"]}, list("cde")),
}


# Both bounds empty: the high-level KeyRange refuses it ("Must specify at least a start or end row"), so these go
# through the generated client. "The following range includes all rows in the table: start_closed [] end_closed []".
EMPTY_BOTH = {
    "doc: all rows": ({"start_closed": struct_pb2.ListValue(), "end_closed": struct_pb2.ListValue()}, list("xabcdef")),
    "open both": ({"start_open": struct_pb2.ListValue(), "end_open": struct_pb2.ListValue()}, []),
    "closed start, open end": ({"start_closed": struct_pb2.ListValue(), "end_open": struct_pb2.ListValue()}, []),
}


@pytest.mark.parametrize("case", list(EMPTY_BOTH))
def test_key_range_with_both_bounds_empty(rdb: SpannerDb, server_address: str, case: str) -> None:
    bounds, expected = EMPTY_BOTH[case]
    raw = raw_spanner_client(server_address)
    session = raw.create_session(CreateSessionRequest(database=rdb.database.name))
    try:
        request = ReadRequest(
            session=session.name,
            table="Events",
            columns=["Kind"],
            key_set=KeySetPb(ranges=[KeyRangePb(**bounds)]),
        )
        # One column, so each value of the partial result sets is one row (no chunked strings this short).
        kinds = [v.string_value for part in raw.streaming_read(request) for v in PartialResultSet.pb(part).values]
    finally:
        raw.delete_session(name=session.name)
    assert kinds == expected


@pytest.mark.parametrize("case", list(EVENT_RANGES))
def test_key_range_on_a_composite_key(rdb: SpannerDb, case: str) -> None:
    bounds, expected = EVENT_RANGES[case]
    assert _kinds(rdb, **bounds) == expected


# Single-column key: "This range returns all users whose UserName begins with any character from A to C":
# start_closed ["A"], end_open ["D"]; "...begins with B": start_closed ["B"], end_open ["C"].
USER_RANGES: dict[str, tuple[dict[str, list[object]], list[str]]] = {
    "doc: A to C": ({"start_closed": ["A"], "end_open": ["D"]}, ["Alice", "Amy", "Bob", "Bobby", "Carl"]),
    "doc: begins with B": ({"start_closed": ["B"], "end_open": ["C"]}, ["Bob", "Bobby"]),
    "closed end on a full key": ({"start_open": ["Amy"], "end_closed": ["Bobby"]}, ["Bob", "Bobby"]),
    "empty closed start": ({"start_closed": [], "end_open": ["Bob"]}, ["Alice", "Amy"]),
    "empty closed end": ({"start_open": ["Carl"], "end_closed": []}, ["Dora"]),
    "empty open end": ({"start_closed": ["Carl"], "end_open": []}, []),
}


@pytest.mark.parametrize("case", list(USER_RANGES))
def test_key_range_on_a_single_column_key(rdb: SpannerDb, case: str) -> None:
    bounds, expected = USER_RANGES[case]
    rows = _read(rdb, "Users", ["UserName"], KeySet(ranges=[KeyRange(**bounds)]))
    assert [r[0] for r in rows] == expected


def test_key_range_honors_descending_key_parts(rdb: SpannerDb) -> None:
    """ "Key ranges honor column sort order": Points DESC, so team 1's keys run 30, 20, 10."""
    rows = _read(rdb, "Scores", ["Points"], KeySet(ranges=[KeyRange(start_closed=[1, 30], end_open=[1, 10])]))
    assert rows == [[30], [20]]
    rows = _read(rdb, "Scores", ["Points"], KeySet(ranges=[KeyRange(start_open=[1], end_closed=[2, 20])]))
    assert rows == [[30], [20]]


# ---- reads through a secondary index ------------------------------------------------------------------
# Read with `index`: "the key set names index keys" and the columns may be the index's key columns, the table's
# key columns and STORING columns (ReadRequest.index, ReadRequest.key_set).


def test_read_through_an_index_with_storing_columns(rdb: SpannerDb) -> None:
    """The index key (Kind), the table's key (UserName, EventDate) and the STORING column (Place) are all readable."""
    keys = KeySet(keys=[["c"], ["f"]])
    rows = _read(rdb, "Events", ["Kind", "UserName", "EventDate", "Place"], keys, index="EventsByKind")
    assert [[r[0], r[1], r[2].isoformat(), r[3]] for r in rows] == [
        ["c", "Bob", "2014-09-23", "at-c"],
        ["f", "Carl", "2001-01-01", "at-f"],
    ]
    rows = _read(
        rdb,
        "Events",
        ["Kind", "Place"],
        KeySet(ranges=[KeyRange(start_open=["b"], end_closed=["d"])]),
        index="EventsByKind",
    )
    assert rows == [["c", "at-c"], ["d", "at-d"]]


def test_read_through_a_descending_index_in_index_order(rdb: SpannerDb) -> None:
    rows = _read(
        rdb,
        "Users",
        ["Age", "UserName"],
        KeySet(ranges=[KeyRange(start_closed=[24], end_closed=[22])]),
        index="UsersByAge",
    )
    assert rows == [[24, "Carl"], [23, "Bobby"], [22, "Bob"]]


# ---- a table that does not exist --------------------------------------------------------------------


def test_read_of_a_table_that_does_not_exist_is_not_found(rdb: SpannerDb) -> None:
    with pytest.raises(gexc.NotFound) as info:
        _read(rdb, "NoSuchTable", ["Id"], KeySet(all_=True))
    assert "NoSuchTable" in info.value.message, info.value.message


def test_write_to_a_table_that_does_not_exist_is_not_found(rdb: SpannerDb) -> None:
    with pytest.raises(gexc.NotFound) as info, rdb.database.batch() as batch:
        batch.insert("NoSuchTable", ["Id"], [(1,)])
    assert "NoSuchTable" in info.value.message, info.value.message
