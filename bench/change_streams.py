"""Polling against a change stream on the Change Watcher report's load table (issue 29).

One definition writes ``w`` single-use commits a second of 1..2m new rows each (random 62-bit keys, a
commit-timestamp column) and watches the table either way: ``poll`` (every 1 s, by commit
timestamp, an index on it) or ``change_stream`` (a reader per partition, 1 s heartbeats). Both
modes run on the same local Spanner, one after the other, each on its own fresh database, in the
runtime given (python by default).

Printed per load level and mode: notification latency p50 and p99 (commit timestamp to receipt),
the local Spanner's process CPU per change received (the writes cost the same in both modes, so the
difference is the watcher's), measured here from /proc beside the run summary's own figure
(server.cpu_per_change_ms, from the server's counters), the median watcher lag (how far behind now
the watcher has read), and the reconciliation: changes received against COUNT(*) of rows written
(each row is one change).

    .venv/bin/python bench/change_streams.py [--seconds 20] [--levels very-light,light,medium] [--runtime go]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from dataclasses import dataclass
from typing import Any

from _common import REPO  # noqa: F401  (puts the repository on sys.path)

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.presets import CHANGE_WATCHER_LOADS
from spanload.model.samples import Gauge, Op, Sample, Summary
from spanload.model.settings import Settings
from spanload.spanner import client as spanner_client
from spanload.spanner.local_server import start_local_spanner

DDL = [
    "CREATE TABLE BenchChanges (Id INT64 NOT NULL, Payload STRING(MAX), "
    "LastUpdated TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)",
    "CREATE INDEX BenchChangesByTime ON BenchChanges (LastUpdated)",
]


def definition(mode: str, w: float, m: int) -> dict[str, Any]:
    watch: dict[str, Any] = {"table": "BenchChanges", "timestamp": "LastUpdated", "poll_interval": "1s", "mode": mode}
    if mode == "change_stream":
        watch["heartbeat"] = "1s"
    return {
        "name": "bench_change_streams",
        "ddl": DDL,
        "operations": {
            "update": {
                "rate": w,
                "transaction": "single_use",
                "steps": [
                    {
                        "insert_or_update": {
                            "table": "BenchChanges",
                            "rows": {"uniform": {"min": 1, "max": 2 * m}},
                            "columns": {
                                "Id": {"uniform": {"min": 0, "max": 2**62}},
                                "Payload": {"string": {"length": 16}},
                                "LastUpdated": "commit_timestamp",
                            },
                        }
                    }
                ],
            }
        },
        "watch": watch,
    }


class Sink:
    def __init__(self) -> None:
        self.summary: Summary | None = None
        self.samples: list[Sample] = []
        self.reason: str | None = None

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self.samples.append(sample)

    def on_state(self, run_id: str, state: object, reason: str | None) -> None:
        self.reason = reason or self.reason

    def on_config_change(self, run_id: str, patch: object, who: str) -> None:
        pass

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.summary = summary


@dataclass
class Row:
    level: str
    mode: str
    p50: float | None
    p99: float | None
    cpu_us_per_change: float
    summary_us_per_change: float | None  # the run summary's server.cpu_per_change_ms, in µs
    lag_ms: float | None
    received: int
    written: int


def process_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0  # utime + stime, in clock ticks (USER_HZ 100)


def create(config: RunConfig, address: str) -> Any:
    client = spanner_client.make_client(config.target, address)
    instance = client.instance(
        config.target.instance, configuration_name=f"projects/{client.project}/instanceConfigs/emulator-config"
    )
    if not instance.exists():
        instance.create().result(60)
    db = instance.database(config.target.database)
    db.create().result(60)
    db.update_ddl(DDL).result(60)
    return client, db


async def run(config: RunConfig, sink: Sink) -> None:
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start("bench-cs", config)
    await asyncio.wait_for(supervisor.wait_finished("bench-cs"), (config.duration_s or 0) + 120)


def measure(address: str, pid: int, level: str, mode: str, w: float, m: int, seconds: float, runtime: str) -> Row:
    body = {
        "target": {"kind": "local", "emulator_host": address, "database": f"cs-{level}-{mode}"[:30].replace("_", "-")},
        "runtime": runtime,
        "duration_s": seconds,
        "workload": "definition",
        "definition": definition(mode, w, m),
    }
    config = RunConfig.model_validate(body)
    client, db = create(config, address)
    sink = Sink()
    cpu0 = process_cpu_s(pid)
    asyncio.run(run(config, sink))
    cpu = process_cpu_s(pid) - cpu0
    with db.snapshot() as snap:
        ((written,),) = list(snap.execute_sql("SELECT COUNT(*) FROM BenchChanges"))
    client.close()
    if sink.summary is None:
        raise RuntimeError(f"{level}/{mode}: no summary ({sink.reason})")
    if sink.summary.errors_by_code:
        print(f"{level}/{mode}: errors {sink.summary.errors_by_code}")
    notify = sink.summary.latency.get(Op.WATCHER_NOTIFY)
    received = sink.summary.totals.received_changes
    lags = [s.gauges[Gauge.WATCHER_LAG_MS] for s in sink.samples if Gauge.WATCHER_LAG_MS in s.gauges]
    return Row(
        level,
        mode,
        notify.p50 if notify else None,
        notify.p99 if notify else None,
        cpu * 1e6 / max(1, received),
        run_cost * 1000 if (run_cost := sink.summary.rates.get(Gauge.SERVER_CPU_PER_CHANGE_MS)) is not None else None,
        statistics.median(lags) if lags else None,
        received,
        int(written),
    )


def fmt(v: float | None, spec: str = ".1f") -> str:
    return "-" if v is None else format(v, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--levels", default="very-light,light,medium")
    parser.add_argument("--runtime", default=WorkerRuntime.PYTHON.value, choices=[r.value for r in WorkerRuntime])
    args = parser.parse_args()
    loads = {key: (w, m) for key, _, w, m, _ in CHANGE_WATCHER_LOADS}
    server = start_local_spanner("127.0.0.1", 0, None, Settings().local_spanner_binary)
    rows: list[Row] = []
    try:
        for level in args.levels.split(","):
            w, m = loads[level]
            for mode in ("poll", "change_stream"):
                rows.append(measure(server.address, server.process.pid, level, mode, w, m, args.seconds, args.runtime))
    finally:
        server.stop()
    print(f"runtime {args.runtime}, {args.seconds:.0f} s a run, local Spanner")
    print(
        "| load (w tx/s, 1..2m rows) | mode | notify p50 ms | notify p99 ms | server CPU µs/change "
        "| summary's µs/change | lag ms | received / written |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        w, m = loads[r.level]
        print(
            f"| {r.level} ({w:g}, 1..{2 * m}) | {r.mode} | {fmt(r.p50)} | {fmt(r.p99)} | {r.cpu_us_per_change:.0f} | "
            f"{fmt(r.summary_us_per_change, '.0f')} | {fmt(r.lag_ms, '.0f')} | {r.received} / {r.written} "
            f"{'exact' if r.received == r.written else 'NOT EXACT'} |"
        )


if __name__ == "__main__":
    main()
