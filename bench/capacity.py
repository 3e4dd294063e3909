"""The write benchmark's capacity search with Python and with Go workers on this machine.

Each runtime gets its own fresh database on one local Spanner (in memory) and the same search:
single-row writes to the Tweet table, from ``--start`` up by ``--step`` a step, each step held
``--min-step`` s (up to ``--max-step`` s until stable), breaking on p99 from the intended start above
``--p99-ms``, errors above 1 % or achieved under 90 % of target. It prints each search's step
table (cli/render.py's) and the knee, and who the limit was: the client (a worker at a core), the
machine (the workers and the local Spanner using its cores between them) or the database.

    .venv/bin/python bench/capacity.py [--processes 2] [--start 400] [--step 400] [--max 12000]
        [--latency-model none|production_like] [--runtimes python,go] [--emulator-host H:P]
        [--percentile p99 --p99-ms 100] [--bisect 0] [--back-off 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import uuid

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from _common import local_spanner

from spanload.cli.render import capacity_table
from spanload.engine.supervisor import Supervisor
from spanload.model.capacity import CapacityResult
from spanload.model.config import RunConfig
from spanload.model.settings import Settings
from tests.engine.test_profiles import Sink


async def _search(config: RunConfig) -> CapacityResult | None:
    sink = Sink()
    supervisor = Supervisor(Settings(), sink)
    run_id = f"bench-capacity-{config.runtime.value}"
    await supervisor.start(run_id, config)
    await supervisor.wait_finished(run_id)
    await supervisor.shutdown()
    if sink.summary is None:
        print(f"{config.runtime.value}: no summary ({sink.states[-1]})")
        return None
    return sink.summary.capacity


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--start", type=float, default=400)
    parser.add_argument("--step", type=float, default=400)
    parser.add_argument("--max", type=float, default=12_000)
    parser.add_argument("--min-step", type=float, default=5)
    parser.add_argument("--max-step", type=float, default=15)
    parser.add_argument("--p99-ms", type=float, default=100, help="the latency limit (of --percentile)")
    parser.add_argument("--percentile", default="p99", choices=["p50", "p95", "p99"])
    parser.add_argument("--bisect", type=int, default=0)
    parser.add_argument("--back-off", type=float, default=0, help="seconds at the last good rate before a probe")
    parser.add_argument("--latency-model", default="none")
    parser.add_argument("--runtimes", default="python,go")
    parser.add_argument("--emulator-host")
    args = parser.parse_args()
    with local_spanner(args.emulator_host) as address:
        for runtime in args.runtimes.split(","):
            config = RunConfig.model_validate(
                {
                    "workload": "write_benchmark",
                    "runtime": runtime,
                    "processes": args.processes,
                    "target": {
                        "kind": "local",
                        "emulator_host": address,
                        "database": f"bench-capacity-{uuid.uuid4().hex[:8]}",
                        "latency_model": args.latency_model,
                    },
                    "updater": {"mutations_per_transaction": 1, "parallelism": 64},
                    "watcher": {"enabled": False},
                    "capacity": {
                        "start_rate": args.start,
                        "step": args.step,
                        "max_rate": args.max,
                        "min_step_s": args.min_step,
                        "max_step_s": args.max_step,
                        "latency_ms": args.p99_ms,
                        "percentile": args.percentile,
                        "bisect": args.bisect,
                        "back_off_s": args.back_off,
                    },
                }
            )
            result = asyncio.run(_search(config))
            print(f"== {runtime} workers x {args.processes}, latency model {args.latency_model}")
            if result is not None:
                print("\n".join(capacity_table(result)))
            print(flush=True)


if __name__ == "__main__":
    main()
