"""Issue 29, change streams on the local Spanner, through the official Python client.

Expected values come from Spanner's change stream documentation ("Change streams partitions,
records, and queries"; "Create and manage change streams"): the ChangeRecord fields, the mods per
value capture type (OLD_AND_NEW_VALUES: old and new values of the modified columns; NEW_ROW: the
whole new row, no old values; NEW_VALUES: new values of the modified columns; NEW_ROW_AND_OLD_VALUES:
the whole new row and the old values of the modified columns; a delete carries the old row only
where old values are captured), INT64 values as JSON strings, the commit timestamp of the
transaction, the heartbeat and child partitions records, and OUT_OF_RANGE for a start_timestamp
older than the retention period."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import KeySet
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from .changestreams import Follower, assert_children_deliver_each_commit_once, query
from .conftest import OPERATION_TIMEOUT_S, create_database
from .server_process import ServerProcess

CAPTURE_TYPES = ["OLD_AND_NEW_VALUES", "NEW_ROW", "NEW_VALUES", "NEW_ROW_AND_OLD_VALUES"]
TABLE = "CREATE TABLE {t} (Id INT64 NOT NULL, A STRING(MAX), B INT64) PRIMARY KEY (Id)"


def stream_table(capture: str) -> str:
    return "T_" + capture.replace("_", "")[:12]


@pytest.fixture(scope="module")
def database(instance: Instance, local_spanner: ServerProcess) -> Iterator[Database]:
    ddl = []
    for c in CAPTURE_TYPES:
        t = stream_table(c)
        ddl += [TABLE.format(t=t), f"CREATE CHANGE STREAM S_{t} FOR {t} OPTIONS (value_capture_type = '{c}')"]
    ddl += [
        TABLE.format(t="Cols"),
        "CREATE CHANGE STREAM S_Cols FOR Cols(A) OPTIONS (exclude_delete = true)",
    ]
    db = create_database(instance, local_spanner.address, ddl)
    yield db.database
    db.database.drop()


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def read_all(database: Database, stream: str, start: dt.datetime, end: dt.datetime) -> list[dict[str, Any]]:
    """The stream's records between start and end, from its one initial partition."""
    initial = query(database, stream, start, end, None)
    assert [r["kind"] for r in initial] == ["children"]
    assert len(initial[0]["children"]) == 1 and initial[0]["children"][0]["parents"] == []
    return query(database, stream, start, end, initial[0]["children"][0]["token"])


def write_three(database: Database, table: str) -> list[dt.datetime]:
    """An insert of two rows, an update of A of one, a delete of the other: their commit timestamps."""
    stamps = []
    with database.batch() as b:
        b.insert(table, ["Id", "A", "B"], [[1, "a", 10], [2, "x", 20]])
    stamps.append(b.committed)
    with database.batch() as b:
        b.update(table, ["Id", "A"], [[1, "b"]])
    stamps.append(b.committed)
    with database.batch() as b:
        b.delete(table, KeySet(keys=[[2]]))
    stamps.append(b.committed)
    return stamps


INSERT_MODS = [
    {"keys": {"Id": "1"}, "new_values": {"A": "a", "B": "10"}, "old_values": {}},
    {"keys": {"Id": "2"}, "new_values": {"A": "x", "B": "20"}, "old_values": {}},
]
# per capture type: the update's mod and the columns its record describes, then the delete's
EXPECTED = {
    "OLD_AND_NEW_VALUES": (
        {"keys": {"Id": "1"}, "new_values": {"A": "b"}, "old_values": {"A": "a"}},
        ["Id", "A"],
        {"keys": {"Id": "2"}, "new_values": {}, "old_values": {"A": "x", "B": "20"}},
        ["Id", "A", "B"],
    ),
    "NEW_ROW": (
        {"keys": {"Id": "1"}, "new_values": {"A": "b", "B": "10"}, "old_values": {}},
        ["Id", "A", "B"],
        {"keys": {"Id": "2"}, "new_values": {}, "old_values": {}},
        ["Id"],
    ),
    "NEW_VALUES": (
        {"keys": {"Id": "1"}, "new_values": {"A": "b"}, "old_values": {}},
        ["Id", "A"],
        {"keys": {"Id": "2"}, "new_values": {}, "old_values": {}},
        ["Id"],
    ),
    "NEW_ROW_AND_OLD_VALUES": (
        {"keys": {"Id": "1"}, "new_values": {"A": "b", "B": "10"}, "old_values": {"A": "a"}},
        ["Id", "A", "B"],
        {"keys": {"Id": "2"}, "new_values": {}, "old_values": {"A": "x", "B": "20"}},
        ["Id", "A", "B"],
    ),
}


@pytest.mark.parametrize("capture", CAPTURE_TYPES)
def test_inserts_updates_deletes_per_value_capture_type(database: Database, capture: str) -> None:
    table = stream_table(capture)
    start = now()
    stamps = write_three(database, table)
    records = read_all(database, f"S_{table}", start, now())
    data = [r for r in records if r["kind"] == "data"]
    update, update_cols, delete, delete_cols = EXPECTED[capture]
    assert [(r["mod_type"], r["mods"]) for r in data] == [
        ("INSERT", INSERT_MODS),
        ("UPDATE", [update]),
        ("DELETE", [delete]),
    ]
    assert [r["commit_timestamp"] for r in data] == stamps
    for r in data:
        assert r["table_name"] == table
        assert r["value_capture_type"] == capture
        assert r["record_sequence"] == "00000000"
        assert r["is_last"] is True
        assert r["number_of_records_in_transaction"] == 1
        assert r["number_of_partitions_in_transaction"] == 1
        assert r["transaction_tag"] == "" and r["is_system_transaction"] is False
    # column_types: the key, then the columns the mods carry, by ordinal position, with their types
    assert data[0]["column_types"] == [
        {"name": "Id", "type": {"code": "INT64"}, "is_primary_key": True, "ordinal_position": 1},
        {"name": "A", "type": {"code": "STRING"}, "is_primary_key": False, "ordinal_position": 2},
        {"name": "B", "type": {"code": "INT64"}, "is_primary_key": False, "ordinal_position": 3},
    ]
    assert [c["name"] for c in data[1]["column_types"]] == update_cols
    assert [c["name"] for c in data[2]["column_types"]] == delete_cols


def test_column_list_and_exclusion(database: Database) -> None:
    """FOR Cols(A): an update of B alone is no change of the stream; exclude_delete drops deletes."""
    start = now()
    stamps = write_three(database, "Cols")
    with database.batch() as b:
        b.update("Cols", ["Id", "B"], [[1, 11]])
    data = [r for r in read_all(database, "S_Cols", start, now()) if r["kind"] == "data"]
    assert [(r["mod_type"], r["mods"], r["commit_timestamp"]) for r in data] == [
        (
            "INSERT",
            [
                {"keys": {"Id": "1"}, "new_values": {"A": "a"}, "old_values": {}},
                {"keys": {"Id": "2"}, "new_values": {"A": "x"}, "old_values": {}},
            ],
            stamps[0],
        ),
        ("UPDATE", [{"keys": {"Id": "1"}, "new_values": {"A": "b"}, "old_values": {"A": "a"}}], stamps[1]),
    ]


def test_heartbeats_while_nothing_changes(database: Database) -> None:
    start = now()
    end = start + dt.timedelta(milliseconds=700)
    records = read_all(database, "S_Cols", start, end)
    assert records, "the partition query returned nothing before its end timestamp"
    assert {r["kind"] for r in records} == {"heartbeat"}
    stamps = [r["timestamp"] for r in records]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert start <= stamps[0] and stamps[-1] <= end


def test_start_before_retention_is_refused(database: Database) -> None:
    with pytest.raises(gexc.OutOfRange, match="start_timestamp is too far in the past"):
        query(database, "S_Cols", now() - dt.timedelta(days=2), None, None)


def test_heartbeat_out_of_range_is_refused(database: Database) -> None:
    with pytest.raises(gexc.OutOfRange, match="heartbeat_milliseconds"):
        query(database, "S_Cols", now(), None, None, hb=10)


def test_information_schema_and_ddl(database: Database) -> None:
    with database.snapshot(multi_use=True) as snap:
        streams = sorted(
            tuple(r)
            for r in snap.execute_sql("SELECT CHANGE_STREAM_NAME, `ALL` FROM INFORMATION_SCHEMA.CHANGE_STREAMS")
        )
        tables = sorted(
            tuple(r)
            for r in snap.execute_sql(
                "SELECT CHANGE_STREAM_NAME, TABLE_NAME, ALL_COLUMNS FROM INFORMATION_SCHEMA.CHANGE_STREAM_TABLES"
            )
        )
        cols = [
            tuple(r)
            for r in snap.execute_sql(
                "SELECT CHANGE_STREAM_NAME, TABLE_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.CHANGE_STREAM_COLUMNS"
            )
        ]
        opts = sorted(
            tuple(r)
            for r in snap.execute_sql(
                "SELECT CHANGE_STREAM_NAME, OPTION_NAME, OPTION_TYPE, OPTION_VALUE "
                "FROM INFORMATION_SCHEMA.CHANGE_STREAM_OPTIONS"
            )
        )
    names = [*sorted(f"S_{stream_table(c)}" for c in CAPTURE_TYPES), "S_Cols"]
    assert streams == sorted((n, False) for n in names)
    assert tables == sorted(
        [(f"S_{stream_table(c)}", stream_table(c), True) for c in CAPTURE_TYPES] + [("S_Cols", "Cols", False)]
    )
    assert cols == [("S_Cols", "Cols", "A")]
    assert ("S_Cols", "exclude_delete", "BOOL", "TRUE") in opts
    assert ("S_T_NEWROW", "value_capture_type", "STRING", "NEW_ROW") in opts
    database.reload()
    assert "CREATE CHANGE STREAM S_Cols FOR Cols(A) OPTIONS (exclude_delete = true)" in database.ddl_statements


def test_alter_and_drop(instance: Instance, local_spanner: ServerProcess) -> None:
    db = create_database(
        instance, local_spanner.address, [TABLE.format(t="T"), "CREATE CHANGE STREAM S FOR T"]
    ).database
    try:
        db.update_ddl(
            ["ALTER CHANGE STREAM S SET OPTIONS (retention_period = '36h', value_capture_type = 'NEW_ROW')"]
        ).result(OPERATION_TIMEOUT_S)
        db.reload()
        assert (
            "CREATE CHANGE STREAM S FOR T OPTIONS (retention_period = '36h', value_capture_type = 'NEW_ROW')"
            in db.ddl_statements
        )
        with pytest.raises(gexc.FailedPrecondition, match="change stream"):
            db.update_ddl(["DROP TABLE T"]).result(OPERATION_TIMEOUT_S)
        with pytest.raises(gexc.InvalidArgument, match="retention_period"):
            db.update_ddl(["ALTER CHANGE STREAM S SET OPTIONS (retention_period = '8d')"]).result(OPERATION_TIMEOUT_S)
        db.update_ddl(["DROP CHANGE STREAM S", "DROP TABLE T"]).result(OPERATION_TIMEOUT_S)
        db.reload()
        assert list(db.ddl_statements) == []
    finally:
        db.drop()


def test_children_after_split_and_exactly_once(instance: Instance, local_spanner: ServerProcess) -> None:
    """A split that divides mid-read ends its partition with a child partitions record; a reader that
    follows every child sees each commit's change exactly once, in commit order per key."""
    db = create_database(
        instance,
        local_spanner.address,
        [TABLE.format(t="T"), "CREATE CHANGE STREAM S FOR T OPTIONS (value_capture_type = 'NEW_VALUES')"],
    ).database
    try:
        db.update_ddl([f"ALTER DATABASE `{db.database_id}` SET OPTIONS (spanload_split_rows = 8)"]).result(
            OPERATION_TIMEOUT_S
        )
        start = now()
        commits: list[tuple[dt.datetime, int, int]] = []
        for i in range(40):
            key = (i * 7) % 20
            with db.batch() as b:
                b.insert_or_update("T", ["Id", "B"], [[key, i]])
            commits.append((b.committed, key, i))
        end = now()
        follower = Follower(db, "S", start, end)
        follower.run()
        assert_children_deliver_each_commit_once(follower, commits, "Id", "B")
    finally:
        db.drop()


def test_null_values_are_json_null(database: Database) -> None:
    start = now()
    with database.batch() as b:
        b.insert("Cols", ["Id", "A", "B"], [[50, None, 3]])
    data = [r for r in read_all(database, "S_Cols", start, now()) if r["kind"] == "data"]
    assert [(r["mod_type"], r["mods"]) for r in data] == [
        ("INSERT", [{"keys": {"Id": "50"}, "new_values": {"A": None}, "old_values": {}}])
    ]


def test_a_fourth_stream_on_a_column_is_refused(instance: Instance, local_spanner: ServerProcess) -> None:
    """Spanner's quotas page, "Change stream limits": "Change streams watching any given non-key column:
    3", and "A change stream that watches an entire table or database implicitly watches every column in
    that table or database, and therefore counts towards this limit." The refusal is FAILED_PRECONDITION
    and leaves the schema as it was; a stream on another column, or on the key alone, is still allowed."""
    db = create_database(
        instance,
        local_spanner.address,
        [
            TABLE.format(t="T"),
            "CREATE CHANGE STREAM S1 FOR ALL",
            "CREATE CHANGE STREAM S2 FOR T",
            "CREATE CHANGE STREAM S3 FOR T(A)",
        ],
    ).database
    try:
        with pytest.raises(gexc.FailedPrecondition) as refused:
            db.update_ddl(["CREATE CHANGE STREAM S4 FOR T(A)"]).result(OPERATION_TIMEOUT_S)
        assert "more than 3 Change Streams tracking the same table or non-key column or ALL: A." in str(refused.value)
        db.update_ddl(["CREATE CHANGE STREAM S5 FOR T()", "CREATE CHANGE STREAM S6 FOR T(B)"]).result(
            OPERATION_TIMEOUT_S
        )
        with pytest.raises(gexc.FailedPrecondition, match="more than 3 Change Streams"):
            db.update_ddl(["ALTER CHANGE STREAM S5 SET FOR T(A)"]).result(OPERATION_TIMEOUT_S)
        db.reload()
        streams = sorted(s for s in db.ddl_statements if s.startswith("CREATE CHANGE STREAM"))
        assert streams == [
            "CREATE CHANGE STREAM S1 FOR ALL",
            "CREATE CHANGE STREAM S2 FOR T",
            "CREATE CHANGE STREAM S3 FOR T(A)",
            "CREATE CHANGE STREAM S5 FOR T()",
            "CREATE CHANGE STREAM S6 FOR T(B)",
        ]
    finally:
        db.drop()
