"""Achieved / target throughput of the updater's open-loop pacer against the local server.

Runs the real worker process (google-cloud-spanner client, single-use commits of one row) at
1, 10, 100 and 500 tx/s and prints achieved/target. Poisson arrivals are random: the column
``poisson sd`` is the relative standard deviation that randomness alone gives over the run
(1/sqrt(expected count)), so a deviation within it is the schedule, not the pacer.

    .venv/bin/python bench/pacing.py [--duration 20] [--rates 1,10,100,500] [--emulator-host H:P]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from spanload.config import Settings
from spanload.runs.config import RunConfig
from spanload.runs.headless import PrintingSink
from spanload.runs.samples import Gauge, Op
from spanload.runs.supervisor import Supervisor
from spanload.spanner.local_server import start_local_spanner

WARMUP_INTERVALS = 2  # intervals left out: process start, first connections


async def measure(address: str, rate: float, duration_s: float) -> tuple[float, float, float, int, float]:
    """(achieved tx/s over the steady intervals, p50 ms, p99 ms from intended start, errors, max behind)."""
    config = RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": "bench-pacing"},
            "duration_s": duration_s + WARMUP_INTERVALS,
            "updater": {"transactions_per_second": rate, "mutations_per_transaction": 1, "parallelism": 16},
            "watcher": {"enabled": False},
        }
    )
    sink = PrintingSink(sys.stderr, quiet=True)
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(f"pacing-{rate:g}", config)
    await supervisor.wait_finished(f"pacing-{rate:g}")
    steady = [s for s in sink.samples[WARMUP_INTERVALS:] if s.interval_s >= 0.5 * config.report_interval_s]
    txns = sum(s.gauges.get(Gauge.UPDATER_TPS, 0.0) * s.interval_s for s in steady)
    seconds = sum(s.interval_s for s in steady)
    summary = sink.summary
    assert summary is not None
    intended = summary.latency.get(Op.UPDATER_TXN_INTENDED)
    behind = max((s.gauges.get(Gauge.UPDATER_BEHIND, 0.0) for s in steady), default=0.0)
    return (
        txns / seconds if seconds else 0.0,
        intended.p50 or 0.0 if intended else 0.0,
        intended.p99 or 0.0 if intended else 0.0,
        summary.totals.errors,
        behind,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured per rate")
    parser.add_argument("--rates", default="1,10,100,500")
    parser.add_argument("--emulator-host", help="a running local Spanner; default: start one in memory")
    args = parser.parse_args()
    server = None
    address = args.emulator_host
    if address is None:
        server = start_local_spanner("127.0.0.1", 0, None, Settings().local_spanner_binary)
        address = server.address
    try:
        print(f"pacing against the local Spanner at {address}, {args.duration:g} s per rate, 1 worker process")
        print(
            f"{'target tx/s':>12}{'achieved':>12}{'ratio':>9}{'poisson sd':>12}{'p50 ms*':>9}{'p99 ms*':>9}"
            f"{'behind':>8}{'errors':>8}"
        )
        for rate in (float(r) for r in args.rates.split(",")):
            achieved, p50, p99, errors, behind = asyncio.run(measure(address, rate, args.duration))
            sd = 1 / math.sqrt(rate * args.duration)
            print(
                f"{rate:>12g}{achieved:>12.2f}{achieved / rate:>9.3f}{sd:>11.1%}{p50:>9.2f}{p99:>9.2f}"
                f"{behind:>8.0f}{errors:>8}",
                flush=True,
            )
        print("* latency from the intended start (includes any queueing behind a busy pool)")
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
