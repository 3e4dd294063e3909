"""Achieved / target throughput of the updater's open-loop pacer against the local server.

Runs the real worker process (google-cloud-spanner client, single-use commits of one row) at
1, 10, 100 and 500 tx/s and prints achieved/target. Poisson arrivals are random: the column
``poisson sd`` is the relative standard deviation that randomness alone gives over the run
(1/sqrt(expected count)), so a deviation within it is the schedule, not the pacer; ``/scheduled``
divides by the arrivals the schedule really produced: the pacer's own accuracy.

    .venv/bin/python bench/pacing.py [--duration 20] [--rates 1,10,100,500] [--emulator-host H:P]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
from dataclasses import dataclass

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from spanload.cli.render import PrintingSink
from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.samples import Gauge, Op
from spanload.model.settings import Settings
from spanload.spanner.local_server import start_local_spanner

WARMUP_INTERVALS = 2  # intervals left out: process start, first connections


@dataclass
class Figures:
    achieved: float  # tx/s over the steady intervals
    scheduled: float  # arrivals/s the Poisson schedule produced over the same intervals
    p50_ms: float  # from the intended start
    p99_ms: float
    errors: int
    behind: float  # the most due-but-not-started transactions at an interval's end


async def measure(address: str, rate: float, duration_s: float) -> Figures:
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
    seconds = sum(s.interval_s for s in steady) or 1.0

    def per_second(gauge: Gauge) -> float:
        return sum(s.gauges.get(gauge, 0.0) * s.interval_s for s in steady) / seconds

    summary = sink.summary
    assert summary is not None
    intended = summary.latency.get(Op.UPDATER_TXN_INTENDED)
    return Figures(
        achieved=per_second(Gauge.UPDATER_TPS),
        scheduled=per_second(Gauge.UPDATER_SCHEDULED_TPS),
        p50_ms=(intended.p50 or 0.0) if intended else 0.0,
        p99_ms=(intended.p99 or 0.0) if intended else 0.0,
        errors=summary.totals.errors,
        behind=max((s.gauges.get(Gauge.UPDATER_BEHIND, 0.0) for s in steady), default=0.0),
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
            f"{'target tx/s':>12}{'achieved':>10}{'/target':>9}{'poisson sd':>12}{'scheduled':>11}"
            f"{'/scheduled':>11}{'p50 ms*':>9}{'p99 ms*':>10}{'behind':>8}{'errors':>8}"
        )
        for rate in (float(r) for r in args.rates.split(",")):
            f = asyncio.run(measure(address, rate, args.duration))
            sd = 1 / math.sqrt(rate * args.duration)
            delivered = f.achieved / f.scheduled if f.scheduled else 0.0
            print(
                f"{rate:>12g}{f.achieved:>10.2f}{f.achieved / rate:>9.3f}{sd:>12.1%}{f.scheduled:>11.2f}"
                f"{delivered:>11.3f}{f.p50_ms:>9.2f}{f.p99_ms:>10.2f}{f.behind:>8.0f}{f.errors:>8}",
                flush=True,
            )
        print("* latency from the intended start (includes any queueing behind a busy pool)")
        print("/target moves with the Poisson draw (see poisson sd); /scheduled is what the pacer delivered")
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
