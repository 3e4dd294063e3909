"""The same saturating workload with local placement and with Ray placement (issue 13).

Two worker processes write single-use commits against one local Spanner at a target far above
what they can do, so throughput is what they achieve. ``local``: two child processes of this one.
``ray``: one Ray actor per worker on a two-node Ray cluster started here on loopback (head and a
second raylet, one CPU each, tests/ray_cluster.py), each running the same worker process on its
node and relaying the protocol lines through actor calls.

Printed for each placement, over the steady intervals (the first ``WARMUP_INTERVALS`` dropped):
throughput (commits/s), and the time from the end of an interval to its aggregated sample
reaching the sink (the supervisor's ``on_sample``), median and p90. Rounds alternate local and
Ray to spread the shared machine's drift over both. Goal: Ray/local throughput >= 0.95.

    .venv/bin/python bench/ray_placement.py [--seconds 15] [--rounds 2] [--tps 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from _common import fmt_rate, median_ms, verdict  # also puts the repository root on sys.path

from spanload.engine.supervisor import Supervisor
from spanload.engine.transports.ray_transport import DRIVER
from spanload.model.config import RunConfig
from spanload.model.samples import Gauge, Sample
from spanload.model.settings import Settings
from spanload.spanner.local_server import start_local_spanner
from tests.engine.test_supervisor import Recorder
from tests.ray_cluster import RayCluster

WORKERS = 2
WARMUP_INTERVALS = 3
GOAL = 0.95


class TimedRecorder(Recorder):
    """Keeps, for every sample, how long after its interval's end it reached the sink."""

    def __init__(self) -> None:
        super().__init__()
        self.delays: dict[int, float] = {}

    def on_sample(self, run_id: str, sample: Sample) -> None:
        interval_end = sample.t - sample.elapsed_s + (sample.seq + 1) * sample.interval_s
        self.delays[sample.seq] = time.time() - interval_end
        super().on_sample(run_id, sample)


def _config(address: str, tps: float, seconds: float, placement: dict[str, object]) -> RunConfig:
    return RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": "bench-ray"},
            "processes": WORKERS,
            "duration_s": seconds,
            "updater": {"transactions_per_second": tps, "mutations_per_transaction": 1, "parallelism": 8},
            "watcher": {"enabled": False},
            "placement": placement,
        }
    )


async def _run(config: RunConfig, run_id: str) -> tuple[float, list[float], list[str | None]]:
    sink = TimedRecorder()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    nodes = supervisor.worker_nodes(run_id)
    await supervisor.wait_finished(run_id)
    if sink.states[-1][1] is not None:
        raise SystemExit(f"{run_id} failed: {sink.states[-1][1]}")
    steady = [s for s in sink.samples if WARMUP_INTERVALS <= s.seq < len(sink.samples) - 2]
    tps = sum(s.gauges.get(Gauge.UPDATER_TPS, 0.0) * s.interval_s for s in steady) / sum(s.interval_s for s in steady)
    return tps, [sink.delays[s.seq] for s in steady], nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tps", type=float, default=5000.0, help="target rate, above what the workers can do")
    args = parser.parse_args()

    started = time.monotonic()
    cluster = RayCluster().start()
    server = start_local_spanner("127.0.0.1", 0, None, None)
    results: dict[str, list[tuple[float, list[float]]]] = {"local": [], "ray": []}
    try:
        cluster.wait_ready()
        print(f"two-node Ray cluster at {cluster.address} up in {time.monotonic() - started:.0f} s")
        placements = {"local": {"kind": "local"}, "ray": {"kind": "ray", "address": cluster.address}}
        for round_ in range(args.rounds):
            for name, placement in placements.items():
                config = _config(server.address, args.tps, args.seconds, placement)
                tps, delays, nodes = asyncio.run(_run(config, f"{name}-{round_}"))
                results[name].append((tps, delays))
                where = ", ".join(n[:8] if n else "local" for n in nodes)
                print(
                    f"round {round_ + 1} {name:>5}: {fmt_rate(tps):>6} commits/s, interval end -> sample "
                    f"median {median_ms(delays):.1f} ms  [{where}]"
                )
    finally:
        DRIVER.shutdown()
        server.stop()
        cluster.stop()

    print()
    summary: dict[str, float] = {}
    for name, rounds in results.items():
        tps = statistics.mean(t for t, _ in rounds)
        delays = sorted(d for _, ds in rounds for d in ds)
        p90 = delays[int(0.9 * (len(delays) - 1))] * 1000
        summary[name] = tps
        print(
            f"{name:>5}: {fmt_rate(tps):>6} commits/s (mean of {len(rounds)}), interval end -> aggregated sample "
            f"median {median_ms(delays):.1f} ms, p90 {p90:.1f} ms"
        )
    ratio = summary["ray"] / summary["local"]
    print(f"Ray/local throughput {ratio:.3f} (goal >= {GOAL}): {verdict(ratio >= GOAL)}")


if __name__ == "__main__":
    main()
