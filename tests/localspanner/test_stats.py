"""Issue 8, "Server-side statistics": SPANNER_SYS query and transaction stats, server-timing headers."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

import grpc
import pytest
from google.cloud.spanner_admin_database_v1 import Database as DatabasePb
from google.cloud.spanner_admin_database_v1 import GetDatabaseRequest
from google.cloud.spanner_v1 import KeySet, TypeCode, param_types

from spanload.model import tags
from spanload.model.breakdown import OpTiming, Part, Source, breakdown
from spanload.model.config import ClientConfig, Target, TargetKind
from spanload.model.samples import Gauge
from spanload.spanner import client as spanner_client
from spanload.spanner import timing
from spanload.spanner.stats import StatsReader

from .conftest import SpannerDb
from .server_process import ServerProcess
from .stats_workload import (
    MARKER_RUNS,
    TAGGED_RUNS,
    TXN_RUNS,
    TXN_TAGGED_RUNS,
    StatsWorkloads,
    Workload,
    marker_sql,
    run_id,
    tagged_sql,
)

STATS_WAIT_S = 75.0
# Cloud Spanner's form: whole milliseconds (the Go client parses dur as an integer, issue 17).
SERVER_TIMING = re.compile(r"^gfet4t7; dur=(\d+)$")
# The local server's own header with fractional milliseconds, which Spanload's readers prefer.
FINE_TIMING = re.compile(r"^dur=(\d+\.\d{3})$")

QUERY_TOP_COLUMNS = {
    "INTERVAL_END": TypeCode.TIMESTAMP,
    "REQUEST_TAG": TypeCode.STRING,
    "TEXT": TypeCode.STRING,
    "TEXT_FINGERPRINT": TypeCode.INT64,
    "EXECUTION_COUNT": TypeCode.INT64,
    "AVG_LATENCY_SECONDS": TypeCode.FLOAT64,
    "AVG_ROWS": TypeCode.FLOAT64,
    "AVG_BYTES": TypeCode.FLOAT64,
    "AVG_ROWS_SCANNED": TypeCode.FLOAT64,
    "AVG_CPU_SECONDS": TypeCode.FLOAT64,
}
QUERY_TOTAL_COLUMNS = {
    k: v for k, v in QUERY_TOP_COLUMNS.items() if k not in ("REQUEST_TAG", "TEXT", "TEXT_FINGERPRINT")
}
TXN_TOP_COLUMNS = {
    "INTERVAL_END": TypeCode.TIMESTAMP,
    "TRANSACTION_TAG": TypeCode.STRING,
    "FPRINT": TypeCode.INT64,
    "COMMIT_ATTEMPT_COUNT": TypeCode.INT64,
    "COMMIT_ABORT_COUNT": TypeCode.INT64,
    "AVG_COMMIT_LATENCY_SECONDS": TypeCode.FLOAT64,
    "AVG_TOTAL_LATENCY_SECONDS": TypeCode.FLOAT64,
    "AVG_PARTICIPANTS": TypeCode.FLOAT64,
}
TXN_TOTAL_COLUMNS = {k: v for k, v in TXN_TOP_COLUMNS.items() if k not in ("TRANSACTION_TAG", "FPRINT")}
TABLES = {
    **{f"QUERY_STATS_TOP_{p}": QUERY_TOP_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
    **{f"QUERY_STATS_TOTAL_{p}": QUERY_TOTAL_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
    **{f"TXN_STATS_TOP_{p}": TXN_TOP_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
    **{f"TXN_STATS_TOTAL_{p}": TXN_TOTAL_COLUMNS for p in ("MINUTE", "10MINUTE", "HOUR")},
}


@pytest.fixture(scope="module")
def workload(stats_workloads: StatsWorkloads) -> Workload:
    """Run when the suite started (see the conftest), so its minute has closed by now."""
    return stats_workloads.main


def _wait_for(db: SpannerDb, sql: str, what: str) -> list[list[Any]]:
    deadline = time.monotonic() + STATS_WAIT_S
    while True:
        with db.database.snapshot() as snap:
            rows = [list(r) for r in snap.execute_sql(sql)]
        if rows or time.monotonic() > deadline:
            assert rows, f"{what} did not appear within {STATS_WAIT_S:.0f} s (a minute interval must close)"
            return rows
        time.sleep(1.0)


def test_query_stats_top_minute_measures_the_query(workload: Workload) -> None:
    rows = _wait_for(
        workload.db,
        "SELECT INTERVAL_END, TEXT, TEXT_FINGERPRINT, EXECUTION_COUNT, AVG_LATENCY_SECONDS, AVG_ROWS, AVG_BYTES, "
        "AVG_ROWS_SCANNED, AVG_CPU_SECONDS FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE "
        f"WHERE TEXT LIKE '%{workload.marker}%' "
        "AND TEXT NOT LIKE '%SPANNER_SYS%' ORDER BY INTERVAL_END DESC",
        "the marker query in QUERY_STATS_TOP_MINUTE",
    )
    end, text, fingerprint, count, latency, avg_rows, _, scanned, cpu = (
        rows[0][0], rows[0][1], rows[0][2], sum(r[3] for r in rows), *rows[0][4:]
    )  # fmt: skip
    # AVG_BYTES is "the average number of data bytes that the query returned, excluding transmission
    # encoding overhead" (Spanner's query statistics): each row is an INT64 Id (8 bytes in Spanner's
    # data type sizes, however few digits it travels as) and the marker's UTF-8 text.
    data_bytes = 3 * (8 + len(workload.marker.encode()))  # rows 0, 4 and 8
    assert end.second == 0 and end.microsecond == 0, f"INTERVAL_END {end} is not a minute boundary"
    assert workload.marker in text
    # one text, one fingerprint, in every interval it ran (a hash of the text, Spanner's docs say)
    assert {r[2] for r in rows} == {fingerprint}, [r[2] for r in rows]
    assert count == MARKER_RUNS, f"EXECUTION_COUNT {count}, ran it {MARKER_RUNS} times"
    assert avg_rows == 3.0
    assert scanned == 10.0, f"AVG_ROWS_SCANNED {scanned}: the query scans all 10 rows of Seen to return 3"
    assert [r[6] for r in rows] == [float(data_bytes)] * len(rows), f"AVG_BYTES {[r[6] for r in rows]}"
    # each execution's server time is within the client's time for it, and the client timed all of them
    server_s = sum(r[3] * r[4] for r in rows)
    assert 0 < server_s <= workload.marker_client_s, (
        f"AVG_LATENCY_SECONDS x EXECUTION_COUNT {server_s} s: the client took {workload.marker_client_s} s for all"
    )
    assert 0 <= cpu <= latency * 2 + 0.01, f"AVG_CPU_SECONDS {cpu} vs latency {latency}"


def test_query_stats_total_minute_counts_everything(workload: Workload) -> None:
    rows = _wait_for(
        workload.db,
        "SELECT INTERVAL_END, EXECUTION_COUNT, AVG_LATENCY_SECONDS FROM SPANNER_SYS.QUERY_STATS_TOTAL_MINUTE "
        "ORDER BY INTERVAL_END DESC",
        "QUERY_STATS_TOTAL_MINUTE rows",
    )
    # the workload's queries, run before any test: the marker query, the tagged ones and run a's other text
    assert sum(r[1] for r in rows) >= MARKER_RUNS + sum(TAGGED_RUNS.values()) + 1, rows
    # the total of an interval counts every query of it: here each is among its TOP rows, so the
    # total is their sum, and its average latency their average weighted by executions, interval by interval
    with workload.db.database.snapshot() as snap:
        top = {
            r[0]: (r[1], r[2])
            for r in snap.execute_sql(
                "SELECT INTERVAL_END, SUM(EXECUTION_COUNT), SUM(EXECUTION_COUNT * AVG_LATENCY_SECONDS) "
                "FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE GROUP BY INTERVAL_END"
            )
        }
    totals = {r[0]: (r[1], r[2]) for r in rows}
    common = totals.keys() & top.keys()  # a minute may have closed between the two reads
    assert common and {k: totals[k][0] for k in common} == {k: top[k][0] for k in common}, (totals, top)
    for k in common:
        assert totals[k][1] == pytest.approx(top[k][1] / top[k][0]), (k, totals[k], top[k])


def test_txn_stats_top_minute_measures_commits(workload: Workload) -> None:
    rows = _wait_for(
        workload.db,
        "SELECT INTERVAL_END, FPRINT, COMMIT_ATTEMPT_COUNT, COMMIT_ABORT_COUNT, AVG_COMMIT_LATENCY_SECONDS, "
        "AVG_TOTAL_LATENCY_SECONDS, AVG_PARTICIPANTS FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE "
        "ORDER BY COMMIT_ATTEMPT_COUNT DESC",
        "transactions in TXN_STATS_TOP_MINUTE",
    )
    attempts = sum(r[2] for r in rows)
    assert attempts >= TXN_RUNS, f"COMMIT_ATTEMPT_COUNT total {attempts}, committed {TXN_RUNS} transactions"
    top = rows[0]
    assert top[1] != 0 and len({r[1] for r in rows}) >= 2, "the batch and the transactions are two shapes, two FPRINTs"
    assert top[3] == 0, "no transaction of this test was aborted"
    assert 0 < top[4] <= top[5], f"commit latency {top[4]} must be positive and within total latency {top[5]}"
    # each commit wrote one row of a table of one split: one participant
    assert [r[6] for r in rows] == [1.0] * len(rows), rows


def test_spanload_server_gauges_from_spanner_sys(stats_workloads: StatsWorkloads) -> None:
    """The engine's StatsReader turns the last complete minute into the server.* gauges: the poll
    query's gauges cover exactly the marker query's executions (the workload ran MARKER_RUNS), its
    average server latency is within what the client saw, its CPU share is CPU seconds over 60 s; the
    commits' average participants is at least 1 (each commit has a participant; 0.29 was the bug)."""
    workload = stats_workloads.gauges  # a database no SPANNER_SYS query has touched: its last minute is the marker's
    reader = StatsReader(workload.db.database, f"SELECT Id, '{workload.marker}'")
    deadline = time.monotonic() + STATS_WAIT_S
    while Gauge.SERVER_POLL_AVG_LATENCY_S not in (gauges := reader.read()):
        assert time.monotonic() < deadline, f"no poll gauges within {STATS_WAIT_S:.0f} s: {gauges}"
        time.sleep(1.0)
    with workload.db.database.snapshot() as snap:
        ((count, latency, cpu),) = [
            list(r)
            for r in snap.execute_sql(
                "SELECT EXECUTION_COUNT, AVG_LATENCY_SECONDS, AVG_CPU_SECONDS FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE "
                f"WHERE TEXT LIKE '%{workload.marker}%' AND TEXT NOT LIKE '%SPANNER_SYS%' AND INTERVAL_END = "
                "(SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE)"
            )
        ]
    assert count == MARKER_RUNS, f"the last minute holds {count} executions of the marker query"
    assert gauges[Gauge.SERVER_POLL_AVG_LATENCY_S] == pytest.approx(latency)
    assert 0 < gauges[Gauge.SERVER_POLL_AVG_LATENCY_S] <= workload.marker_client_s / MARKER_RUNS * 1.001
    assert gauges[Gauge.SERVER_POLL_CPU_FRACTION] == pytest.approx(MARKER_RUNS * cpu / 60.0)
    assert gauges[Gauge.SERVER_POLL_CPU_FRACTION] <= workload.marker_client_s / 60.0
    assert gauges[Gauge.SERVER_TXN_AVG_PARTICIPANTS] == 1.0  # each commit wrote one row of a one-split table
    # the commit latency: the commit-weighted average of the same minute's transaction shapes
    assert reader.interval_end is not None
    with workload.db.database.snapshot() as snap:
        shapes = list(
            snap.execute_sql(
                "SELECT COMMIT_ATTEMPT_COUNT, AVG_COMMIT_LATENCY_SECONDS FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE "
                "WHERE INTERVAL_END = @end",
                params={"end": datetime.fromtimestamp(reader.interval_end, UTC)},
                param_types={"end": param_types.TIMESTAMP},
            )
        )
    commits = sum(n for n, _ in shapes)
    assert commits > 0, shapes
    weighted = sum(n * latency for n, latency in shapes) / commits
    assert gauges[Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S] == pytest.approx(weighted), shapes


def test_breakdown_splits_server_time_by_spanner_sys(workload: Workload, local_spanner: ServerProcess) -> None:
    """Issue 15's breakdown: the statement texts an operation sent (seen by the client's interceptor)
    are the texts SPANNER_SYS lists, so its average latency splits the operation's server-timing
    into query time (SPANNER_SYS) and the server's front end (the rest)."""
    reader = StatsReader(workload.db.database, "SELECT nothing")
    deadline = time.monotonic() + STATS_WAIT_S
    while (reader.read(), reader.latencies) and (
        reader.latencies is None or marker_sql(workload.marker) not in reader.latencies.query_s
    ):
        assert time.monotonic() < deadline, f"no marker query latency within {STATS_WAIT_S:.0f} s"
        time.sleep(1.0)
    latencies = reader.latencies
    assert latencies is not None and latencies.commit_s is not None and 0 < latencies.commit_s < 5
    with workload.db.database.snapshot() as snap:
        minutes = [  # every closed minute's figure (one may have closed since the read)
            float(r[0])
            for r in snap.execute_sql(
                "SELECT AVG_LATENCY_SECONDS FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE WHERE TEXT = @text",
                params={"text": marker_sql(workload.marker)},
                param_types={"text": param_types.STRING},
            )
        ]
    avg_latency_s = latencies.query_s[marker_sql(workload.marker)]
    assert any(avg_latency_s == pytest.approx(m) for m in minutes), (avg_latency_s, minutes)

    _, project, _, instance, _, database = workload.db.database.name.split("/")
    target = Target(kind=TargetKind.LOCAL, project=project, instance=instance, database=database)
    conn = spanner_client.connect(target, ClientConfig(), local_spanner.address)
    timing.begin()
    began = time.perf_counter()
    with conn.database.snapshot() as snap:
        assert len(list(snap.execute_sql(marker_sql(workload.marker)))) == 3
    total_us = (time.perf_counter() - began) * 1e6
    parts = timing.take_parts()
    conn.close()
    assert parts.statements == [marker_sql(workload.marker)] and parts.commits == 0 and parts.session_wait_s is None
    assert parts.server_ms is not None and parts.server_ms > 0
    one = OpTiming(count=1, total_us=total_us, server_us=parts.server_ms * 1000, server_count=1)
    one.statements = {marker_sql(workload.marker): 1}
    split = {p.part: (p.ms, p.source) for p in breakdown(one, latencies).parts}
    query_ms = min(avg_latency_s * 1000, parts.server_ms)
    assert split[Part.QUERY_COMMIT] == (pytest.approx(query_ms), Source.SPANNER_SYS)
    assert split[Part.SERVER_FRONTEND] == (pytest.approx(parts.server_ms - query_ms), Source.DERIVED)
    assert Part.SERVER not in split


@pytest.mark.parametrize("table", sorted(TABLES))
def test_spanner_sys_table_has_the_documented_columns(workload: Workload, table: str) -> None:
    columns = TABLES[table]
    with workload.db.database.snapshot() as snap:
        result = snap.execute_sql(f"SELECT {', '.join(columns)} FROM SPANNER_SYS.{table} LIMIT 5")
        rows = list(result)
        fields = {f.name: f.type_.code for f in result.fields}
    assert fields == columns, f"{table}: columns/types differ: {fields}"
    for row in rows:
        assert row[0] is not None, "INTERVAL_END is never NULL"


def test_server_timing_header_on_every_data_call(workload: Workload) -> None:
    db = workload.db
    db.recorder.clear()
    with db.database.snapshot() as snap:
        list(snap.execute_sql("SELECT COUNT(*) FROM Seen"))
    with db.database.snapshot() as snap:
        list(snap.read("Seen", ["Id"], KeySet(all_=True)))
    db.database.run_in_transaction(lambda tx: tx.execute_update("UPDATE Seen SET Tag = 'u' WHERE Id = 1"))
    with db.database.batch() as batch:
        batch.insert_or_update("Seen", ["Id", "Tag"], [(50, "b")])
    calls = db.recorder.calls()
    names = {c.name for c in calls}
    assert {"ExecuteStreamingSql", "StreamingRead", "ExecuteSql", "Commit"} <= names, names
    for call in calls:
        header = call.initial_metadata().get("server-timing")
        assert header, f"{call.name}: no server-timing header in {call.initial_metadata()}"
        match = SERVER_TIMING.search(header)
        assert match, f"{call.name}: server-timing {header!r} is not in Cloud Spanner's format 'gfet4t7; dur=N'"
        fine = FINE_TIMING.match(call.initial_metadata().get("x-spanload-server-timing", ""))
        assert fine, f"{call.name}: x-spanload-server-timing is missing or not 'dur=N.NNN': {call.initial_metadata()}"
        # Both headers time the same span: the whole milliseconds are the fine figure truncated.
        assert int(match.group(1)) == int(float(fine.group(1))), (header, fine.group(0))


def test_server_timing_header_on_admin_calls(workload: Workload, local_spanner: ServerProcess) -> None:
    with grpc.insecure_channel(local_spanner.address) as channel:
        get_database = channel.unary_unary(
            "/google.spanner.admin.database.v1.DatabaseAdmin/GetDatabase",
            request_serializer=GetDatabaseRequest.serialize,
            response_deserializer=DatabasePb.deserialize,
        )
        response, call = get_database.with_call(GetDatabaseRequest(name=workload.db.database.name), timeout=10)
    assert response.name == workload.db.database.name
    header = dict(call.initial_metadata()).get("server-timing", "")
    assert SERVER_TIMING.search(header), f"GetDatabase: server-timing header {header!r}"


def test_query_stats_group_by_request_tag(workload: Workload) -> None:
    """Issue 27: a tagged query's row carries its REQUEST_TAG, and "statistics for multiple queries with
    the same tag string are grouped in a single row" whose fingerprint is the tag's (Spanner's query
    statistics docs): run a's two statement texts make one row of 3 + 1 executions, run b's one of 2."""
    tag = {w: tags.operation_tag(run_id(workload.marker, w), "poll") for w in TAGGED_RUNS}
    rows = _wait_for(
        workload.db,
        "SELECT REQUEST_TAG, EXECUTION_COUNT, TEXT_FINGERPRINT, INTERVAL_END FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE "
        f"WHERE REQUEST_TAG LIKE 'spanload-{workload.marker}%'",
        "the tagged queries in QUERY_STATS_TOP_MINUTE",
    )
    by_tag: dict[str, int] = {}
    for request_tag, count, _, _ in rows:
        by_tag[request_tag] = by_tag.get(request_tag, 0) + count
    assert by_tag == {tag["a"]: TAGGED_RUNS["a"] + 1, tag["b"]: TAGGED_RUNS["b"]}
    per_minute = [(r[0], r[3]) for r in rows]
    assert len(per_minute) == len(set(per_minute)), f"one row per tag and minute: {rows}"
    assert len({r[2] for r in rows if r[0] == tag["a"]} & {r[2] for r in rows if r[0] == tag["b"]}) == 0


def test_txn_stats_carry_the_transaction_tag(workload: Workload) -> None:
    tag = {w: tags.operation_tag(run_id(workload.marker, w), "write") for w in TXN_TAGGED_RUNS}
    rows = _wait_for(
        workload.db,
        "SELECT TRANSACTION_TAG, COMMIT_ATTEMPT_COUNT FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE "
        f"WHERE TRANSACTION_TAG LIKE 'spanload-{workload.marker}%'",
        "the tagged transactions in TXN_STATS_TOP_MINUTE",
    )
    by_tag: dict[str, int] = {}
    for transaction_tag, attempts in rows:
        by_tag[transaction_tag] = by_tag.get(transaction_tag, 0) + attempts
    assert by_tag == {tag[w]: n for w, n in TXN_TAGGED_RUNS.items()}


def test_the_stats_reader_counts_only_its_runs_tagged_rows(workload: Workload) -> None:
    """Issue 23's tag condition with the real tables: run b's reader, whose poll text run a also ran in
    the same minute, gets run b's figures alone."""
    run_b = tags.run_tag(run_id(workload.marker, "b"))
    reader = StatsReader(workload.db.database, tagged_sql(workload.marker)[:40], run_b)
    deadline = time.monotonic() + STATS_WAIT_S
    while Gauge.SERVER_POLL_AVG_LATENCY_S not in (gauges := reader.read()):
        assert time.monotonic() < deadline, f"no poll gauges within {STATS_WAIT_S:.0f} s: {gauges}"
        time.sleep(1.0)
    assert reader.interval_end is not None
    with workload.db.database.snapshot() as snap:
        rows = [
            list(r)
            for r in snap.execute_sql(
                "SELECT REQUEST_TAG, EXECUTION_COUNT, AVG_LATENCY_SECONDS, AVG_CPU_SECONDS, INTERVAL_END "
                f"FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE WHERE REQUEST_TAG LIKE 'spanload-{workload.marker}%'"
            )
        ]
    minute = [r for r in rows if r[4].timestamp() == reader.interval_end]
    (b,) = [r for r in minute if r[0].startswith(run_b + "-")]
    assert gauges[Gauge.SERVER_POLL_AVG_LATENCY_S] == pytest.approx(b[2])
    assert gauges[Gauge.SERVER_POLL_CPU_FRACTION] == pytest.approx(b[1] * b[3] / 60.0)
    # For the test to tell, run a's rows of the same text are in this minute and their latency is not
    # b's (their CPU may both round to 0 on a busy machine, so the latency is what tells them apart).
    run_a = tags.run_tag(run_id(workload.marker, "a"))
    a_rows = [r for r in minute if r[0].startswith(run_a + "-")]
    assert a_rows, f"run a's rows must be in this minute for the test to tell: {minute}"
    assert all(r[2] != pytest.approx(b[2]) for r in a_rows), f"run a's latency equals b's: {minute}"
