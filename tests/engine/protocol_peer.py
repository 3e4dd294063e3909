"""A minimal worker that speaks the worker protocol with no Spanner at all.

It stands for a worker written in another language (or on another machine): the supervisor must
drive it through start, begin, reports and the two-phase stop, and must notice when it goes
silent. Each report carries 2 transactions and claims ``CPU_S_PER_REPORT`` more CPU seconds, so
the summary's cost per operation is known exactly. ``--silent-after N`` stops reporting after N
reports but keeps the process alive, for ``--silent-for S`` seconds (default: for good).
``--ignore-stop`` never answers a stop (a worker stuck in its drain).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

V = 1
CPU_S_PER_REPORT = 0.01  # the CPU each report claims: a known cost per operation for the tests


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps({"v": V, **obj}) + "\n")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", type=int)
    parser.add_argument("--silent-after", type=int, default=-1)
    parser.add_argument("--silent-for", type=float, default=None)
    parser.add_argument("--ignore-stop", action="store_true")
    parser.add_argument("--silent-worker", type=int, default=None, help="only this worker goes silent")
    args = parser.parse_args()
    me = args.worker
    send({"type": "hello", "worker": me, "pid": os.getpid(), "language": "test-peer", "host": f"peer-host-{me}"})
    stop = threading.Event()
    state = {"seq": 0, "interval": 1.0, "started": 0.0}

    def report(final: bool = False) -> None:
        send(
            {
                "type": "report",
                "worker": me,
                "seq": state["seq"],
                "t": time.time(),
                "interval_s": state["interval"],
                "counters": {"transactions": 2, "mutations": 4},
                "gauges": {"updater.target_tps": 2.0},
                "final": final,
                "cpu_s": CPU_S_PER_REPORT * (state["seq"] + 1),  # cumulative, as a real worker's
            }
        )
        state["seq"] += 1

    def reporter() -> None:
        silenced = False
        while not stop.is_set():
            chosen = args.silent_worker is None or args.silent_worker == me
            if chosen and args.silent_after >= 0 and state["seq"] >= args.silent_after and not silenced:
                silenced = True
                if stop.wait(args.silent_for) or args.silent_for is None:  # wait(None): until stopped
                    return
                state["started"] = time.time() - state["seq"] * state["interval"]  # carry on from now
            end = state["started"] + (state["seq"] + 1) * state["interval"]
            if stop.wait(max(0.0, end - time.time())):
                return
            report()

    for line in sys.stdin:
        message = json.loads(line)
        match message["type"]:
            case "start":
                state["interval"] = message["config"]["report_interval_s"]
                send({"type": "ready", "worker": me})
            case "begin":
                state["started"] = message["started_at"]
                threading.Thread(target=reporter, daemon=True).start()
            case "stop_writers" | "stop" if args.ignore_stop:
                continue
            case "stop_writers":
                send({"type": "writers_stopped", "worker": me, "writer_id": f"w{me}", "ledger": [[me, 1, 1]]})
            case "stop":
                stop.set()
                if me == 0:
                    send({"type": "watcher_ledger", "worker": 0, "received": [[0, 1, 1], [1, 1, 1]]})
                report(final=True)
                send({"type": "stopped", "worker": me})
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
