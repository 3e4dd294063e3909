"""Issue 27, "Request tags and traces": SPANNER_SYS.READ_STATS_* from Read RPCs and LOCK_STATS_* from the
conflicts between read-write transactions, with their request and transaction tags. The workload
(stats_workload.run_reads and run_lock_conflict) runs when the suite starts (see the conftest)."""

from __future__ import annotations

import pytest
from google.cloud.spanner_v1 import TypeCode

from .stats_workload import (
    READ_RUNS_RO,
    READ_RUNS_RW,
    SEEN_ROWS,
    StatsWorkloads,
    Workload,
    lock_tags,
    read_tag,
)
from .test_stats import _wait_for

# Spanner's read statistics docs, "Table schema" of READ_STATS_TOP_* and READ_STATS_TOTAL_*.
READ_TOTAL_COLUMNS = {
    "INTERVAL_END": TypeCode.TIMESTAMP,
    "EXECUTION_COUNT": TypeCode.INT64,
    "AVG_ROWS": TypeCode.FLOAT64,
    "AVG_BYTES": TypeCode.FLOAT64,
    "AVG_CPU_SECONDS": TypeCode.FLOAT64,
    "AVG_LOCKING_DELAY_SECONDS": TypeCode.FLOAT64,
    "AVG_CLIENT_WAIT_SECONDS": TypeCode.FLOAT64,
    "AVG_LEADER_REFRESH_DELAY_SECONDS": TypeCode.FLOAT64,
    "RUN_IN_RW_TRANSACTION_EXECUTION_COUNT": TypeCode.INT64,
}
READ_TOP_COLUMNS = {
    "INTERVAL_END": TypeCode.TIMESTAMP,
    "REQUEST_TAG": TypeCode.STRING,
    "READ_TYPE": TypeCode.STRING,
    "READ_COLUMNS": TypeCode.ARRAY,
    "FPRINT": TypeCode.INT64,
    **{k: v for k, v in READ_TOTAL_COLUMNS.items() if k != "INTERVAL_END"},
    "AVG_DISK_IO_COST": TypeCode.FLOAT64,
}
# Spanner's lock statistics docs: LOCK_STATS_TOP_* and LOCK_STATS_TOTAL_*.
LOCK_TOP_COLUMNS = {
    "INTERVAL_END": TypeCode.TIMESTAMP,
    "ROW_RANGE_START_KEY": TypeCode.BYTES,
    "LOCK_WAIT_SECONDS": TypeCode.FLOAT64,
    "SAMPLE_LOCK_REQUESTS": TypeCode.ARRAY,
}
LOCK_TOTAL_COLUMNS = {"INTERVAL_END": TypeCode.TIMESTAMP, "TOTAL_LOCK_WAIT_SECONDS": TypeCode.FLOAT64}
TABLES = {
    **{f"READ_STATS_TOP_{p}": READ_TOP_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
    **{f"READ_STATS_TOTAL_{p}": READ_TOTAL_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
    **{f"LOCK_STATS_TOP_{p}": LOCK_TOP_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
    **{f"LOCK_STATS_TOTAL_{p}": LOCK_TOTAL_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
}


@pytest.fixture(scope="module")
def workload(stats_workloads: StatsWorkloads) -> Workload:
    return stats_workloads.main


@pytest.mark.parametrize("table", sorted(TABLES))
def test_table_has_the_documented_columns(workload: Workload, table: str) -> None:
    columns = TABLES[table]
    with workload.db.database.snapshot() as snap:
        result = snap.execute_sql(f"SELECT {', '.join(columns)} FROM SPANNER_SYS.{table} LIMIT 5")
        list(result)
        fields = {f.name: f.type_.code for f in result.fields}
    assert fields == columns, f"{table}: columns/types differ: {fields}"


def test_sample_lock_requests_is_the_documented_struct(workload: Workload) -> None:
    """'SAMPLE_LOCK_REQUESTS ARRAY<STRUCT<column STRING, lock_mode STRING, transaction_tag STRING>>'"""
    with workload.db.database.snapshot() as snap:
        result = snap.execute_sql("SELECT SAMPLE_LOCK_REQUESTS FROM SPANNER_SYS.LOCK_STATS_TOP_HOUR LIMIT 1")
        list(result)
        element = result.fields[0].type_.array_element_type
    assert element.code == TypeCode.STRUCT
    assert [(f.name, f.type_.code) for f in element.struct_type.fields] == [
        ("column", TypeCode.STRING),
        ("lock_mode", TypeCode.STRING),
        ("transaction_tag", TypeCode.STRING),
    ]


def test_read_stats_group_tagged_reads(workload: Workload) -> None:
    """'Statistics for multiple reads that have the same tag string are grouped in a single row with the
    REQUEST_TAG matching that tag string'; READ_COLUMNS is 'The set of columns that were read. These are
    in alphabetical order.'; READ_TYPE is READ for reads without a partition token;
    RUN_IN_RW_TRANSACTION_EXECUTION_COUNT is 'The number of times the read was run as part of a
    read-write transaction.' (Spanner's read statistics docs)."""
    tag = read_tag(workload.marker)
    rows = _wait_for(
        workload.db,
        "SELECT REQUEST_TAG, READ_TYPE, READ_COLUMNS, EXECUTION_COUNT, AVG_ROWS, AVG_BYTES, "
        "RUN_IN_RW_TRANSACTION_EXECUTION_COUNT, AVG_LOCKING_DELAY_SECONDS, FPRINT "
        f"FROM SPANNER_SYS.READ_STATS_TOP_MINUTE WHERE REQUEST_TAG = '{tag}'",
        "the tagged reads in READ_STATS_TOP_MINUTE",
    )
    assert {(r[0], r[1], tuple(r[2])) for r in rows} == {(tag, "READ", ("Seen.Id", "Seen.Tag"))}
    assert sum(r[3] for r in rows) == READ_RUNS_RO + READ_RUNS_RW
    assert sum(r[6] for r in rows) == READ_RUNS_RW
    assert all(r[4] == float(SEEN_ROWS) for r in rows), rows
    # AVG_BYTES, the data returned without encoding overhead: 10 rows of an INT64 Id (8 bytes) and a Tag 't'
    assert [r[5] for r in rows] == [float(SEEN_ROWS * (8 + 1))] * len(rows), rows
    assert len({r[8] for r in rows}) == 1, "FPRINT is the hash of the tag: one value for every interval"


def test_read_stats_total_counts_the_reads(workload: Workload) -> None:
    rows = _wait_for(
        workload.db,
        "SELECT EXECUTION_COUNT, RUN_IN_RW_TRANSACTION_EXECUTION_COUNT FROM SPANNER_SYS.READ_STATS_TOTAL_MINUTE",
        "READ_STATS_TOTAL_MINUTE rows",
    )
    assert sum(r[0] for r in rows) >= READ_RUNS_RO + READ_RUNS_RW
    assert sum(r[1] for r in rows) >= READ_RUNS_RW


def test_lock_stats_name_the_row_the_columns_and_both_tags(workload: Workload) -> None:
    """The reader read Ctr(1); the writer updated it and committed first; the reader's commit was
    aborted. LOCK_STATS_TOP_MINUTE has the row: ROW_RANGE_START_KEY 'The row key where the lock conflict
    occurred' in the docs' form ('singers(2)': 'Singers table at key SingerId=2'), and samples whose
    'column' is 'tablename.columnname', whose lock_mode is ReaderShared for the reader ('acquired when a
    read-write transaction reads data') and WriterShared for the writer ('acquired when a read-write
    transaction tries to commit a write'), each with its transaction's tag."""
    reader_tag, writer_tag = lock_tags(workload.marker)
    rows = _wait_for(
        workload.db,
        "SELECT CAST(ROW_RANGE_START_KEY AS STRING), LOCK_WAIT_SECONDS, SAMPLE_LOCK_REQUESTS "
        "FROM SPANNER_SYS.LOCK_STATS_TOP_MINUTE WHERE CAST(ROW_RANGE_START_KEY AS STRING) LIKE 'Ctr(%'",
        "the conflict in LOCK_STATS_TOP_MINUTE",
    )
    assert [r[0] for r in rows] == ["Ctr(1)"], rows
    ((_, wait_s, samples),) = rows
    got = {(s[0], s[1], s[2]) for s in samples}
    assert ("Ctr.N", "ReaderShared", reader_tag) in got, got
    assert ("Ctr.N", "WriterShared", writer_tag) in got, got
    assert {s[2] for s in samples} == {reader_tag, writer_tag}, samples
    # The reader's first attempt waited on the row from its read until its commit was refused: less
    # than the whole transaction the client timed (both attempts).
    assert 0 < wait_s < workload.lock_client_s[0], (wait_s, workload.lock_client_s)


def test_lock_stats_total_sums_the_waits(workload: Workload) -> None:
    tops = _wait_for(
        workload.db,
        "SELECT INTERVAL_END, LOCK_WAIT_SECONDS FROM SPANNER_SYS.LOCK_STATS_TOP_MINUTE",
        "LOCK_STATS_TOP_MINUTE rows",
    )
    with workload.db.database.snapshot() as snap:
        totals = {r[0]: r[1] for r in snap.execute_sql(
            "SELECT INTERVAL_END, TOTAL_LOCK_WAIT_SECONDS FROM SPANNER_SYS.LOCK_STATS_TOTAL_MINUTE"
        )}  # fmt: skip
    for end in {r[0] for r in tops}:
        assert totals[end] == pytest.approx(sum(r[1] for r in tops if r[0] == end))
