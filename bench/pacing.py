"""The updater's open-loop pacer: achieved / target throughput, and the schedule's arrival counts.

Throughput (the default): runs the real worker process (google-cloud-spanner client, single-use
commits of one row) at 1, 10, 100 and 500 tx/s and prints achieved/target. Poisson arrivals are
random: the column ``poisson sd`` is the relative standard deviation that randomness alone gives
over the run (1/sqrt(expected count)), so a deviation within it is the schedule, not the pacer;
``/scheduled`` divides by the arrivals the schedule really produced: the pacer's own accuracy.

Counts (``--counts``, issue 23's doubt: a 15 s run at 5 tx/s scheduled 49 arrivals, 75 expected):
the arrivals of many short runs, set against the Poisson distribution they must follow, from each
layer that could lose some: each runtime's schedule drawn alone, each runtime's pacer on the real
clock (many side by side, each counting the arrivals whose intended start falls within its own
window), and ``--engine-runs`` whole runs of the ``light`` preset through the engine with real
worker processes of both runtimes.

    .venv/bin/python bench/pacing.py [--duration 20] [--rates 1,10,100,500] [--emulator-host H:P]
    .venv/bin/python bench/pacing.py --counts 400 [--rate 5] [--seconds 15] [--engine-runs 8]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from _common import local_spanner

from spanload.cli.render import PrintingSink
from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.presets import get_preset
from spanload.model.samples import Gauge, Op
from spanload.model.settings import Settings
from spanload.workers.pacing import Pacer, PoissonSchedule

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


GOWORKER = Path(__file__).resolve().parent.parent / "goworker"
COUNT_GRACE_S = 2.0  # counted pacers run this long past their window: what fell due in it has run


def python_schedule_counts(runs: int, rate: float, seconds: float) -> list[int]:
    return [len(PoissonSchedule(rate, 0.0, random.Random()).pop_due(seconds)) for _ in range(runs)]


def python_pacer_counts(runs: int, rate: float, seconds: float) -> list[int]:
    """``runs`` real pacers side by side: each counts the arrivals it ran whose intended start lies
    within ``seconds`` of its own start (starting thousands of threads takes a while)."""
    counts = [0] * runs
    lock = threading.Lock()

    def counter(i: int, started: float) -> Callable[[float, float], None]:
        def operation(intended: float, actual: float) -> None:
            if intended - started <= seconds:
                with lock:
                    counts[i] += 1

        return operation

    pacers = []
    for i in range(runs):
        started = time.perf_counter()  # start() restarts the schedule from its clock, a moment later
        pacer = Pacer(f"count-{i}", counter(i, started), rate, parallelism=4)
        pacers.append(pacer)
        pacer.start()
    time.sleep(seconds + COUNT_GRACE_S)  # the last pacer's window, and time to run its last arrivals
    stoppers = [threading.Thread(target=p.stop) for p in pacers]
    for t in stoppers:
        t.start()
    for t in stoppers:
        t.join()
    return counts


def go_counts(mode: str, runs: int, rate: float, seconds: float) -> list[int]:
    """The Go worker's schedule or pacer, through goworker/cmd/spanload-pacing-counts."""
    out = subprocess.run(
        [
            "go",
            "run",
            "./cmd/spanload-pacing-counts",
            f"-mode={mode}",
            f"-runs={runs}",
            f"-rate={rate}",
            f"-seconds={seconds}",
        ],
        cwd=GOWORKER,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [int(line) for line in out.split()]


async def engine_count(address: str, runtime: WorkerRuntime, seconds: float, index: int) -> int:
    """Arrivals one ``light`` run scheduled in its ``seconds`` of measured phase (its samples' scheduled tx/s)."""
    config = get_preset("light").config.model_copy(
        update={
            "target": RunConfig().target.model_copy(
                update={"emulator_host": address, "database": f"bench-counts-{index}"}
            ),
            "duration_s": seconds,
            "runtime": runtime,
        }
    )
    sink = PrintingSink(sys.stderr, quiet=True)
    supervisor = Supervisor(Settings(), sink)
    run_id = f"counts-{runtime.value}-{index}"
    await supervisor.start(run_id, config)
    await supervisor.wait_finished(run_id)
    # the measured phase's intervals by number (their elapsed_s is when the report was made, a little
    # late under load): the stop's short last interval, and any stopping tail, are not the window
    intervals = round(seconds / config.report_interval_s)
    window = [s for s in sink.samples if s.seq < intervals]
    return round(sum(s.gauges.get(Gauge.UPDATER_SCHEDULED_TPS, 0.0) * s.interval_s for s in window))


def engine_counts(address: str, runtime: WorkerRuntime, runs: int, seconds: float, at_once: int = 2) -> list[int]:
    counts: list[int] = []
    for first in range(0, runs, at_once):
        batch = range(first, min(runs, first + at_once))

        async def some(batch: range = batch) -> list[int]:
            return list(await asyncio.gather(*(engine_count(address, runtime, seconds, i) for i in batch)))

        counts += asyncio.run(some())
    return counts


def poisson_cdf(k: int, mean: float) -> float:
    """P(X <= k) for X ~ Poisson(mean); 1 past mean + 40 sd."""
    if k < 0:
        return 0.0
    if k > mean + 40 * math.sqrt(mean) + 10:
        return 1.0
    return sum(math.exp(i * math.log(mean) - mean - math.lgamma(i + 1)) for i in range(k + 1))


def print_distribution(name: str, counts: list[int], mean: float, low: int) -> None:
    """One line of figures and a row of bands one standard deviation wide, observed vs expected."""
    sd = math.sqrt(mean)
    edges = [math.floor(mean + z * sd) for z in (-3, -2, -1, 0, 1, 2, 3)]  # band i: (edges[i-1], edges[i]]
    bands = [-1, *edges, 10**9]
    observed = [sum(1 for c in counts if lo < c <= hi) for lo, hi in itertools.pairwise(bands)]
    expected = [len(counts) * (poisson_cdf(hi, mean) - poisson_cdf(lo, mean)) for lo, hi in itertools.pairwise(bands)]
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)
    at_or_below = sum(1 for c in counts if c <= low)
    print(
        f"{name:<26}{len(counts):>6}{statistics.fmean(counts):>8.2f}{statistics.pstdev(counts):>7.2f}"
        f"{min(counts):>6}{max(counts):>6}{at_or_below:>7}{len(counts) * poisson_cdf(low, mean):>9.2f}{chi2:>8.1f}"
    )
    print(" " * 26 + "  ".join(f"{o}/{e:.1f}" for o, e in zip(observed, expected, strict=True)), flush=True)


def counts_main(args: argparse.Namespace) -> int:
    rate, seconds, runs = args.rate, args.seconds, args.counts
    mean = rate * seconds
    low = args.low if args.low is not None else math.floor(mean - 3 * math.sqrt(mean))
    print(f"arrival counts of {seconds:g} s runs at {rate:g}/s: Poisson mean {mean:g}, sd {math.sqrt(mean):.2f}")
    print(
        f"{'source':<26}{'runs':>6}{'mean':>8}{'sd':>7}{'min':>6}{'max':>6}"
        f"{'<=' + str(low):>7}{'expected':>9}{'chi2(7)':>8}"
    )
    print(f"{'':<26}bands, observed/expected: <=-3 sd, -3..-2, -2..-1, -1..0, 0..1, 1..2, 2..3, >3 sd")
    print_distribution("python schedule", python_schedule_counts(runs, rate, seconds), mean, low)
    print_distribution("go schedule", go_counts("schedule", runs, rate, seconds), mean, low)
    print_distribution("python pacer, real clock", python_pacer_counts(runs, rate, seconds), mean, low)
    print_distribution("go pacer, real clock", go_counts("pacer", runs, rate, seconds), mean, low)
    if args.engine_runs:
        with local_spanner(args.emulator_host) as address:
            for runtime in (WorkerRuntime.PYTHON, WorkerRuntime.GO):
                counts = engine_counts(address, runtime, args.engine_runs, seconds)
                print_distribution(f"engine, light, {runtime.value}", counts, mean, low)
                print(" " * 26 + "counts: " + " ".join(str(c) for c in sorted(counts)), flush=True)
    print("chi2 over the 8 bands has 7 degrees of freedom: above 18.5 happens by chance 1 time in 100")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured per rate")
    parser.add_argument("--rates", default="1,10,100,500")
    parser.add_argument("--emulator-host", help="a running local Spanner; default: start one in memory")
    parser.add_argument("--counts", type=int, metavar="RUNS", help="arrival counts of this many short runs instead")
    parser.add_argument("--rate", type=float, default=5.0, help="arrivals/s of the counted runs (light: 5)")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of a counted run")
    parser.add_argument("--engine-runs", type=int, default=0, help="also this many light runs per runtime")
    parser.add_argument("--low", type=int, help="count the runs at or below this many arrivals (default: mean - 3 sd)")
    args = parser.parse_args()
    if args.counts:
        return counts_main(args)
    with local_spanner(args.emulator_host) as address:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
