"""Client CPU per operation and throughput of the two worker runtimes, python and go.

The same workloads run with each runtime through the real engine (supervisor, worker processes,
reports), first against a do-nothing Spanner server (``spanload-null-spanner``, built here on
demand from localspanner/cmd, which answers every call at once), so that only the client's cost is
measured, then against the local Spanner:

- ``commit``: single-use ``batch()`` commits of 1..2 rows at the same rate for both runtimes;
- ``read``: the reader's point query at the same rate for both runtimes;
- ``commit-max`` and ``read-max`` (do-nothing server only): asked at ``--max-rate`` (5,000/s) with
  64 in flight, to see what one worker process sustains, and its CPU per operation when busy.

Every workload here is a run of workloads/change_watcher.yaml (the engine's start check turns the
report config into it), so both runtimes run their definition interpreter. The interpreters were
measured against the hand-written updater they replaced before it was deleted (README: 0.987-1.018
for Go, goal <= 1.10).

Client CPU per operation is the worker's own rusage from begin to its last report (the summary's
``workers`` list). achieved/scheduled is operations done over the Poisson arrivals scheduled.
The do-nothing server's own CPU per operation is printed too, to show it is not the bottleneck.
Goals: go CPU/op at most 0.2 of python's for commits and reads; one go worker at least 5,000
commits/s at the requested rate with achieved/scheduled at least 0.99. ``--profile DIR`` writes a
pprof CPU profile of every Go worker there (``spanload-worker-go --cpuprofile``) and prints its top.

``--only builtin --baseline FILE`` (do-nothing server): the write benchmark's hot path as it ships,
``workloads/write_benchmark.yaml``'s ``write`` (single-use commits upserting 1..2 Tweets rows; its
reads and watch off), asked ``--max-rate`` with 64 in flight, against the same operation of another
version of the file (e.g. ``git show main:workloads/write_benchmark.yaml``), alternating ``--rounds``
times in each runtime: this tree's client CPU per commit over the baseline's (goal <= 1.10).

    .venv/bin/python bench/worker_runtime.py [--seconds 10] [--rate 800] [--max-rate 5000]
        [--go-worker PATH] [--only null|local|builtin] [--baseline FILE] [--rounds 3] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")

from _common import REPO, verdict

from spanload.engine.runtimes import worker_command
from spanload.engine.supervisor import Supervisor
from spanload.model.builtin_convert import BUILTIN_WORKLOADS
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.protocol import Begin, Start, Stop, StopWriters, encode
from spanload.model.samples import Gauge, Sample, Summary
from spanload.model.settings import Settings
from spanload.model.workload_file import parse_definition
from spanload.spanner.local_server import start_local_spanner

NULL_BINARY = REPO / ".tools" / "spanload-null-spanner"
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
RUNTIMES = (WorkerRuntime.PYTHON, WorkerRuntime.GO)
CPU_GOAL = 0.2
MAX_RATE_GOAL = 5000.0
ACHIEVED_GOAL = 0.99
INTERP_GOAL = 1.10
INTERP_IN_FLIGHT = 64


class Sink:
    def __init__(self) -> None:
        self.summary: Summary | None = None
        self.reason: str | None = None

    def on_sample(self, run_id: str, sample: Sample) -> None:
        pass

    def on_state(self, run_id: str, state: object, reason: str | None) -> None:
        self.reason = reason or self.reason

    def on_config_change(self, run_id: str, patch: object, who: str) -> None:
        pass

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.summary = summary


@dataclass
class Result:
    target: str
    workload: str
    runtime: WorkerRuntime
    rate: float
    achieved: float
    achieved_over_scheduled: float
    cpu_ms_per_op: float
    server_cpu_ms_per_op: float | None


def build_null_server() -> Path:
    NULL_BINARY.parent.mkdir(exist_ok=True)
    subprocess.run(
        ["go", "build", "-o", str(NULL_BINARY), "./cmd/spanload-null-spanner"], cwd=REPO / "localspanner", check=True
    )
    return NULL_BINARY


class NullServer:
    """The do-nothing server as a child process on a free port; stopped by its pid."""

    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen([str(binary), "--port", "0"], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if " listening on " not in line:
            self.stop()
            raise RuntimeError(f"the do-nothing server did not start: {line!r}")
        self.address = line.rsplit(" ", 1)[1].strip()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S


def workload_config(address: str, workload: str, rate: float, seconds: float, runtime: WorkerRuntime) -> RunConfig:
    reads = workload.startswith("read")
    parallelism = 64 if "-max" in workload else 8
    return RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": f"bench-rt-{workload}"},
            "runtime": runtime.value,
            "duration_s": seconds,
            "updater": {
                "enabled": not reads,
                "transactions_per_second": rate,
                "mutations_per_transaction": 1,
                "parallelism": parallelism,
            },
            "watcher": {"enabled": False},
            "reader": {"enabled": reads, "reads_per_second": rate, "concurrency": parallelism, "query": "point"},
        }
    )


async def run_one(config: RunConfig, settings: Settings, server_pid: int | None) -> tuple[Summary, float | None]:
    sink = Sink()
    supervisor = Supervisor(settings, sink)
    run_id = f"bench-{config.runtime.value}"
    await supervisor.start(run_id, config)
    cpu0 = process_cpu_s(server_pid) if server_pid else None
    await asyncio.wait_for(supervisor.wait_finished(run_id), (config.duration_s or 0) + 120)
    server_cpu = process_cpu_s(server_pid) - cpu0 if server_pid and cpu0 is not None else None
    if sink.summary is None or not sink.summary.workers:
        raise RuntimeError(f"the {config.runtime.value} run gave no summary: {sink.reason}")
    return sink.summary, server_cpu


def profiled(settings: Settings, profile_dir: Path | None, name: str) -> tuple[Settings, Path | None]:
    """Settings whose Go worker writes a CPU profile to ``profile_dir/name.pprof`` (through a wrapper
    script that adds ``--cpuprofile``), and that file; the settings as they are without a dir."""
    if profile_dir is None:
        return settings, None
    binary = worker_command(WorkerRuntime.GO, settings.go_worker_binary)[0]
    out = profile_dir / f"{name}.pprof"
    wrapper = profile_dir / f"{name}.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{binary}" --cpuprofile "{out}" "$@"\n')
    wrapper.chmod(0o755)
    return settings.model_copy(update={"go_worker_binary": wrapper}), out


def pprof_top(profile: Path, lines: int = 14) -> list[str]:
    """The top of ``go tool pprof``: where the Go worker's CPU went, by cumulative share."""
    binary = Path(os.path.realpath(profile.with_suffix(".sh").read_text().split('"')[1]))
    top = subprocess.run(
        ["go", "tool", "pprof", "-top", "-cum", "-nodecount", str(lines), str(binary), str(profile)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO / "goworker",
    )
    return top.stdout.splitlines() or [top.stderr.strip()]


def measure(
    target: str,
    address: str,
    workload: str,
    rate: float,
    seconds: float,
    settings: Settings,
    server_pid: int | None,
    profile_dir: Path | None = None,
) -> list[Result]:
    out = []
    for runtime in RUNTIMES:
        config = workload_config(address, workload, rate, seconds, runtime)
        run_settings, profile = (
            profiled(settings, profile_dir, f"go-{target}-{workload}")
            if runtime is WorkerRuntime.GO
            else (settings, None)
        )
        summary, server_cpu = asyncio.run(run_one(config, run_settings, server_pid))
        worker = summary.workers[0]
        done_key, scheduled_key = (
            (Gauge.READER_RPS, Gauge.READER_SCHEDULED_RPS)
            if workload.startswith("read")
            else (Gauge.UPDATER_TPS, Gauge.UPDATER_SCHEDULED_TPS)
        )
        achieved = summary.rates.get(done_key, 0.0)
        scheduled = summary.rates.get(scheduled_key, 0.0)
        ops = worker.operations
        result = Result(
            target=target,
            workload=workload,
            runtime=runtime,
            rate=rate,
            achieved=achieved,
            achieved_over_scheduled=achieved / scheduled if scheduled else 0.0,
            cpu_ms_per_op=worker.cpu_ms_per_op or 0.0,
            server_cpu_ms_per_op=server_cpu * 1000 / ops if server_cpu is not None and ops else None,
        )
        print(
            f"  {target:<6} {workload:<10} {runtime.value:<6} asked {rate:>7,.0f}/s  achieved {achieved:>8,.1f}/s  "
            f"a/s {result.achieved_over_scheduled:.3f}  client {result.cpu_ms_per_op:.3f} ms CPU/op"
            + (f"  server {result.server_cpu_ms_per_op:.3f}" if result.server_cpu_ms_per_op is not None else ""),
            flush=True,
        )
        if profile is not None:
            print("\n".join(f"      {line}" for line in pprof_top(profile)), flush=True)
        out.append(result)
    return out


def table(results: list[Result]) -> list[str]:
    lines = [
        "| target | workload | runtime | asked/s | achieved/s | achieved/scheduled | client CPU ms/op "
        "| server CPU ms/op |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        server = "—" if r.server_cpu_ms_per_op is None else f"{r.server_cpu_ms_per_op:.3f}"
        lines.append(
            f"| {r.target} | {r.workload} | {r.runtime.value} | {r.rate:,.0f} | {r.achieved:,.1f} | "
            f"{r.achieved_over_scheduled:.3f} | {r.cpu_ms_per_op:.3f} | {server} |"
        )
    return lines


def ratios(results: list[Result]) -> list[str]:
    lines = []
    by = {(r.target, r.workload, r.runtime): r for r in results}
    for target, workload in dict.fromkeys((r.target, r.workload) for r in results):
        py, go = by.get((target, workload, WorkerRuntime.PYTHON)), by.get((target, workload, WorkerRuntime.GO))
        if py is None or go is None or not py.cpu_ms_per_op or not py.achieved:
            continue
        cpu = go.cpu_ms_per_op / py.cpu_ms_per_op
        speed = go.achieved / py.achieved
        line = f"{target} {workload}: go/python client CPU per op {cpu:.3f}, throughput {speed:.2f}x"
        if target == "null":
            line += f"  ({verdict(cpu <= CPU_GOAL)} <= {CPU_GOAL})"
        if target == "null" and workload == "commit-max":
            ok = go.achieved >= MAX_RATE_GOAL * 0.99 and go.achieved_over_scheduled >= ACHIEVED_GOAL
            line += (
                f"  go: {go.achieved:,.0f}/s, achieved/scheduled {go.achieved_over_scheduled:.3f} "
                f"({verdict(ok)} >= {MAX_RATE_GOAL:,.0f}/s at >= {ACHIEVED_GOAL})"
            )
        lines.append(line)
    return lines


def drive_worker(command: list[str], config: RunConfig, seconds: float) -> dict[str, Any]:
    """Plays the supervisor for one worker (either runtime): start, begin, ``seconds`` of load, the
    two-phase stop. Returns the summed counters, the final report's CPU seconds and the measured span."""
    worker = subprocess.Popen(
        [*command, "--worker", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert worker.stdin is not None and worker.stdout is not None
    stdin, stdout = worker.stdin, worker.stdout

    def send(message: Any) -> None:
        stdin.write(encode(message))
        stdin.flush()

    def until(kind: str, counters: dict[str, int]) -> dict[str, Any]:
        while line := stdout.readline():
            message = json.loads(line)
            for name, n in (message.get("counters") or {}).items():
                counters[name] = counters.get(name, 0) + n
            if message["type"] == "error":
                raise RuntimeError(message["message"])
            if message["type"] == kind:
                return dict(message)
        raise RuntimeError(f"the Go worker ended before {kind}")

    counters: dict[str, int] = {}
    try:
        until("hello", counters)
        send(
            Start(run_id="bench-interp", worker=0, workers=1, config=config, emulator_host=config.target.emulator_host)
        )
        until("ready", counters)
        began = time.time()
        send(Begin(started_at=began))
        deadline = began + seconds
        while time.time() < deadline:
            until("report", counters)
        send(StopWriters())
        until("writers_stopped", counters)
        send(Stop())
        final = until("report", counters)
        while not final.get("final"):
            final = until("report", counters)
        until("stopped", counters)
        return {"counters": counters, "cpu_s": final["cpu_s"], "span_s": time.time() - began}
    finally:
        stdin.close()
        worker.wait(timeout=30)


def builtin_config(address: str, file: Path, runtime: WorkerRuntime, rate: float) -> RunConfig:
    """``file`` (a version of workloads/write_benchmark.yaml) running its ``write`` alone at ``rate``
    with INTERP_IN_FLIGHT in flight: no point reads, no watch."""
    definition = parse_definition(file.read_text(), file.name).model_dump(mode="json", exclude_unset=True)
    definition["watch"] = None
    return RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": "bench-rt-builtin"},
            "runtime": runtime.value,
            "workload": "definition",
            "definition": definition,
            "knobs": {"transactions_per_second": rate, "parallelism": INTERP_IN_FLIGHT, "max_mutations": 2},
            "operations": {"point_read": {"enabled": False}},
        }
    )


def builtin_vs_baseline(
    address: str, settings: Settings, baseline: Path, rate: float, seconds: float, rounds: int
) -> list[str]:
    """Client CPU per commit of this tree's write_benchmark.yaml ``write`` against ``baseline``'s, in
    each runtime, alternating baseline and this tree ``rounds`` times."""
    files = {"baseline": baseline, "this": BUILTIN_WORKLOADS / "write_benchmark.yaml"}
    lines = []
    for runtime in RUNTIMES:
        command = worker_command(runtime, settings.go_worker_binary)
        figures: dict[str, list[float]] = {name: [] for name in files}
        for round_ in range(rounds):
            for name, file in files.items():
                result = drive_worker(command, builtin_config(address, file, runtime, rate), seconds)
                ops = result["counters"].get("op.write.done", 0)
                cpu_ms = result["cpu_s"] * 1000 / max(ops, 1)
                figures[name].append(cpu_ms)
                errors = result["counters"].get("errors", 0)
                lines.append(
                    f"  {runtime.value:<6} round {round_ + 1} {name:<8} {ops / result['span_s']:>8,.1f} commits/s  "
                    f"client CPU {cpu_ms:.4f} ms/commit  errors {errors}"
                )
                print(lines[-1], flush=True)
        old, new = statistics.median(figures["baseline"]), statistics.median(figures["this"])
        lines.append(
            f"{runtime.value}: write_benchmark.yaml write, this/baseline client CPU per commit (medians of {rounds}): "
            f"{new:.4f} / {old:.4f} ms = {new / old:.3f} ({verdict(new / old <= INTERP_GOAL)} <= {INTERP_GOAL})"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each run")
    parser.add_argument("--rate", type=float, default=800.0, help="the rate both runtimes are asked for")
    parser.add_argument("--max-rate", type=float, default=MAX_RATE_GOAL, help="the rate of the commit-max runs")
    parser.add_argument("--go-worker", type=Path, help="spanload-worker-go (default: beside this Python)")
    parser.add_argument(
        "--only", choices=["null", "local", "builtin"], help="one target (or the builtin comparison) only"
    )
    parser.add_argument("--baseline", type=Path, help="builtin: the write_benchmark.yaml to compare with (e.g. main's)")
    parser.add_argument("--rounds", type=int, default=3, help="builtin: alternating rounds of each file")
    parser.add_argument("--profile", type=Path, metavar="DIR", help="write a CPU profile of each Go worker here")
    args = parser.parse_args()
    if args.profile:
        args.profile = args.profile.resolve()
        args.profile.mkdir(parents=True, exist_ok=True)
    settings = Settings(go_worker_binary=args.go_worker) if args.go_worker else Settings()
    results: list[Result] = []
    builtin_lines: list[str] = []
    if args.only == "builtin":
        if args.baseline is None:
            parser.error("--only builtin needs --baseline FILE (e.g. git show main:workloads/write_benchmark.yaml)")
        server = NullServer(build_null_server())
        try:
            builtin_lines = builtin_vs_baseline(
                server.address, settings, args.baseline, args.max_rate, args.seconds, args.rounds
            )
        finally:
            server.stop()
    if args.only in (None, "null"):
        server = NullServer(build_null_server())
        try:
            pid = server.process.pid
            plan: tuple[tuple[str, float], ...] = (
                ("commit", args.rate),
                ("read", args.rate),
                ("commit-max", args.max_rate),
                ("read-max", args.max_rate),
            )
            for workload, rate in plan:
                results += measure("null", server.address, workload, rate, args.seconds, settings, pid, args.profile)
        finally:
            server.stop()
    if args.only in (None, "local"):
        local = start_local_spanner("127.0.0.1", 0, None, settings.local_spanner_binary)
        try:
            pid = local.process.pid
            for workload in ("commit", "read"):
                results += measure(
                    "local", local.address, workload, args.rate, args.seconds, settings, pid, args.profile
                )
        finally:
            local.stop()
    if results:
        print()
        print("\n".join(table(results)))
        print()
        print("\n".join(ratios(results)))
    if builtin_lines:
        print()
        print("\n".join(builtin_lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
