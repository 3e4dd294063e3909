"""Issue 29, the PostgreSQL dialect's change streams, with the official Python client on a
PostgreSQL-dialect database of the local Spanner: PostgreSQL's CREATE CHANGE STREAM DDL and the
read function spanner.read_json_<stream>, whose rows are JSONB change records.

Expected values are Spanner's documentation's ("Change streams partitions, records, and queries",
its PostgreSQL tab): each row holds one record as a JSONB object keyed data_change_record,
heartbeat_record or child_partitions_record, with the field names of the GoogleSQL ChangeRecord
struct in snake_case (commit_timestamp, record_sequence, server_transaction_id,
is_last_record_in_transaction_in_partition, table_name, column_types, mods, mod_type,
value_capture_type, number_of_records_in_transaction, number_of_partitions_in_transaction,
transaction_tag, is_system_transaction; timestamp; start_timestamp, child_partitions with token and
parent_partition_tokens), mods' keys and values as JSON objects. The page's PostgreSQL tab could not
be read back here; the names were checked against two readers of real PG records instead: the Cloud
Spanner Emulator's PostgreSQL converter (frontend/converters/pg_change_streams.cc and its test) and
Apache Beam's SpannerIO ChangeStreamRecordMapper, which parses the JSONB of a PostgreSQL database by
the same snake_case keys (not camelCase: commitTimestamp would not be found)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import KeySet, param_types
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from .changestreams import Follower, _plain, assert_children_deliver_each_commit_once
from .conftest import OPERATION_TIMEOUT_S
from .pg import create_pg_database

DDL = [
    "CREATE TABLE t (id bigint PRIMARY KEY, a varchar, b bigint)",
    "CREATE CHANGE STREAM s FOR t WITH (retention_period = '36h', value_capture_type = 'OLD_AND_NEW_VALUES')",
]
# The documented query form: SELECT * FROM spanner.read_json_<stream>(start timestamptz, end
# timestamptz, partition token text, heartbeat milliseconds bigint, null).
READ = "SELECT * FROM spanner.read_json_s($1::timestamptz, $2::timestamptz, $3::text, $4::bigint, null)"
TYPES = {"p1": param_types.TIMESTAMP, "p2": param_types.TIMESTAMP, "p3": param_types.STRING, "p4": param_types.INT64}


@pytest.fixture(scope="module")
def pgdb(instance: Instance) -> Iterator[Database]:
    database = create_pg_database(instance, DDL)
    yield database
    database.drop()


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def read(
    database: Database, start: dt.datetime, end: dt.datetime | None, token: str | None, stream: str = "s"
) -> list[dict[str, Any]]:
    sql = READ.replace("read_json_s(", f"read_json_{stream}(")
    with database.snapshot() as snap:
        rows = snap.execute_sql(sql, params={"p1": start, "p2": end, "p3": token, "p4": 100}, param_types=TYPES)
        return [_plain(row[0]) for row in rows]


def follow_records(
    database: Database, stream: str, start: dt.datetime, end: dt.datetime | None, token: str | None
) -> list[dict[str, Any]]:
    """One call's JSONB records in the shape the GoogleSQL follower reads (changestreams.query): a kind,
    timestamps as datetimes, each child's token and parents."""
    out: list[dict[str, Any]] = []
    for record in read(database, start, end, token, stream):
        if "data_change_record" in record:
            d = record["data_change_record"]
            out.append({**d, "kind": "data", "commit_timestamp": dt.datetime.fromisoformat(d["commit_timestamp"])})
        elif "child_partitions_record" in record:
            c = record["child_partitions_record"]
            out.append(
                {
                    "kind": "children",
                    "start_timestamp": dt.datetime.fromisoformat(c["start_timestamp"]),
                    "record_sequence": c["record_sequence"],
                    "children": [
                        {"token": k["token"], "parents": k["parent_partition_tokens"]} for k in c["child_partitions"]
                    ],
                }
            )
        else:
            out.append({"kind": "heartbeat", "timestamp": record["heartbeat_record"]["timestamp"]})
    return out


def read_partition(database: Database, start: dt.datetime, end: dt.datetime) -> list[dict[str, Any]]:
    """The records of the one initial partition from start to end."""
    (initial,) = read(database, start, None, None)
    # The initial query answers one child_partitions_record: start_timestamp the query's start,
    # record_sequence, and child_partitions, each a token with its parent_partition_tokens.
    assert set(initial["child_partitions_record"]) == {"start_timestamp", "record_sequence", "child_partitions"}
    assert dt.datetime.fromisoformat(initial["child_partitions_record"]["start_timestamp"]) == start
    (child,) = initial["child_partitions_record"]["child_partitions"]
    assert child["parent_partition_tokens"] == []  # the initial query's partitions have no parents
    return read(database, start, end, child["token"])


def test_insert_update_delete_read_back_as_json_data_change_records(pgdb: Database) -> None:
    start = now()
    stamps = []
    for write in (
        lambda b: b.insert("t", ["id", "a", "b"], [[1, "a", 10]]),
        lambda b: b.update("t", ["id", "a"], [[1, "b"]]),
        lambda b: b.delete("t", KeySet(keys=[[1]])),
    ):
        with pgdb.batch() as b:
            write(b)
        stamps.append(b.committed)
    records = read_partition(pgdb, start, stamps[-1] + dt.timedelta(milliseconds=1))
    data = [r["data_change_record"] for r in records if "data_change_record" in r]
    assert all(set(r) <= {"data_change_record", "heartbeat_record"} for r in records)
    # The documented fields of a data_change_record, every one present.
    fields = {
        "commit_timestamp", "record_sequence", "server_transaction_id",
        "is_last_record_in_transaction_in_partition", "table_name", "column_types", "mods", "mod_type",
        "value_capture_type", "number_of_records_in_transaction", "number_of_partitions_in_transaction",
        "transaction_tag", "is_system_transaction",
    }  # fmt: skip
    assert [set(d) for d in data] == [fields] * 3
    assert [d["mod_type"] for d in data] == ["INSERT", "UPDATE", "DELETE"]
    # "commit_timestamp": the timestamp at which the change was committed, RFC 3339 text in JSON.
    assert [dt.datetime.fromisoformat(d["commit_timestamp"]) for d in data] == stamps
    assert {d["table_name"] for d in data} == {"t"}
    assert {d["value_capture_type"] for d in data} == {"OLD_AND_NEW_VALUES"}
    # One record per transaction here: "number_of_records_in_transaction": 1, a JSON number.
    assert [d["number_of_records_in_transaction"] for d in data] == [1, 1, 1]
    assert [d["record_sequence"] for d in data] == ["00000000"] * 3
    assert all(d["is_last_record_in_transaction_in_partition"] is True for d in data)
    assert all(d["is_system_transaction"] is False for d in data)
    # "mods": keys, new_values and old_values are JSON objects (not strings) in the JSONB record;
    # INT64 values are JSON strings, as in every JSON form of Spanner values.
    assert [d["mods"] for d in data] == [
        [{"keys": {"id": "1"}, "new_values": {"a": "a", "b": "10"}, "old_values": {}}],
        [{"keys": {"id": "1"}, "new_values": {"a": "b"}, "old_values": {"a": "a"}}],
        [{"keys": {"id": "1"}, "new_values": {}, "old_values": {"a": "b", "b": "10"}}],
    ]
    # "column_types": name, type ({"code": ...}), is_primary_key, ordinal_position of each column.
    assert data[0]["column_types"] == [
        {"name": "id", "type": {"code": "INT64"}, "is_primary_key": True, "ordinal_position": 1},
        {"name": "a", "type": {"code": "STRING"}, "is_primary_key": False, "ordinal_position": 2},
        {"name": "b", "type": {"code": "INT64"}, "is_primary_key": False, "ordinal_position": 3},
    ]


def test_get_database_ddl_answers_the_stream_in_postgresql(pgdb: Database) -> None:
    pgdb.reload()
    assert pgdb.ddl_statements[-1] == (
        "CREATE CHANGE STREAM s FOR t WITH (retention_period = '36h', value_capture_type = 'OLD_AND_NEW_VALUES')"
    )


def test_heartbeat_records_while_nothing_changes(pgdb: Database) -> None:
    start = now()
    end = start + dt.timedelta(milliseconds=500)
    records = read_partition(pgdb, start, end)
    # {"heartbeat_record": {"timestamp": "..."}}: nothing else when no commit touches the stream.
    assert records and all(list(r) == ["heartbeat_record"] for r in records)
    stamps = [dt.datetime.fromisoformat(r["heartbeat_record"]["timestamp"]) for r in records]
    assert stamps == sorted(stamps) and start <= stamps[0] and stamps[-1] <= end


def test_a_start_before_the_retention_period_is_refused(pgdb: Database) -> None:
    # The stream keeps 36 hours; Spanner refuses a start before that with OUT_OF_RANGE, "Specified
    # start_timestamp is too far in the past" (the GoogleSQL path's message, test_change_streams.py).
    with pytest.raises(gexc.OutOfRange, match="start_timestamp is too far in the past"):
        read(pgdb, now() - dt.timedelta(days=2), None, None)


def test_alter_and_drop_in_postgresql_ddl(instance: Instance) -> None:
    database = create_pg_database(instance, DDL[:1])
    try:
        database.update_ddl(["CREATE CHANGE STREAM s2 FOR ALL"]).result(120)
        database.update_ddl(["ALTER CHANGE STREAM s2 SET (retention_period = '7d')"]).result(120)
        with pytest.raises(gexc.OutOfRange, match="too far in the past"):
            read_s2 = READ.replace("read_json_s(", "read_json_s2(")
            with database.snapshot() as snap:
                list(
                    snap.execute_sql(
                        read_s2,
                        params={"p1": now() - dt.timedelta(days=8), "p2": None, "p3": None, "p4": 100},
                        param_types=TYPES,
                    )
                )
        database.update_ddl(["DROP CHANGE STREAM s2"]).result(120)
        with pytest.raises(gexc.GoogleAPICallError), database.snapshot() as snap:
            list(snap.execute_sql("SELECT * FROM spanner.read_json_s2(now(), null, null, 100::bigint, null)"))
    finally:
        database.drop()


def test_children_after_a_split_divides_and_every_change_once(instance: Instance) -> None:
    """A split that divides mid-read ends its partition with a child_partitions_record whose children
    name it in parent_partition_tokens; a reader that follows every child sees each commit's change
    exactly once, in commit order per key within a partition (as tests/localspanner/
    test_change_streams.py checks for GoogleSQL)."""
    database = create_pg_database(
        instance,
        [DDL[0], "CREATE CHANGE STREAM s3 FOR t WITH (value_capture_type = 'NEW_VALUES')"],
    )
    try:
        # the local Spanner's split size, set as a PostgreSQL database sets a parameter
        database.update_ddl([f'ALTER DATABASE "{database.database_id}" SET spanload_split_rows = 8']).result(
            OPERATION_TIMEOUT_S
        )
        start = now()
        commits: list[tuple[dt.datetime, int, int]] = []
        for i in range(40):
            key = (i * 7) % 20
            with database.batch() as b:
                b.insert_or_update("t", ["id", "b"], [[key, i]])
            commits.append((b.committed, key, i))
        follower = Follower(database, "s3", start, now(), read=follow_records)
        follower.run()
        assert_children_deliver_each_commit_once(follower, commits, "id", "b")
    finally:
        database.drop()
