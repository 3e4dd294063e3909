"""Soak: the `high` preset for 10 minutes against a real `spanload serve`, watching for leaks.

Starts `spanload serve` (with its local Spanner) on a free port and a temporary data directory,
starts a run of the preset, and every minute prints the resident memory (RSS) of serve, of the
run's worker process(es) and of the local Spanner. At the end it prints each one's growth per hour
(least-squares slope over the samples after the first minute's warm-up), the run's throughput and
its reconciliation.

With ``--profile DIR`` the local Spanner serves pprof (``--pprof-addr``): every sample also splits its
RSS into anonymous memory (Go heap and SQLite's own allocations) and file pages (the memory-mapped
database file), reads the Go heap from runtime.MemStats, adds the database files' size on disk, and
saves a heap profile to DIR; at the end it prints the growth of the Go heap between the profile taken
after the warm-up and the last one (``go tool pprof -top -inuse_space -base``).

With ``--tracemalloc DIR`` serve traces its Python allocations (bench/tracemalloc_site) and dumps a
snapshot to DIR at every sample; at the end it prints what grew between the first snapshot after the
warm-up and the last one taken while a run ran, by the allocating line and its callers, and
``heap.tsv``: at each snapshot, glibc's arenas (bytes in use, free but kept) and SQLite's own
allocations, the memory outside Python objects. ``--interval`` sets the run's report interval
(default the preset's, 1 s): a shorter one accelerates whatever grows per interval. ``--runs N``
makes N runs of ``--duration``/N back to back on the same serve: what an ended run leaves behind.

    .venv/bin/python bench/soak.py [--duration 10m] [--every 1m] [--preset high] [--interval 0.2s]
        [--runs 4] [--profile DIR] [--tracemalloc DIR]

Serve's memory (issue 30), ``--preset light --runs 4 --duration 8m --every 30s --interval 0.1s
--tracemalloc DIR`` on this 2-core machine, least squares after the first minute | over the second
half: before the fixes +417.5 | +323.1 MB/h, RSS up ~20 MB at each run's end (the ended runs'
aggregators and ledgers); after them +112.2 | +64.5 MB/h, ~+8, +3, +2 MB at the three ends and flat
through the fourth run (glibc keeping what the end's peak freed). Within one run (``--preset light
--duration 8m --interval 0.1s``, and ``high`` at 0.2 s; before the fixes) serve's traced heap stayed
at 1-2 MB and RSS grew +38.9 | +22.4 and +45.3 | +26.9 MB/h, flat over the last 3 minutes of each
(README: "Soak: serve's memory").
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (puts the repository root on sys.path)
import httpx

from spanload.cli.flags import parse_duration
from spanload.spanner.local_server import BINARY_NAME, find_binary
from tests.helpers import REPO, ServeProcess, children_of, free_port, wait_for

MB = 1024 * 1024
WARMUP_S = 60.0
TRACEMALLOC_SITE = Path(__file__).resolve().parent / "tracemalloc_site"


def status_bytes(pid: int, field: str) -> int | None:
    """A size field of /proc/PID/status (VmRSS, RssAnon, RssFile) in bytes (None once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def rss_bytes(pid: int) -> int | None:
    """Resident set size of a process, from /proc (None once it is gone)."""
    return status_bytes(pid, "VmRSS")


def pprof_wrapper(profile_dir: Path) -> tuple[Path, str]:
    """A script that starts the local Spanner with ``--pprof-addr`` on a free port, and that address."""
    binary = find_binary()
    address = f"127.0.0.1:{free_port()}"
    wrapper = profile_dir / BINARY_NAME
    wrapper.write_text(f'#!/bin/sh\nexec "{binary}" --pprof-addr {address} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, address


def go_heap(pprof: httpx.Client, save_to: Path) -> dict[str, int]:
    """Save a heap profile of the local Spanner to ``save_to`` and return its runtime.MemStats figures
    (HeapInuse, HeapSys, Sys...) from the text form of the same endpoint."""
    save_to.write_bytes(pprof.get("/debug/pprof/heap").content)
    text = pprof.get("/debug/pprof/heap", params={"debug": 1}).text
    return {m[1]: int(m[2]) for m in re.finditer(r"^# (\w+) = (\d+)$", text, re.MULTILINE)}


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def pprof_growth(base: Path, last: Path, lines: int = 15) -> list[str]:
    """``go tool pprof -top -inuse_space -base``: what the Go heap gained between two profiles."""
    binary = os.path.realpath(find_binary())
    command = ["go", "tool", "pprof", "-top", "-inuse_space", "-nodecount", str(lines), "-base", str(base)]
    top = subprocess.run(
        [*command, binary, str(last)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO / "localspanner",
    )
    return top.stdout.splitlines() or [top.stderr.strip()]


def tracemalloc_growth(
    snapshots: list[Path], since: float, until: float, lines: int = 12, frames: int = 4
) -> list[str]:
    """What serve's Python heap gained between the first snapshot taken after ``since`` (a wall-clock
    time: the run's start and warm-up) and the last one taken before ``until`` (the last sample that
    saw the run running: later ones hold the end of the run, its ledgers and summary): the biggest
    differences by traceback (the allocating line first, then its callers)."""
    steady = [p for p in snapshots if since <= p.stat().st_mtime <= until] or snapshots
    if len(steady) < 2:
        return ["too few snapshots"]
    first, last = (tracemalloc.Snapshot.load(str(p)) for p in (steady[0], steady[-1]))
    keep = [tracemalloc.Filter(False, tracemalloc.__file__)]
    first, last = first.filter_traces(keep), last.filter_traces(keep)
    total = sum(s.size for s in last.statistics("filename")) - sum(s.size for s in first.statistics("filename"))
    out = [f"from {steady[0].name} to {steady[-1].name}: {total / MB:+.2f} MB traced"]
    for diff in last.compare_to(first, "traceback")[:lines]:
        out.append(f"{diff.size_diff / MB:+8.2f} MB {diff.count_diff:+8d} blocks")
        out.extend(f"      {frame.filename}:{frame.lineno}" for frame in list(diff.traceback)[-frames:][::-1])
    return out


def heap_growth(directory: Path, since: float, until: float) -> list[str]:
    """``heap.tsv`` (bench/tracemalloc_site: serve's traced heap, glibc's arenas, SQLite's allocations)
    in MB at each snapshot taken between ``since`` and ``until``, and each column's growth per hour."""
    path = directory / "heap.tsv"
    if not path.exists():
        return ["no heap.tsv"]
    header, *rows = (line.split("\t") for line in path.read_text().splitlines())
    taken = {float(p.stem.split("-")[1]): p.stat().st_mtime for p in directory.glob("serve-*.snap")}
    steady = [[float(v) for v in row] for row in rows if since <= taken.get(float(row[0]), 0.0) <= until]
    out = ["".join(f"{name:>10}" for name in header)]
    out += [f"{row[0]:10.0f}" + "".join(f"{v / MB:10.1f}" for v in row[1:]) for row in steady]
    slopes = [slope_per_hour([(row[0], row[i]) for row in steady]) for i in range(1, len(header))]
    out.append(f"{'MB/h':>10}" + "".join("       n/a" if v is None else f"{v / MB:+10.1f}" for v in slopes))
    return out


def start_run(api: httpx.Client, preset: str, overrides: dict[str, float]) -> str | None:
    """Start a run of ``preset`` and wait until it runs; its id (None, said, if serve refused it)."""
    created = api.post("/api/runs", json={"preset": preset, "name": "soak", "overrides": overrides})
    if created.status_code != 201:
        print(f"soak: the run was refused: {created.text}", file=sys.stderr)
        return None
    run_id: str = created.json()["id"]
    wait_for(lambda: True if api.get(f"/api/runs/{run_id}").json()["status"] == "running" else None, 300, "running")
    return run_id


def ended(api: httpx.Client, run_id: str) -> dict[str, Any]:
    """The run once it has finished or failed."""
    run: dict[str, Any] = wait_for(
        lambda: r if (r := api.get(f"/api/runs/{run_id}").json())["status"] in ("finished", "failed") else None,
        600,
        "the run to end",
    )
    return run


def worker_pids(serve_pid: int) -> list[int]:
    """serve's children that are worker processes (python -m spanload.workers... or the Go worker)."""
    found = []
    for pid in sorted(children_of(serve_pid)):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "spanload.workers" in cmdline or "spanload-worker-go" in cmdline:
            found.append(pid)
    return found


def slope_per_hour(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of (seconds, bytes) points, in bytes per hour."""
    if len(points) < 2:
        return None
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return None
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / var * 3600


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=parse_duration, default=600.0, help="how long the run lasts (default 10m)")
    parser.add_argument("--every", type=parse_duration, default=60.0, help="how often to sample RSS (default 1m)")
    parser.add_argument("--preset", default="high")
    parser.add_argument("--interval", type=parse_duration, help="the run's report interval (default the preset's)")
    parser.add_argument("--runs", type=int, default=1, help="that many runs back to back, --duration in all")
    parser.add_argument("--profile", type=Path, help="save the local Spanner's heap profiles here and break RSS down")
    parser.add_argument("--tracemalloc", type=Path, help="save serve's tracemalloc snapshots here and diff them")
    args = parser.parse_args()

    series: dict[str, list[tuple[float, float]]] = {"serve": [], "serve anon": [], "workers": [], "local Spanner": []}
    env: dict[str, str] = {}
    pprof: httpx.Client | None = None
    profiles: list[tuple[float, Path]] = []
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
        wrapper, pprof_address = pprof_wrapper(args.profile)
        env["SPANLOAD_LOCAL_SPANNER_BINARY"] = str(wrapper)
        pprof = httpx.Client(base_url=f"http://{pprof_address}", timeout=60)
    if args.tracemalloc is not None:
        args.tracemalloc.mkdir(parents=True, exist_ok=True)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TRACEMALLOC_SITE), os.environ.get("PYTHONPATH")]))
        env["SPANLOAD_TRACEMALLOC_DIR"] = str(args.tracemalloc)
        env["SPANLOAD_TRACEMALLOC_EVERY_S"] = str(args.every)
    overrides: dict[str, float] = {"duration_s": args.duration / args.runs}
    if args.interval is not None:
        overrides["report_interval_s"] = args.interval
    # patient: on a loaded machine serve's imports alone took a minute
    with (
        tempfile.TemporaryDirectory(prefix="spanload-soak-") as tmp,
        ServeProcess(Path(tmp), env=env, ready_timeout_s=900) as serve,
    ):
        assert serve.process is not None
        api = httpx.Client(base_url=serve.url, timeout=60)
        spanner_pid = serve.health["local_spanner"]["pid"]
        run_id = start_run(api, args.preset, overrides)
        if run_id is None:
            return 1
        finals: list[dict[str, Any]] = []
        began = time.monotonic()
        steady_from = time.time() + WARMUP_S
        running_until = time.time()
        if args.tracemalloc is not None:
            (args.tracemalloc / "start").touch()
        interval = f", report interval {args.interval:g} s" if args.interval is not None else ""
        runs = f"{args.runs} runs of {overrides['duration_s']:.0f} s" if args.runs > 1 else f"{args.duration:.0f} s"
        print(f"preset {args.preset}, {runs}{interval}, RSS every {args.every:.0f} s", flush=True)
        header = f"{'t (s)':>6} {'serve MB':>9} {'its anon':>8} {'workers MB':>11} {'spanner MB':>11}"
        header += f" {'tx/s':>7} {'samples':>8}"
        if pprof is not None:
            header += f" {'anon MB':>8} {'file MB':>8} {'heap MB':>8} {'go sys MB':>9} {'disk MB':>8}"
        print(header, flush=True)
        while True:
            run = api.get(f"/api/runs/{run_id}").json()
            t = time.monotonic() - began
            pids = {
                "serve": [serve.process.pid],
                "workers": worker_pids(serve.process.pid),
                "local Spanner": [spanner_pid],
            }
            sizes = {name: sum(rss_bytes(p) or 0 for p in group) for name, group in pids.items()}
            if run["status"] not in ("running", "paused"):
                finals.append(ended(api, run_id))
                if len(finals) == args.runs:
                    break
                run_id = start_run(api, args.preset, overrides)  # the next, on the same serve
                if run_id is None:
                    return 1
                continue
            running_until = time.time()
            serve_anon = status_bytes(serve.process.pid, "RssAnon") or 0  # its own heap, not mapped files
            for name, size in (*sizes.items(), ("serve anon", serve_anon)):
                series[name].append((t, float(size)))
            tps = (run.get("headline") or {}).get("achieved_tps")
            mb = {name: size / MB for name, size in sizes.items()}
            line = (
                f"{t:6.0f} {mb['serve']:9.1f} {serve_anon / MB:8.1f} {mb['workers']:11.1f} {mb['local Spanner']:11.1f} "
                f"{tps if tps is not None else float('nan'):7.1f} {run['sample_count']:8d}"
            )
            if pprof is not None:
                assert args.profile is not None
                profile = args.profile / f"heap-{t:04.0f}.pb.gz"
                mem = go_heap(pprof, profile)
                profiles.append((t, profile))
                anon, file = (status_bytes(spanner_pid, f) or 0 for f in ("RssAnon", "RssFile"))
                disk = dir_bytes(Path(tmp) / "local-spanner")
                line += (
                    f" {anon / MB:8.1f} {file / MB:8.1f} {mem.get('HeapInuse', 0) / MB:8.1f} "
                    f"{mem.get('Sys', 0) / MB:9.1f} {disk / MB:8.1f}"
                )
            print(line, flush=True)
            time.sleep(max(0.0, args.every - (time.monotonic() - began - t)))

    for final in finals:
        print(f"run {final['status']}{': ' + final['failure_reason'] if final['failure_reason'] else ''}")
        summary = final.get("summary") or {}
        totals = summary.get("totals", {})
        print(
            f"  transactions {totals.get('transactions')}, mutations {totals.get('mutations')}, "
            f"received changes {totals.get('received_changes')}, errors {summary.get('errors_by_code')}"
        )
        if summary.get("reconciliation"):
            print(f"  reconciliation ok={summary['reconciliation']['ok']}: {summary['reconciliation']['detail']}")
    print("growth per hour (least squares: after the first minute's warm-up | over the second half):")
    for name, points in series.items():
        steady = [(t, v) for t, v in points if t >= WARMUP_S] or points
        late = [(t, v) for t, v in points if t >= args.duration / 2]
        first, last = (points[0][1], points[-1][1]) if points else (0.0, 0.0)
        growth = " | ".join(
            "n/a" if (slope := slope_per_hour(part)) is None else f"{slope / MB:+.1f} MB/h" for part in (steady, late)
        )
        print(f"  {name:>13}: {first / MB:.1f} MB -> {last / MB:.1f} MB, {growth}")
    steady_profiles = [p for t, p in profiles if t >= WARMUP_S]
    if len(steady_profiles) >= 2:
        print(f"Go heap growth from {steady_profiles[0].name} to {steady_profiles[-1].name}:")
        print("\n".join(f"  {line}" for line in pprof_growth(steady_profiles[0], steady_profiles[-1])))
    if args.tracemalloc is not None:
        print("serve's Python heap growth (tracemalloc):")
        snapshots = sorted(args.tracemalloc.glob("serve-*.snap"))
        print("\n".join(f"  {line}" for line in tracemalloc_growth(snapshots, steady_from, running_until)))
        print("serve's heap outside Python objects (MB; in_use and free: glibc's arenas, sqlite: SQLite's own):")
        print("\n".join(f"  {line}" for line in heap_growth(args.tracemalloc, steady_from, running_until)))
    return 0 if all(final["status"] == "finished" for final in finals) else 1


if __name__ == "__main__":
    sys.exit(main())
