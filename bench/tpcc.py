"""Benchmark TPC-C (issue 15) against the local Spanner: tpmC and each type's p50/p99 for 1 and 2
worker processes.

    .venv/bin/python bench/tpcc.py [--duration 30s] [--processes 1,2] [--terminals 8]
                                   [--items 100000] [--customers 3000]

Starts its own local Spanner (in memory) and runs the ``tpcc-1w`` preset (1 warehouse, closed
loop, no keying or think times) once per process count, each for ``--duration``, through the real
engine (Supervisor, worker processes, the official Python client). The first run loads the
database through the preload phase (the spec's initial population unless ``--items`` /
``--customers`` scale it down) and prints how long that took; later runs find it loaded and go on
from the state the previous one left. The terminals are split between the processes, so every
round drives the same concurrency; what changes is how many client processes (GILs) carry it.

For each round it prints tpmC, transactions/s, the client CPU per transaction, and per type its
count, share of the mix, client p50/p99, server p50 (server-timing) and retries per transaction,
then the consistency verdicts. The machine is shared: read ratios rather than absolute rates.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from _common import fmt_rate
from preload import Sink, run  # the same sink and runner as the load-phase bench

from spanload.cli.flags import parse_duration
from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.presets import get_preset
from spanload.model.tpcc import TxType
from tests.localspanner.server_process import start_server

DATABASE = "tpcc-bench"


def config_for(address: str, processes: int, terminals: int, seconds: float, items: int, customers: int) -> RunConfig:
    return get_preset("tpcc-1w").config.merged(
        {
            "target": {"kind": "local", "emulator_host": address, "database": DATABASE},
            "duration_s": seconds,
            "warmup_s": min(get_preset("tpcc-1w").config.warmup_s, seconds / 3),  # a short bench keeps most of it
            "processes": processes,
            "tpcc": {"terminals": terminals, "items": items, "customers_per_district": customers},
        }
    )


def round_of(address: str, processes: int, args: argparse.Namespace) -> None:
    config = config_for(address, processes, args.terminals, args.duration, args.items, args.customers)
    sink: Sink = asyncio.run(run(config, f"tpcc-{processes}p"))
    loaded = sink.event(EventKind.PRELOAD_FINISHED)
    if loaded is not None:
        print(f"  load: {loaded['loaded']} units in {loaded['seconds']} s ({loaded['rows_per_s']} units/s)")
    summary = sink.summary
    assert summary is not None and summary.tpcc is not None
    tpcc = summary.tpcc
    transactions = sum(t.completed for t in tpcc.by_type.values())
    cpu = sum(w.cpu_s or 0.0 for w in summary.workers)
    per_tx = cpu * 1000 / transactions if transactions else float("nan")
    print(
        f"{processes} process(es), {args.terminals} terminals, {summary.duration_s:.0f} s: tpmC {fmt_rate(tpcc.tpmc)}, "
        f"{transactions / summary.duration_s:.1f} tx/s, client CPU {per_tx:.1f} ms/tx"
    )
    print(
        f"  {'type':<13}{'done':>7}{'share':>8}{'client p50':>12}{'client p99':>12}{'server p50':>12}{'retries/tx':>12}"
    )
    for kind in TxType:
        f = tpcc.by_type[kind.value]
        client, server = summary.latency.get(kind.op), summary.latency.get(kind.op_server)
        retries = f.retries / f.completed if f.completed else 0.0
        print(
            f"  {kind.value:<13}{f.completed:>7,}{f.share_pct:>7.1f}%"
            f"{_ms(client.p50 if client else None):>12}{_ms(client.p99 if client else None):>12}"
            f"{_ms(server.p50 if server else None):>12}{retries:>12.2f}"
        )
    verdicts = ", ".join(f"{k} {v}" for k, v in sorted(tpcc.consistency.items())) or tpcc.consistency_error
    print(f"  consistency: {verdicts}; run {sink.state[0].value}")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=parse_duration, default=30.0, help="each round (default 30s)")
    parser.add_argument("--processes", default="1,2", help="worker process counts, in order")
    parser.add_argument("--terminals", type=int, default=8)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--customers", type=int, default=3000, help="customers per district")
    args = parser.parse_args()
    os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")
    with tempfile.TemporaryDirectory(prefix="spanload-tpcc-bench-") as tmp:
        server = start_server(Path(tmp) / "server.log")
        try:
            print(
                f"local Spanner pid {server.pid} at {server.address}; {os.cpu_count()} cores; "
                f"1 warehouse, {args.items:,} items, {args.customers:,} customers a district"
            )
            for processes in (int(p) for p in args.processes.split(",")):
                round_of(server.address, processes, args)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
