"""Sample-to-viewer latency of the live websocket at 1, 10 and 50 viewers, and the REST API's
latency, while a run saturates its worker process.

Starts `spanload serve` (with its local Spanner) on a free port and a temporary data directory,
starts the write benchmark at a rate one Python worker process cannot reach (so it is saturated),
then for each viewer count connects that many websockets and records, for every sample message,
the time it arrived minus the end of the interval it describes (``sample.t``): the whole path from
the interval's end through the worker's report, the aggregator, the hub, the store writer's queue
and the socket. Meanwhile one client polls the REST API in a loop and records each request's time.

    .venv/bin/python bench/live_fanout.py [--samples 10] [--tps 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import _common  # noqa: F401  (puts the repository root on sys.path)
import httpx
from websockets.asyncio.client import connect

from tests.helpers import ServeProcess, alive, children_of, wait_for

VIEWER_COUNTS = (1, 10, 50)
REST_PATHS = ("/api/runs/{id}", "/api/runs?limit=50", "/api/runs/{id}/samples?max_points=500", "/api/health")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


async def viewer(url: str, samples: int, latencies: list[float], fanout: list[float], ready: asyncio.Event) -> None:
    async with connect(url, max_size=None) as ws:
        json.loads(await ws.recv())  # the snapshot
        ready.set()
        seen = 0
        while seen < samples:
            message = json.loads(await ws.recv())
            if message["type"] == "sample":
                now = time.time()
                latencies.append(now - message["sample"]["t"])
                fanout.append(now - message["published_at"])
                seen += 1


async def rest_loop(base: str, run_id: str, stop: asyncio.Event, latencies: list[float]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        while not stop.is_set():
            for path in REST_PATHS:
                started = time.perf_counter()
                response = await client.get(path.format(id=run_id))
                latencies.append(time.perf_counter() - started)
                response.raise_for_status()


async def measure(base: str, run_id: str, viewers: int, samples: int) -> tuple[list[float], list[float], list[float]]:
    ws_url = base.replace("http://", "ws://") + f"/api/runs/{run_id}/live?max_points=500"
    latencies: list[float] = []
    fanout: list[float] = []
    rest: list[float] = []
    readies = [asyncio.Event() for _ in range(viewers)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(viewer(ws_url, samples, latencies, fanout, r)) for r in readies]
    await asyncio.gather(*(r.wait() for r in readies))
    poller = asyncio.create_task(rest_loop(base, run_id, stop, rest))
    await asyncio.gather(*tasks)
    stop.set()
    await poller
    return latencies, fanout, rest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10, help="samples each viewer waits for per count")
    parser.add_argument("--tps", type=float, default=5000.0, help="target rate of the write benchmark")
    args = parser.parse_args()
    os.environ.setdefault("SPANNER_DISABLE_BUILTIN_METRICS", "true")
    with tempfile.TemporaryDirectory(prefix="spanload-bench-") as tmp, ServeProcess(Path(tmp)) as serve:
        assert serve.process is not None and serve.process.stdout is not None
        # serve logs every request; drain its output so that a full pipe never blocks its event loop
        threading.Thread(target=collections.deque, args=(serve.process.stdout, 200), daemon=True).start()
        api = httpx.Client(base_url=serve.url, timeout=30)
        idle: list[float] = []
        for _ in range(50):
            for path in ("/api/runs?limit=50", "/api/health", "/api/presets"):
                started = time.perf_counter()
                api.get(path).raise_for_status()
                idle.append((time.perf_counter() - started) * 1000)
        print(
            f"REST with no run going: n={len(idle)} p50 {statistics.median(idle):.1f} ms, "
            f"p99 {percentile(idle, 99):.1f} ms"
        )
        body = {"preset": "write-benchmark", "overrides": {"updater": {"transactions_per_second": args.tps}}}
        run = api.post("/api/runs", json=body).json()
        run_id = run["id"]

        def running() -> dict[str, object] | None:
            current: dict[str, object] = api.get(f"/api/runs/{run_id}").json()
            assert current["status"] != "failed", current["failure_reason"]
            return current if current["status"] == "running" and int(str(current["sample_count"])) >= 3 else None

        wait_for(running, 180, "the run to be running")
        print(f"run {run_id}: write benchmark at a target of {args.tps:g} tx/s, one worker process")
        print("latency in ms; 'hub->viewer' from the hub's fan-out, 'interval->viewer' from the interval's end")
        header = ("viewers", "samples", "hub p50", "hub p99", "ival p50", "ival p99", "REST n", "REST p50", "REST p99")
        print("  ".join(f"{h:>8}" for h in header))
        for count in VIEWER_COUNTS:
            latencies, fanout, rest = asyncio.run(measure(serve.url, run_id, count, args.samples))
            ms, hub_ms, rest_ms = ([x * 1000 for x in xs] for xs in (latencies, fanout, rest))
            row = (
                f"{count}",
                f"{len(ms)}",
                f"{statistics.median(hub_ms):.1f}",
                f"{percentile(hub_ms, 99):.1f}",
                f"{statistics.median(ms):.1f}",
                f"{percentile(ms, 99):.1f}",
                f"{len(rest_ms)}",
                f"{statistics.median(rest_ms):.1f}",
                f"{percentile(rest_ms, 99):.1f}",
            )
            print("  ".join(f"{c:>8}" for c in row))
        final = api.get(f"/api/runs/{run_id}").json()
        gauges = api.get(f"/api/runs/{run_id}/samples", params={"from": final["duration_s"] - 5}).json()["data"]
        achieved = [s["gauges"].get("updater.tps", 0.0) for s in gauges]
        behind = [s["gauges"].get("updater.behind", 0.0) for s in gauges]
        if achieved:
            print(
                f"achieved {statistics.mean(achieved):.0f} tx/s of {args.tps:g} (last 5 s), "
                f"behind {max(behind):.0f}: the worker is saturated"
            )
        api.post(f"/api/runs/{run_id}/stop")
        tree = children_of(serve.process.pid)
        serve.stop(signal.SIGINT)
        for pid in tree:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    load1, load5, _ = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load1:.1f} (1 min) {load5:.1f} (5 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
