"""Benchmark the load phase (issue 14) into the local Spanner; prints rows/s against the goal.

    .venv/bin/python bench/preload.py [--rows 1m[,5m]] [--processes 2] [--runtime python|go] [--hint 20s]

Starts its own local Spanner on a temporary data directory (on disk, so its size can be read) and,
for each size in ``--rows``, runs a real run (Supervisor, worker processes, the official client)
whose load phase fills the Change Watcher table up to that many rows; the measured phase is a
moment with nothing on. For each size it prints the load's wall time and rows/s, the CPU the
workers and the server spent per row (from the workers' own ``preload_progress`` and the server's
/proc/<pid>/stat), the CPU-bound ceiling those imply on this machine's cores, and the server's
resident memory (now and peak) and data directory size. The machine is shared: wall rows/s falls
with other load, CPU per row does not.

``--hint D`` then runs the ``medium`` and ``medium-no-hint`` presets for D each against the loaded
table and prints the watcher's poll time at the server (the server-timing of each poll) and the
ratio, the Change Watcher report's headline (85 s against 0.0085 s at 17 M rows).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import fmt_rate, verdict

from spanload.cli.flags import parse_duration
from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig, TargetKind, WorkerRuntime
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.presets import get_preset
from spanload.model.samples import Op, Sample, Summary
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.localspanner.server_process import cpu_seconds, start_server

GOAL_ROWS_PER_S = 20_000
DATABASE = "preload-bench"
MIB = 1024 * 1024


class Sink:
    """Keeps what a bench run needs: its events, its last state and its summary."""

    def __init__(self) -> None:
        self.events: list[tuple[EventKind, dict[str, object]]] = []
        self.state: tuple[RunState, str | None] = (RunState.PENDING, None)
        self.summary: Summary | None = None

    def on_sample(self, run_id: str, sample: Sample) -> None:
        pass

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        self.state = (state, reason)

    def on_config_change(self, run_id: str, patch: Any, who: str) -> None:
        pass

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.summary = summary

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        self.events.append((kind, changes))

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        pass

    def event(self, kind: EventKind) -> dict[str, object] | None:
        return next((c for k, c in self.events if k is kind), None)


def parse_rows(text: str) -> list[int]:
    units = {"k": 1_000, "m": 1_000_000}
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        out.append(int(float(part[:-1]) * units[part[-1]]) if part[-1] in units else int(part))
    return out


def memory_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MiB: resident now, and its peak."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def disk_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / MIB


async def run(config: RunConfig, run_id: str) -> Sink:
    sink = Sink()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    await supervisor.wait_finished(run_id)
    if sink.state[0] is not RunState.FINISHED:
        raise SystemExit(f"bench run {run_id} ended {sink.state[0].value}: {sink.state[1]}")
    return sink


def load(address: str, rows: int, processes: int, runtime: WorkerRuntime) -> dict[str, object]:
    config = RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": DATABASE},
            "duration_s": 0.2,
            "processes": processes,
            "runtime": runtime.value,
            "preload": {"rows": rows},
            "updater": {"enabled": False},
            "watcher": {"enabled": False},
        }
    )
    sink = asyncio.run(run(config, f"preload-{rows}"))
    finished = sink.event(EventKind.PRELOAD_FINISHED)
    if finished is None:
        skipped = sink.event(EventKind.PRELOAD_SKIPPED)
        raise SystemExit(f"no load happened: {skipped}")
    return finished


def poll_server_ms(address: str, preset: str, seconds: float, runtime: WorkerRuntime) -> tuple[float, float, int]:
    """(p50, mean, polls) of the watcher's poll time at the server over a run of ``preset``."""
    base = get_preset(preset).config
    config = base.model_copy(
        update={
            "target": base.target.model_copy(
                update={"kind": TargetKind.LOCAL, "emulator_host": address, "database": DATABASE}
            ),
            "duration_s": seconds,
            "runtime": runtime,
        }
    )
    sink = asyncio.run(run(config, f"hint-{preset}"))
    assert sink.summary is not None
    poll = sink.summary.latency.get(Op.WATCHER_POLL_SERVER)
    if poll is None or poll.p50 is None or poll.mean is None:
        raise SystemExit(f"{preset}: no server-timed polls")
    return poll.p50, poll.mean, poll.count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="200k", help="table sizes to load up to, in order, e.g. 1m,5m")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--runtime", choices=[r.value for r in WorkerRuntime], default="python")
    parser.add_argument(
        "--hint", type=parse_duration, default=None, help="then run medium and medium-no-hint this long"
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a temporary directory")
    args = parser.parse_args()
    os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")
    runtime = WorkerRuntime(args.runtime)
    cores = os.cpu_count() or 1

    with tempfile.TemporaryDirectory(prefix="spanload-preload-bench-") as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        server = start_server(Path(tmp) / "server.log", data_dir=data_dir)
        try:
            print(f"local Spanner pid {server.pid} at {server.address}, data in {data_dir}; {cores} cores")
            workers = f"{args.processes} {runtime.value} worker processes"
            print(f"load: {workers}, batches of 1,000 rows, 4 commits in flight each")
            print(
                f"{'rows':>11} {'loaded':>10} {'wall s':>8} {'rows/s':>8} {'worker us/row':>14} {'server us/row':>14}"
                f" {'CPU-bound rows/s':>17} {'RSS MiB':>8} {'peak MiB':>9} {'disk MiB':>9}"
            )
            best = 0.0
            for rows in parse_rows(args.rows):
                cpu_before = cpu_seconds(server.pid)
                finished = load(server.address, rows, args.processes, runtime)
                server_cpu = cpu_seconds(server.pid) - cpu_before
                loaded = int(str(finished["loaded"]))
                rate = float(str(finished["rows_per_s"]))
                best = max(best, rate)
                worker_cpu = finished.get("worker_cpu_s")
                worker_us = float(str(worker_cpu)) * 1e6 / loaded if worker_cpu is not None and loaded else None
                server_us = server_cpu * 1e6 / loaded if loaded else float("nan")
                ceiling = cores * 1e6 / (worker_us + server_us) if worker_us is not None else None
                rss, peak = memory_mib(server.pid)
                print(
                    f"{rows:>11,} {loaded:>10,} {float(str(finished['seconds'])):>8.1f} {fmt_rate(rate):>8}"
                    f" {'-' if worker_us is None else f'{worker_us:.1f}':>14} {server_us:>14.1f}"
                    f" {'-' if ceiling is None else fmt_rate(ceiling):>17} {rss:>8.0f} {peak:>9.0f}"
                    f" {disk_mib(data_dir):>9.0f}"
                )
            print(f"best load rate {fmt_rate(best)} rows/s: {verdict(best >= GOAL_ROWS_PER_S)} ({GOAL_ROWS_PER_S:,})")
            if args.hint:
                began = time.monotonic()
                hinted = poll_server_ms(server.address, "medium", args.hint, runtime)
                plain = poll_server_ms(server.address, "medium-no-hint", args.hint, runtime)
                print(
                    "watcher poll at the server: "
                    f"medium p50 {hinted[0]:.2f} ms (mean {hinted[1]:.2f}, {hinted[2]} polls),"
                    f" medium-no-hint p50 {plain[0]:.2f} ms (mean {plain[1]:.2f}, {plain[2]} polls):"
                    f" {plain[0] / hinted[0]:.0f}x at p50, {plain[1] / hinted[1]:.0f}x in the mean"
                    f" ({time.monotonic() - began:.0f} s)"
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
