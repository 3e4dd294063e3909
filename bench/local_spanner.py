"""Benchmark the local Spanner server with the official Python client; prints figures next to the targets.

    /work/main/.venv/bin/python bench/local_spanner.py [--quick] [--in-memory]

The server runs in its own process; its CPU time comes from /proc/<pid>/stat (utime + stime) and its
memory from /proc/<pid>/status (VmRSS). Client load comes from 1 and then 2 client processes, each with
its own google-cloud-spanner Client and CLIENT_THREADS threads. One Python client process cannot do
much more than ~1,100 commits/s or ~900 reads/s (DESIGN.md, measured facts), hence the targets are
server CPU per operation and two-process totals.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import fmt_rate, median_ms, verdict

from tests.localspanner.schemas import CHANGE_WATCHER_DDL, SHARDS
from tests.localspanner.server_process import ServerProcess, cpu_seconds, rss_kib, start_server

PROJECT = "spanload-bench"
CLIENT_THREADS = 8
POINT_ROWS = 10_000
WATCH_ROWS = 100_000
LOAD_BATCH_ROWS = 2_000
NEW_ROWS = 100
TARGET_COMMIT_CPU_MS = 0.35
TARGET_READ_CPU_MS = 0.30
TARGET_COMMITS_2P = 1_800
TARGET_READS_2P = 1_400
TARGET_HINT_SPEEDUP = 20.0

DDL = [
    "CREATE TABLE Bench (Id INT64 NOT NULL, V INT64, S STRING(MAX)) PRIMARY KEY (Id)",
    *CHANGE_WATCHER_DDL,
]
WATCH_SELECT = "SELECT Id, ShardId, LastUpdated FROM DataChanges{hint} "
WATCH_WHERE = "WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit"
HINT = "@{FORCE_INDEX=DataChangesByShardTime}"


def _database(instance_id: str, database_id: str) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.spanner_v1 import Client

    client = Client(project=PROJECT, credentials=AnonymousCredentials(), disable_builtin_metrics=True)
    return client.instance(instance_id).database(database_id)


# ---- the operations, run by every client thread ----------------------------------------------------


def _op_commit(db: Any, rng: random.Random) -> None:
    with db.batch() as batch:
        batch.insert_or_update("Bench", ["Id", "V"], [(POINT_ROWS + rng.randrange(1_000_000), 1)])


def _op_rw_txn(db: Any, rng: random.Random) -> None:
    key = POINT_ROWS + rng.randrange(1_000_000)
    db.run_in_transaction(lambda tx: tx.insert_or_update("Bench", ["Id", "V"], [(key, 2)]))


def _op_point_read(db: Any, rng: random.Random) -> None:
    from google.cloud.spanner_v1 import param_types

    with db.snapshot() as snap:
        rows = list(
            snap.execute_sql(
                "SELECT V, S FROM Bench WHERE Id = @id",
                params={"id": rng.randrange(POINT_ROWS)},
                param_types={"id": param_types.INT64},
            )
        )
    if len(rows) != 1:
        raise RuntimeError(f"point read returned {len(rows)} rows")


OPERATIONS: dict[str, Callable[[Any, random.Random], None]] = {
    "batch() single-row commit": _op_commit,
    "read-write transaction": _op_rw_txn,
    "point read (ExecuteStreamingSql)": _op_point_read,
}


def _client_process(
    op_name: str, instance_id: str, database_id: str, seconds: float, ready: Any, go: Any, results: Any
) -> None:
    """One client process: CLIENT_THREADS threads doing ``op_name`` for ``seconds`` after ``go``."""
    db = _database(instance_id, database_id)
    op = OPERATIONS[op_name]
    op(db, random.Random())  # warm up: channel, multiplexed session
    ready.set()
    go.wait()
    cpu0 = time.process_time()
    deadline = time.monotonic() + seconds
    counts = [0] * CLIENT_THREADS
    errors: list[str] = []

    def run(i: int) -> None:
        rng = random.Random(os.getpid() * 100 + i)
        while time.monotonic() < deadline:
            try:
                op(db, rng)
                counts[i] += 1
            except Exception as err:
                errors.append(repr(err))
                return

    threads = [threading.Thread(target=run, args=(i,)) for i in range(CLIENT_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.put((sum(counts), time.process_time() - cpu0, errors[:3]))


@dataclass
class Throughput:
    ops: int
    seconds: float
    server_cpu_s: float
    client_cpu_s: float
    errors: list[str]

    @property
    def rate(self) -> float:
        return self.ops / self.seconds

    @property
    def cpu_ms_per_op(self) -> float:
        return self.server_cpu_s * 1000.0 / max(self.ops, 1)

    @property
    def client_cpu_ms_per_op(self) -> float:
        return self.client_cpu_s * 1000.0 / max(self.ops, 1)

    @property
    def cpu_ceiling(self) -> float:
        """Operations/s this machine's cores could do if clients and server had them to themselves."""
        per_op_ms = self.cpu_ms_per_op + self.client_cpu_ms_per_op
        return (os.cpu_count() or 1) * 1000.0 / per_op_ms if per_op_ms else float("nan")


def measure(server: ServerProcess, op_name: str, procs: int, ids: tuple[str, str], seconds: float) -> Throughput:
    ctx = mp.get_context("spawn")
    ready = [ctx.Event() for _ in range(procs)]
    go = ctx.Event()
    results = ctx.Queue()
    workers = [
        ctx.Process(target=_client_process, args=(op_name, *ids, seconds, ready[i], go, results)) for i in range(procs)
    ]
    for w in workers:
        w.start()
    for r in ready:
        if not r.wait(60):
            raise RuntimeError("a client process did not get ready within 60 s")
    cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
    go.set()
    outcomes = [results.get(timeout=seconds + 60) for _ in workers]
    elapsed, cpu1 = time.monotonic() - t0, cpu_seconds(server.pid)
    for w in workers:
        w.join(30)
    errors = [e for _, _, errs in outcomes for e in errs]
    return Throughput(sum(n for n, _, _ in outcomes), elapsed, cpu1 - cpu0, sum(c for _, c, _ in outcomes), errors)


# ---- the change watcher query at 100k rows ---------------------------------------------------------


def load_watch_rows(db: Any, rows: int) -> Any:
    """Insert ``rows`` rows in large single-use commits; returns the last commit timestamp."""
    from google.cloud.spanner_v1 import COMMIT_TIMESTAMP

    last = None
    for start in range(0, rows, LOAD_BATCH_ROWS):
        n = min(LOAD_BATCH_ROWS, rows - start)
        with db.batch() as batch:
            batch.insert(
                "DataChanges",
                ["Id", "Payload", "LastUpdated"],
                [(str(uuid.uuid4()), "payload", COMMIT_TIMESTAMP) for _ in range(n)],
            )
        last = batch.committed
    return last


def time_watch_query(db: Any, hinted: bool, since: Any, runs: int) -> tuple[float, float, int]:
    """Median client-observed latency (ms), median server elapsed time (ms, from PROFILE), rows."""
    from google.cloud.spanner_v1 import ExecuteSqlRequest, param_types

    sql = WATCH_SELECT.format(hint=HINT if hinted else "") + WATCH_WHERE
    params = {"shards": SHARDS, "ts": since, "limit": 1000}
    types = {"shards": param_types.Array(param_types.INT64), "ts": param_types.TIMESTAMP, "limit": param_types.INT64}
    client_s: list[float] = []
    server_ms: list[float] = []
    rows = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        with db.snapshot() as snap:
            result = snap.execute_sql(sql, params=params, param_types=types)
            rows = len(list(result))
        client_s.append(time.perf_counter() - t0)
    for _ in range(max(1, runs // 2)):
        with db.snapshot() as snap:
            result = snap.execute_sql(
                sql, params=params, param_types=types, query_mode=ExecuteSqlRequest.QueryMode.PROFILE
            )
            list(result)
            elapsed = dict(result.stats.query_stats).get("elapsed_time", "") if result.stats else ""
        if elapsed:
            server_ms.append(_elapsed_ms(str(elapsed)))
    return median_ms(client_s), (sorted(server_ms)[len(server_ms) // 2] if server_ms else float("nan")), rows


def _elapsed_ms(text: str) -> float:
    """Spanner prints elapsed_time like '1.23 msecs' or '0.5 secs'."""
    number, _, unit = text.partition(" ")
    value = float(number)
    return value * 1000.0 if unit.startswith("sec") else value / 1000.0 if unit.startswith("usec") else value


# ---- main --------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="shorter runs (about a minute in all)")
    parser.add_argument("--in-memory", action="store_true", help="run the server without --data-dir")
    args = parser.parse_args()
    seconds = 2.0 if args.quick else 6.0
    os.environ["SPANNER_DISABLE_BUILTIN_METRICS"] = "true"

    with tempfile.TemporaryDirectory(prefix="spanload-bench-") as tmp:
        data_dir = None if args.in_memory else Path(tmp) / "data"
        if data_dir is not None:
            data_dir.mkdir()
        server = start_server(Path(tmp) / "server.log", data_dir=data_dir)
        os.environ["SPANNER_EMULATOR_HOST"] = server.address
        try:
            run(server, seconds, data_dir)
        except Exception:
            print(f"\nserver log tail:\n{server.log_tail()}")
            raise
        finally:
            server.stop()
    return 0


def run(server: ServerProcess, seconds: float, data_dir: Path | None) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.spanner_v1 import Client

    started = time.monotonic()
    where = f"data in {data_dir}" if data_dir else "in memory"
    print(f"local Spanner bench: server pid {server.pid} on {server.address}, {where}, {os.cpu_count()} cores")
    load1, load5, _ = os.getloadavg()
    print(f"{CLIENT_THREADS} threads per client process, {seconds:.0f} s per measurement")
    print(f"machine load average before the bench: {load1:.2f} (1 min), {load5:.2f} (5 min); other work skews rates\n")
    client = Client(project=PROJECT, credentials=AnonymousCredentials(), disable_builtin_metrics=True)
    config = f"projects/{PROJECT}/instanceConfigs/emulator-config"
    instance_id, database_id = "bench-" + uuid.uuid4().hex[:8], "db-" + uuid.uuid4().hex[:8]
    instance = client.instance(instance_id, configuration_name=config, node_count=1)
    instance.create().result(60)
    db = instance.database(database_id, ddl_statements=DDL)
    db.create().result(60)
    for start in range(0, POINT_ROWS, LOAD_BATCH_ROWS):
        with db.batch() as batch:
            batch.insert("Bench", ["Id", "V", "S"], [(i, i, "x" * 32) for i in range(start, start + LOAD_BATCH_ROWS)])

    print(
        f"{'operation':34} {'procs':>5} {'ops/s':>8} {'server CPU ms/op':>17} {'client CPU ms/op':>17} "
        f"{'CPU ceiling/s':>14}   target"
    )
    figures: dict[tuple[str, int], Throughput] = {}
    for op_name in OPERATIONS:
        for procs in (1, 2):
            t = measure(server, op_name, procs, (instance_id, database_id), seconds)
            figures[(op_name, procs)] = t
            target = _target(op_name, procs, t)
            print(
                f"{op_name:34} {procs:>5} {fmt_rate(t.rate):>8} {t.cpu_ms_per_op:>17.3f} "
                f"{t.client_cpu_ms_per_op:>17.3f} {fmt_rate(t.cpu_ceiling):>14}   {target}"
            )
            if t.errors:
                print(f"    errors: {t.errors}")

    print(f"\nchange watcher query at {WATCH_ROWS:,} rows, {NEW_ROWS} new since the last poll")
    t0 = time.monotonic()
    since = load_watch_rows(db, WATCH_ROWS)
    load_s = time.monotonic() - t0
    rss_mib = rss_kib(server.pid) / 1024
    load_watch_rows(db, NEW_ROWS)
    h_client, h_server, h_rows = time_watch_query(db, True, since, runs=20)
    u_client, u_server, u_rows = time_watch_query(db, False, since, runs=6)
    print(f"  loaded in {load_s:.1f} s ({WATCH_ROWS / load_s:,.0f} rows/s through batch())")
    print(
        f"  hinted   (FORCE_INDEX): {h_client:8.2f} ms at the client, {h_server:8.2f} ms in the server, {h_rows} rows"
    )
    print(
        f"  unhinted (base scan)  : {u_client:8.2f} ms at the client, {u_server:8.2f} ms in the server, {u_rows} rows"
    )
    speedup_server = u_server / h_server if h_server > 0 else float("nan")
    speedup_client = u_client / h_client if h_client > 0 else float("nan")
    print(
        f"  hint speed-up: {speedup_server:.1f}x server-side, {speedup_client:.1f}x client-observed   "
        f"target >= {TARGET_HINT_SPEEDUP:.0f}x: {verdict(speedup_server >= TARGET_HINT_SPEEDUP)}"
    )
    print(f"\nserver RSS with {WATCH_ROWS + POINT_ROWS:,}+ rows: {rss_mib:.1f} MiB (VmRSS)")
    print("CPU ceiling/s: what the cores could do if clients and server had them to themselves")
    print(f"bench took {time.monotonic() - started:.0f} s")


def _target(op_name: str, procs: int, t: Throughput) -> str:
    parts = []
    if op_name.startswith("batch()"):
        parts.append(f"CPU <= {TARGET_COMMIT_CPU_MS} ms: {verdict(t.cpu_ms_per_op <= TARGET_COMMIT_CPU_MS)}")
        if procs == 2:
            parts.append(f">= {TARGET_COMMITS_2P:,}/s: {verdict(t.rate >= TARGET_COMMITS_2P)}")
    elif op_name.startswith("point read"):
        parts.append(f"CPU <= {TARGET_READ_CPU_MS} ms: {verdict(t.cpu_ms_per_op <= TARGET_READ_CPU_MS)}")
        if procs == 2:
            parts.append(f">= {TARGET_READS_2P:,}/s: {verdict(t.rate >= TARGET_READS_2P)}")
    else:
        parts.append("(no target)")
    return "; ".join(parts)


if __name__ == "__main__":
    raise SystemExit(main())
