"""Server-side statistics from SPANNER_SYS, turned into gauge values.

- ``QUERY_STATS_TOP_MINUTE``: average latency of the watcher's poll query in the last complete
  minute, and the fraction of one CPU its executions used (sum of CPU seconds / 60 s), the two
  figures the Change Watcher benchmark printed.
- ``TXN_STATS_TOP_MINUTE``: average commit latency and participants of the run's transactions,
  as the 2PC-participants report measured them, where the target provides the table.
- ``SPANLOAD_COUNTERS`` (the local Spanner only): running totals of commits, participants, commit
  latency and server CPU, read every report interval; the differences between two reads are the
  interval's average participants and commit latency, and the server's CPU use (its process's CPU
  time plus the CPU its latency model accounts), so the charts need not wait for a closed minute.

A target without these tables (the emulator) makes the reader go quiet, not fail the run.

Each read keeps the figures of one minute, the newest either table has (a table whose newest minute
is older had nothing in that one: no commits, say), and says which (``interval_end``); whether that
minute belongs to the run is the aggregator's call (``model/server_minute.py``), not the worker's.
A reader given the run's tag keeps only the rows that carry it (REQUEST_TAG, TRANSACTION_TAG: see
``model/tags.py``), so another application's statements, or a previous run's, never count as this
run's, even when they share the poll query's text.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from google.api_core import exceptions as gexc

from spanload.model import tags
from spanload.model.breakdown import SysLatencies
from spanload.model.samples import Gauge

logger = logging.getLogger(__name__)

SAMPLE_EVERY_S = 10.0  # the tables change once a minute; polling them faster only adds load
MINUTE_S = 60.0

QUERY_STATS_SQL = (
    "SELECT TEXT, EXECUTION_COUNT, AVG_LATENCY_SECONDS, AVG_CPU_SECONDS, INTERVAL_END, REQUEST_TAG "
    "FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE "
    "WHERE INTERVAL_END = (SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE)"
)
COUNTERS_SQL = (
    "SELECT COMMIT_COUNT, PARTICIPANTS, COMMIT_LATENCY_SECONDS, MODEL_CPU_SECONDS, PROCESS_CPU_SECONDS, SPLITS "
    "FROM SPANNER_SYS.SPANLOAD_COUNTERS"
)
TXN_STATS_SQL = (
    "SELECT COMMIT_ATTEMPT_COUNT, AVG_COMMIT_LATENCY_SECONDS, AVG_PARTICIPANTS, INTERVAL_END, TRANSACTION_TAG "
    "FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE "
    "WHERE INTERVAL_END = (SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE)"
)


@dataclass(frozen=True)
class QueryStat:
    text: str
    executions: int
    avg_latency_s: float
    avg_cpu_s: float


def poll_query_gauges(rows: list[QueryStat], poll_sql_prefix: str) -> dict[str, float]:
    """Latency and CPU share of the queries whose text starts like the poll query."""
    mine = [r for r in rows if r.text.strip().startswith(poll_sql_prefix)]
    executions = sum(r.executions for r in mine)
    if executions == 0:
        return {}
    latency = sum(r.executions * r.avg_latency_s for r in mine) / executions
    cpu = sum(r.executions * r.avg_cpu_s for r in mine) / MINUTE_S
    return {Gauge.SERVER_POLL_AVG_LATENCY_S: latency, Gauge.SERVER_POLL_CPU_FRACTION: cpu}


def query_latencies(rows: list[QueryStat]) -> dict[str, float]:
    """Each statement text's average latency, for the breakdown. A tagged row groups every statement of
    its tag under one of their texts (as Spanner does), so two rows with the same text (two operations
    that run the same statement) say nothing certain about it: such a text is left out, and an
    operation that ran it shows its server time whole."""
    out: dict[str, float] = {}
    seen: set[str] = set()
    for r in rows:
        if not r.executions:
            continue
        text = r.text.strip()
        if text in seen:
            out.pop(text, None)
        else:
            seen.add(text)
            out[text] = r.avg_latency_s
    return out


def txn_gauges(rows: list[tuple[int, float, float]]) -> dict[str, float]:
    """Commit-weighted average commit latency and participants over every transaction shape."""
    commits = sum(r[0] for r in rows)
    if commits == 0:
        return {}
    return {
        Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S: sum(r[0] * r[1] for r in rows) / commits,
        Gauge.SERVER_TXN_AVG_PARTICIPANTS: sum(r[0] * r[2] for r in rows) / commits,
    }


@dataclass(frozen=True)
class Counters:
    """One read of SPANLOAD_COUNTERS, and when it was taken (``time.monotonic()``)."""

    at: float
    commits: int
    participants: int
    commit_s: float
    model_cpu_s: float
    process_cpu_s: float
    splits: int


def counter_gauges(prev: Counters | None, cur: Counters) -> dict[str, float]:
    """The gauges of the interval between two reads. A server that restarted in between (its totals
    went down) gives only the split count until the next read."""
    out: dict[str, float] = {Gauge.SERVER_SPLITS: float(cur.splits)}
    if prev is None:
        return out
    elapsed = cur.at - prev.at
    commits = cur.commits - prev.commits
    cpu = (cur.process_cpu_s - prev.process_cpu_s) + (cur.model_cpu_s - prev.model_cpu_s)
    if elapsed <= 0 or commits < 0 or cpu < 0:
        return out
    out[Gauge.SERVER_CPU_FRACTION] = cpu / elapsed
    if commits > 0:
        out[Gauge.SERVER_COMMIT_PARTICIPANTS] = (cur.participants - prev.participants) / commits
        out[Gauge.SERVER_COMMIT_LATENCY_S] = (cur.commit_s - prev.commit_s) / commits
        out[Gauge.SERVER_CPU_PER_COMMIT_MS] = cpu / commits * 1000
    return out


def _float(value: Any) -> float:
    return float(value) if value is not None else 0.0


class StatsReader:
    """Reads both tables; remembers a table that the target does not have and stops asking."""

    def __init__(self, database: Any, poll_sql_prefix: str, run_tag: str | None = None) -> None:
        self._database = database
        self.poll_sql_prefix = poll_sql_prefix
        self.run_tag = run_tag  # None: every row counts (no run to tell apart)
        self._unavailable: set[str] = set()
        self.latencies: SysLatencies | None = None  # of the last read, for the breakdown
        self.interval_end: float | None = None  # unix seconds: the end of the last read's minute
        self._counters: Counters | None = None

    def read_counters(self) -> dict[str, float]:
        """The interval's gauges from SPANLOAD_COUNTERS (none on a target without the table)."""
        rows = self._query("SPANLOAD_COUNTERS", COUNTERS_SQL)
        if not rows:
            return {}
        r = rows[0]
        cur = Counters(
            time.monotonic(), int(r[0] or 0), int(r[1] or 0), _float(r[2]), _float(r[3]), _float(r[4]), int(r[5] or 0)
        )
        prev, self._counters = self._counters, cur
        return counter_gauges(prev, cur)

    def read(self) -> dict[str, float]:
        """The gauges of the newest minute either table holds (``interval_end``)."""
        out: dict[str, float] = {}
        latencies = SysLatencies()
        query_rows = self._mine(self._query("QUERY_STATS_TOP_MINUTE", QUERY_STATS_SQL) or [])
        txn_rows = self._mine(self._query("TXN_STATS_TOP_MINUTE", TXN_STATS_SQL) or [])
        ends = [r[-1].timestamp() for r in (*query_rows, *txn_rows) if r[-1] is not None]
        self.interval_end = end = max(ends, default=None)
        query_rows = [r for r in query_rows if r[-1] is not None and r[-1].timestamp() == end]
        txn_rows = [r for r in txn_rows if r[-1] is not None and r[-1].timestamp() == end]
        stats = [QueryStat(str(r[0]), int(r[1] or 0), _float(r[2]), _float(r[3])) for r in query_rows]
        out.update(poll_query_gauges(stats, self.poll_sql_prefix))
        latencies.query_s = query_latencies(stats)
        gauges = txn_gauges([(int(r[0] or 0), _float(r[1]), _float(r[2])) for r in txn_rows])
        out.update(gauges)
        latencies.commit_s = gauges.get(Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S)
        self.latencies = latencies if latencies.query_s or latencies.commit_s is not None else None
        return out

    def _mine(self, rows: list[list[Any]]) -> list[list[Any]]:
        """The rows that carry the run's tag (the tag column, last, is dropped: INTERVAL_END ends each
        row)."""
        return [r[:-1] for r in rows if self.run_tag is None or tags.is_runs(r[-1], self.run_tag)]

    def _query(self, table: str, sql: str) -> list[list[Any]] | None:
        if table in self._unavailable:
            return None
        try:
            with self._database.snapshot() as snapshot:
                return [list(row) for row in snapshot.execute_sql(sql)]
        except (gexc.InvalidArgument, gexc.NotFound, gexc.MethodNotImplemented, gexc.FailedPrecondition) as err:
            logger.info("SPANNER_SYS.%s is not available on this target: %s", table, err.message)
            self._unavailable.add(table)
            return None
