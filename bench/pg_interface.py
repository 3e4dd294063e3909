"""The PostgreSQL-interface report's question on this machine: what does PGAdapter add?

One local Spanner (in memory), two databases holding the same 1,000-row table ``kv``: a GoogleSQL
one and a PostgreSQL-dialect one. Then, one interface after the other, in one process and on one
thread (so each operation's latency is one round trip, not a queue):

- ``googlesql``: the official Python client on the GoogleSQL database;
- ``postgresql``: the official Python client on the PostgreSQL database (``$1`` parameters);
- ``pgadapter``: psycopg 3 through PGAdapter (a child process, Java) on the PostgreSQL database,
  every statement a server-side prepared one.

Then the Go runtime's clients do the same on the same server, databases and PGAdapter
(``goworker/cmd/spanload-pg-bench``, built here: cloud.google.com/go/spanner on the two databases,
pgx through PGAdapter with prepared statements), unless ``--no-go``.

Each runs ``--warm`` operations unmeasured (PGAdapter's JIT warms up), then ``--ops`` point reads
(``SELECT v FROM kv WHERE k = ?``, a single-use read) and ``--ops`` writes (``UPDATE kv SET v = ?
WHERE k = ?`` in a read-write transaction: an inline begin and a commit). It prints p50 and p99 of
each, this process's CPU per operation (the client's), PGAdapter's CPU per operation (from
/proc), and PGAdapter's share: the p50 of the pgadapter interface minus that of postgresql (the
same database and server, without the proxy), as a share of the pgadapter round trip. That share is
*derived* (the difference of two clients' medians, not PGAdapter's own timing): the two paths also
differ in their client library (libpq under psycopg against the Python client with gRPC).

    .venv/bin/python bench/pg_interface.py [--ops 2000] [--warm 500] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from google.cloud.spanner_v1 import param_types

from spanload.model.config import ClientConfig, Target
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas
from spanload.spanner.local_server import start_local_spanner
from spanload.spanner.pgadapter import start_pgadapter, warm_up
from spanload.workers.interp.pg_driver import PgDatabase

ROWS = 1000
GSQL_DDL = ["CREATE TABLE kv (k INT64 NOT NULL, v STRING(64)) PRIMARY KEY (k)"]
PG_DDL = ["CREATE TABLE kv (k bigint NOT NULL, v varchar(64), PRIMARY KEY (k))"]
TICKS = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float:
    """User + system CPU of process ``pid`` so far (its threads included), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(op: Callable[[int], Any], n: int, pgadapter_pid: int | None) -> dict[str, float]:
    """``n`` calls of ``op(i)``: p50/p99 in ms, this process's CPU ms per op, PGAdapter's."""
    latencies: list[float] = []
    cpu0, pga0 = time.process_time(), proc_cpu_s(pgadapter_pid) if pgadapter_pid else 0.0
    for i in range(n):
        began = time.perf_counter()
        op(i)
        latencies.append((time.perf_counter() - began) * 1000)
    cpu = (time.process_time() - cpu0) * 1000 / n
    out = {"p50_ms": pct(latencies, 50), "p99_ms": pct(latencies, 99), "mean_ms": statistics.fmean(latencies)}
    out["client_cpu_ms"] = cpu
    if pgadapter_pid:
        out["pgadapter_cpu_ms"] = (proc_cpu_s(pgadapter_pid) - pga0) * 1000 / n
    return out


def official_ops(database: Any, pg: bool) -> tuple[Callable[[int], Any], Callable[[int], Any]]:
    """(point read, write) with the official client; ``pg``: $1 parameters named p1, p2."""
    read_sql = "SELECT v FROM kv WHERE k = $1" if pg else "SELECT v FROM kv WHERE k = @k"
    write_sql = "UPDATE kv SET v = $1 WHERE k = $2" if pg else "UPDATE kv SET v = @v WHERE k = @k"
    k, v = ("p1", "p1") if pg else ("k", "v")
    wk = "p2" if pg else "k"

    def read(i: int) -> Any:
        with database.snapshot() as snap:
            return list(snap.execute_sql(read_sql, params={k: i % ROWS}, param_types={k: param_types.INT64}))

    def write(i: int) -> Any:
        params = {v: f"v{i}", wk: i % ROWS}
        types = {v: param_types.STRING, wk: param_types.INT64}
        return database.run_in_transaction(lambda tx: tx.execute_update(write_sql, params=params, param_types=types))

    return read, write


def pgadapter_ops(db: PgDatabase) -> tuple[Callable[[int], Any], Callable[[int], Any]]:
    """(point read, write) with psycopg through PGAdapter, prepared, as the pgadapter interface runs them."""

    def read(i: int) -> Any:
        with db.snapshot() as snap:
            return snap.execute_sql("SELECT v FROM kv WHERE k = $1", {"p1": i % ROWS}).rows

    def write(i: int) -> Any:
        return db.run_in_transaction(
            lambda tx: tx.execute_update("UPDATE kv SET v = $1 WHERE k = $2", {"p1": f"v{i}", "p2": i % ROWS})
        )

    return read, write


GOWORKER = Path(__file__).resolve().parents[1] / "goworker"


def go_figures(server: str, gsql: Target, pg: Target, pgadapter: str, ops: int, warm: int) -> dict[str, Any]:
    """The Go runtime's figures (spanload-pg-bench's JSON), built into a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "spanload-pg-bench"
        subprocess.run(["go", "build", "-o", str(exe), "./cmd/spanload-pg-bench"], cwd=GOWORKER, check=True)
        out = subprocess.run(
            [
                str(exe),
                f"-emulator={server}",
                f"-project={gsql.project}",
                f"-instance={gsql.instance}",
                f"-gsql-db={gsql.database}",
                f"-pg-db={pg.database}",
                f"-pgadapter={pgadapter}",
                f"-ops={ops}",
                f"-warm={warm}",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
    figures: dict[str, Any] = json.loads(out.stdout)
    return figures


def load(database: Any) -> None:
    with database.batch() as batch:
        batch.insert_or_update("kv", ("k", "v"), [(i, f"v{i}") for i in range(ROWS)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=2000, help="measured reads, and as many writes, per interface")
    parser.add_argument("--warm", type=int, default=500, help="unmeasured operations first, per interface")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--no-go", action="store_true", help="measure the Python runtime only")
    args = parser.parse_args()

    server = start_local_spanner()
    pgadapter = None
    pg_db: PgDatabase | None = None
    clients: list[Any] = []
    try:
        gsql = Target(emulator_host=server.address, database="bench-gsql")
        pg = Target(emulator_host=server.address, database="bench-pg")
        admin = spanner_client.make_client(gsql, server.address)
        clients.append(admin)
        schemas.ensure_ddl(admin, gsql, GSQL_DDL, "bench")
        schemas.ensure_ddl(admin, pg, PG_DDL, "bench", postgresql=True)
        connections = {}
        for name, target in (("googlesql", gsql), ("postgresql", pg)):
            conn = spanner_client.connect(target, ClientConfig(), None)
            clients.append(conn.client)
            load(conn.database)
            connections[name] = conn.database
        pgadapter = start_pgadapter(pg, server.address)
        first = warm_up(pgadapter.address, "bench-pg")
        print(f"PGAdapter {pgadapter.version} up; its first connection took {first:.1f} s")
        pg_db = PgDatabase(pgadapter.address, "bench-pg")
        interfaces = {
            "googlesql": official_ops(connections["googlesql"], pg=False),
            "postgresql": official_ops(connections["postgresql"], pg=True),
            "pgadapter": pgadapter_ops(pg_db),
        }
        results: dict[str, dict[str, dict[str, float]]] = {}
        for name, (read, write) in interfaces.items():
            pid = pgadapter.process.pid if name == "pgadapter" else None
            for i in range(args.warm):
                read(i)
                write(i)
            results[name] = {"read": measure(read, args.ops, pid), "write": measure(write, args.ops, pid)}
        go: dict[str, Any] = {}
        if not args.no_go:
            go = go_figures(server.address, gsql, pg, pgadapter.address, args.ops, args.warm)
    finally:
        if pg_db is not None:
            pg_db.close()
        if pgadapter is not None:
            pgadapter.stop()
        for c in clients:
            c.close()
        server.stop()

    print(f"\n{args.ops} point reads and {args.ops} writes per interface, one thread, local Spanner (ms)")
    print(f"{'runtime':<8}{'interface':<12}{'op':<7}{'p50':>8}{'p99':>8}{'client CPU/op':>15}{'PGAdapter CPU/op':>18}")
    runtimes = {"python": results, **({"go": go} if go else {})}
    for runtime, figures in runtimes.items():
        for name, ops in figures.items():
            if "error" in ops:  # the Go runtime could not run this interface here
                print(f"{runtime:<8}{name:<12}could not run: {ops['error']}")
                continue
            for op, r in ops.items():
                pga = f"{r['pgadapter_cpu_ms']:.3f}" if "pgadapter_cpu_ms" in r else "-"
                print(
                    f"{runtime:<8}{name:<12}{op:<7}{r['p50_ms']:>8.3f}{r['p99_ms']:>8.3f}"
                    f"{r['client_cpu_ms']:>15.3f}{pga:>18}"
                )
    print("\nPGAdapter's share (derived: pgadapter p50 - postgresql p50, over the pgadapter p50):")
    shares: dict[str, dict[str, dict[str, float]]] = {}
    for runtime, figures in runtimes.items():
        if "error" in figures["pgadapter"] or "error" in figures["postgresql"]:
            continue
        for op in ("read", "write"):
            via, direct = figures["pgadapter"][op]["p50_ms"], figures["postgresql"][op]["p50_ms"]
            added = via - direct
            shares.setdefault(runtime, {})[op] = {"added_ms": added, "share": added / via}
            print(f"  {runtime:<7}{op:<6} {added:+.3f} ms at p50 = {added / via:+.1%} of the round trip")
    print("  the report (Java client vs JDBC through PGAdapter, Cloud Spanner): under 0.1 ms at p50, 2.7 %")
    if args.json:
        args.json.write_text(json.dumps({"results": runtimes, "pgadapter_share": shares}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
