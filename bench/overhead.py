"""The load generator's client CPU per operation, divided by that of a bare loop of the same calls.

- bare: a child process runs ``database.batch().insert_or_update`` of 1..2 rows (the updater's
  mix at m = 1) in a closed loop on 8 threads and measures its CPU time per commit;
- engine, saturated: a real worker process (pacer, ledger, HDR recording, reports) with 8
  threads and a target above the bare loop's throughput, so its 8 threads are always busy like
  the bare loop's: the like-for-like comparison, and the headline ratio;
- engine, open loop at half that rate, against the bare loop paced at the same rate with a
  plain sleep: with fewer commits in flight the client and gRPC wake once per commit instead
  of once per several, which costs CPU per commit whoever drives the calls.

The worker's CPU comes from /proc over its steady intervals. Goal: ratio 1.10 or less.

The machine is shared, so those ratios swing by +-20 % from run to run. A steadier figure comes
last: the engine's own bookkeeping per commit (pacer claim, ledger, row building, HDR recording,
counters, server-timing), measured by running the real updater against a database stand-in whose
``batch()`` sends nothing, as a share of the bare loop's CPU per commit. It runs on one pool
thread: with no RPC to release the GIL, 8 threads would measure GIL hand-offs between busy
threads (4-5 context switches and ~70-100 us per commit on 2 cores, pacer or not), which the
real engine, whose threads spend most of each commit waiting on gRPC, does not do.

    .venv/bin/python bench/overhead.py [--ops 3000] [--seconds 15] [--emulator-host H:P]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from _common import local_spanner

from spanload.cli.render import PrintingSink
from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.protocol import Counter
from spanload.model.samples import Sample
from spanload.model.settings import Settings
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas

THREADS = 8
WARMUP_INTERVALS = 3
DATABASE = "bench-overhead"
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _config(address: str, rate: float = 1.0) -> RunConfig:
    return RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": DATABASE},
            "updater": {"transactions_per_second": rate, "mutations_per_transaction": 1, "parallelism": THREADS},
            "watcher": {"enabled": False},
        }
    )


def bare(address: str, ops: int, rate: float) -> dict[str, float]:
    """The bare loop (run in its own process): CPU ms per commit and commits/s.

    ``rate`` > 0 paces it with evenly spaced starts and a plain sleep (the least a paced loop
    can do); 0 runs it flat out."""
    from google.cloud.spanner_v1 import COMMIT_TIMESTAMP

    config = _config(address)
    admin = spanner_client.make_client(config.target, address)
    schemas.ensure_schema(admin, config.target, config.schema_)
    conn = spanner_client.connect(config.target, config.client, address)
    spec = schemas.spec(config.schema_)
    database = conn.database
    counter = iter(range(ops))
    lock = threading.Lock()
    start = time.perf_counter()

    def loop() -> None:
        rng = random.Random()
        while True:
            with lock:
                n = next(counter, None)
                if n is None:
                    return
            if rate > 0:
                wait = start + n / rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
            rows = [
                (rng.randrange(100_000), *spec.payload(rng, 0), 1, "bare", COMMIT_TIMESTAMP)
                for _ in range(rng.randint(1, 2))
            ]
            with database.batch() as batch:
                batch.insert_or_update(spec.table, spec.write_columns, rows)

    threads = [threading.Thread(target=loop) for _ in range(THREADS)]
    start = time.perf_counter()
    cpu0, wall0 = time.process_time(), start
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {"cpu_per_op_ms": cpu / ops * 1000, "ops_per_s": ops / wall}


class _NoRpcBatch:
    """A stand-in for ``database.batch()`` that sends nothing: only the engine's own work is left."""

    def __enter__(self) -> _NoRpcBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def insert_or_update(self, table: str, columns: object, rows: object) -> None:
        return None


class _NoRpcDatabase:
    def batch(self, **_: object) -> _NoRpcBatch:
        return _NoRpcBatch()


def bookkeeping(seconds: float) -> dict[str, float]:
    """The engine's own CPU per commit (run in its own process): the interpreter's write of
    workloads/change_watcher.yaml (draw, pacer, ledger, recorder) on one pool thread, paced far
    above what it can do, with no RPC."""
    from spanload.model.builtin_convert import as_definition
    from spanload.workers.interp.runner import Interpreter
    from spanload.workers.stats import WorkerStats

    config = as_definition(_config("unused", 100_000.0))  # the most RunConfig allows; more than one thread does
    config = config.model_copy(update={"knobs": {**config.knobs, "parallelism": 1}})
    assert config.definition is not None
    stats = WorkerStats()
    database = _NoRpcDatabase()
    interp = Interpreter(lambda: database, config.definition, config, stats, 0, 1, "bookkeeping")
    interp.start()
    time.sleep(0.2)
    stats.take()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    ops = stats.take()[0].get(Counter.TRANSACTIONS, 0)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    interp.stop()
    return {"cpu_per_op_us": cpu / max(ops, 1) * 1e6, "ops_per_s": ops / wall}


def _child(*args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def run_bare(address: str, ops: int, rate: float = 0.0) -> dict[str, float]:
    return _child("--bare", "--emulator-host", address, "--ops", str(ops), "--rate", str(rate))


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S  # utime + stime


async def engine(address: str, rate: float, seconds: float) -> dict[str, float]:
    marks: dict[str, float] = {}
    config = _config(address, rate)

    class Sink(PrintingSink):
        def on_sample(self, run_id: str, sample: Sample) -> None:
            super().on_sample(run_id, sample)
            if sample.seq == WARMUP_INTERVALS:
                marks["cpu0"], marks["txn0"] = process_cpu_s(pid), sample.totals.transactions
            elif sample.seq == WARMUP_INTERVALS + int(seconds):
                marks["cpu1"], marks["txn1"] = process_cpu_s(pid), sample.totals.transactions

    sink = Sink(sys.stderr, quiet=True)
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start("overhead", config)
    pid = supervisor.worker_pids("overhead")[0]
    while "cpu1" not in marks:
        await asyncio.sleep(0.1)
    await supervisor.stop("overhead")
    ops = marks["txn1"] - marks["txn0"]
    return {"cpu_per_op_ms": (marks["cpu1"] - marks["cpu0"]) / ops * 1000, "ops_per_s": ops / int(seconds)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=3000, help="commits of the bare loop")
    parser.add_argument("--seconds", type=float, default=10.0, help="steady seconds of each engine run")
    parser.add_argument("--rounds", type=int, default=3, help="alternating bare/engine rounds")
    parser.add_argument("--emulator-host", help="a running local Spanner; default: start one in memory")
    parser.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rate", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--bookkeeping", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare:
        print(json.dumps(bare(args.emulator_host, args.ops, args.rate)))
        return 0
    if args.bookkeeping:
        print(json.dumps(bookkeeping(2.0)))
        os._exit(0)  # the updater's pool threads are daemons; skip interpreter teardown
    with local_spanner(args.emulator_host) as address:
        rounds: dict[str, list[dict[str, float]]] = {"bare": [], "engine": [], "paced": [], "open": []}
        for round_no in range(args.rounds):  # alternate, so that load from others hits both alike
            rounds["bare"].append(run_bare(address, args.ops))
            rate = rounds["bare"][-1]["ops_per_s"]
            rounds["engine"].append(asyncio.run(engine(address, round(rate * 2), args.seconds)))
            if round_no == 0:
                rounds["open"].append(asyncio.run(engine(address, round(rate / 2), args.seconds)))
                rounds["paced"].append(run_bare(address, args.ops // 2, round(rate / 2)))
        best = {k: min(v, key=lambda f: f["cpu_per_op_ms"]) for k, v in rounds.items()}
        print(f"client CPU per commit (1..2 rows, single-use batch(), {THREADS} threads, local Spanner at {address})")
        print(f"least CPU per commit of {args.rounds} alternating rounds (the machine is shared)")
        labels = {
            "bare": "bare loop, flat out",
            "engine": "engine, saturated",
            "paced": "bare loop paced at 1/2",
            "open": "engine, open loop at 1/2",
        }
        for key, label in labels.items():
            every = ", ".join(f"{f['cpu_per_op_ms']:.3f}" for f in rounds[key])
            print(
                f"  {label:<26}{best[key]['cpu_per_op_ms']:.3f} ms/op at {best[key]['ops_per_s']:.0f} ops/s  [{every}]"
            )
        print(
            f"  open loop at 1/2, engine / bare: {best['open']['cpu_per_op_ms'] / best['paced']['cpu_per_op_ms']:.2f}"
        )
        ratio = best["engine"]["cpu_per_op_ms"] / best["bare"]["cpu_per_op_ms"]
        print(f"ratio (saturated engine / bare loop): {ratio:.2f}  (goal: 1.10 or less)")
        own = _child("--bookkeeping")
        share = own["cpu_per_op_us"] / 1000 / best["bare"]["cpu_per_op_ms"]
        print(
            f"engine bookkeeping without RPCs: {own['cpu_per_op_us']:.1f} us per commit "
            f"({own['ops_per_s']:.0f} commits/s), {share:.1%} of the bare loop's CPU per commit"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
