"""Experiments: a seed report's variants, run back to back on one database, led by the figures the
report measured. Each variant is a preset; the experiment's ``overrides`` (the same database, the
table size, the length) apply to every one, so the variants differ only where their presets do.
A preload is idempotent, so the first variant fills the table and the others find it full.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spanload.model.errors import RunInvalid


@dataclass(frozen=True)
class KeyFigure:
    metric: str  # a summary figure as thresholds name it (engine/thresholds.py metrics_of)
    label: str


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    variants: tuple[str, ...]  # preset names, the first the baseline of every ratio
    figures: tuple[KeyFigure, ...]  # the first is the one the report is about
    report: str  # what the seed report found, for the reader to set the ratios against
    overrides: dict[str, Any] = field(default_factory=dict)


HINT = Experiment(
    name="hint",
    description="Change Watcher: the poll with FORCE_INDEX, without it, and with a not-null filter for the shard list",
    variants=("medium", "medium-no-hint", "medium-not-null"),
    figures=(
        KeyFigure("watcher.poll_server.p50_ms", "poll at the server p50 ms"),
        KeyFigure("watcher.poll.p50_ms", "poll at the client p50 ms"),
        KeyFigure("watcher.notify.p50_ms", "notification p50 ms"),
        KeyFigure("updater.tps", "achieved tx/s"),
    ),
    report=(
        "the report: without the hint the poll does a full scan, 'a dramatic impact' that grows with the table; "
        "measured here at 1 M rows: 5.1 ms with the hint, 249 ms without (49x), 1,467 ms not-null (288x)"
    ),
    overrides={"duration_s": 60, "preload": {"rows": 100_000}, "target": {"database": "spanload-exp-hint"}},
)

SESSION_POOL = Experiment(
    name="session-pool",
    description="Session pool exhaustion: 5, 10, 20 and 40 agents on a 10-session pool",
    variants=("session-pool-agents-5", "session-pool-agents-10", "session-pool-agents-20", "session-pool-agents-40"),
    figures=(
        KeyFigure("reader.read.p99_ms", "read p99 ms (client)"),
        KeyFigure("reader.read_server.p99_ms", "read p99 ms (server)"),
        KeyFigure("sessions.waiting", "sessions waited for"),
    ),
    report="the report: client latency climbs with the agents while the server's stays flat, the pool empty",
    overrides={"duration_s": 60, "target": {"database": "spanload-exp-session-pool"}},
)

CHANGE_STREAMS = Experiment(
    name="change-streams",
    description="Change streams against polling: the Change Watcher's light load watched by polling and by a "
    "change stream (workloads/change_watcher.yaml)",
    variants=("light-poll", "light-change-stream"),
    figures=(
        KeyFigure("watcher.notify.p50_ms", "notification p50 ms"),
        KeyFigure("watcher.notify.p99_ms", "notification p99 ms"),
        # the server's whole CPU (local Spanner counters) per change received, engine/change_cost.py:
        # both variants commit the same load, so the two differ by what each way of watching costs
        KeyFigure("server.cpu_per_change_ms", "server CPU ms per change"),
        # the watcher's own statements (the poll, or the stream's read function) in SPANNER_SYS's
        # closed minutes: what Cloud Spanner reports; a variant needs a whole minute inside it
        KeyFigure("server.watch_cpu_per_change_ms", "watcher SYS CPU ms/change"),
        KeyFigure("watcher.lag_ms", "watcher lag ms"),
        # change_watcher.yaml writes versioned keys and its watch reads them (watch.versions): each
        # variant's exact reconciliation, every final version received (1 = ok, nothing twice)
        KeyFigure("reconciliation.ok", "reconciled exactly (1 = yes)"),
        KeyFigure("reconciliation.final_versions_missing", "final versions missing"),
        # the changes received (a poll misses a row's versions overwritten between polls, a stream
        # gets each) beside the commits a second both variants achieved
        KeyFigure("totals.received_changes", "changes received"),
        KeyFigure("op.write.ps", "commits/s achieved"),
    ),
    report=(
        "the Change Watcher report measured only polling (notification about half the 1 s poll interval); "
        "Google now recommends change streams; the poll variant runs first, before the stream variant "
        "creates its stream on the table (a rerun on the same database polls a table with a stream)"
    ),
    # 150 s: each variant holds a whole SPANNER_SYS minute (any 120 s does) for the watcher's CPU
    overrides={"duration_s": 150, "target": {"database": "spanload-exp-change-streams"}},
)

TWO_PC = Experiment(
    name="two-pc",
    description="2PC participants: the lab's 6-row single-use commits into an empty table (one split) and into "
    "one preloaded to several splits, one session, the production_like latency model (workloads/participants.yaml)",
    variants=("2pc-participants", "2pc-participants-preloaded"),
    figures=(
        KeyFigure("server.commit_participants", "participants a commit"),
        KeyFigure("server.commit_latency_s", "server commit latency s"),
        KeyFigure("op.batch_insert.p50_ms", "commit p50 ms (client)"),
        KeyFigure("server.cpu_per_commit_ms", "server CPU ms per commit"),
    ),
    report=(
        "the 2PC report: a batch-insert commit whose rows span more than one split costs a second commit round "
        "(two-phase commit) and CPU on every participant; measured here as the table divided (README): "
        "server commit 3.96 ms at 1 participant, 7.17 ms at 2+ (1.81x), client p50 5.7 against 9.2 ms; "
        "the empty variant runs first, as a rerun on the same database finds its table loaded (several splits)"
    ),
    overrides={"duration_s": 60, "target": {"database": "spanload-exp-two-pc"}},
)

TPCC = Experiment(
    name="tpcc",
    description="TPC-C on 1 warehouse, 8 terminals back to back, from 1 worker process and from 2 (TPC-C runs on "
    "Python workers only: the Go worker has no TPC-C)",
    variants=("tpcc-1w", "tpcc-1w-2p"),
    figures=(
        KeyFigure("tpcc.tpmc", "tpmC"),
        KeyFigure("tpcc.new_order.p50_ms", "New-Order p50 ms"),
        KeyFigure("tpcc.new_order.p90_ms", "New-Order p90 ms"),
        KeyFigure("tpcc.new_order_server.p50_ms", "New-Order p50 ms (server)"),
    ),
    report=(
        "measured here (README, bench/tpcc.py, 30 s a round): 376 tpmC from 1 process, 455 from 2 (1.21x), "
        "New-Order p50 462 against 426 ms, mostly retries (23-42 ms at the server): the Python client's "
        "~28 ms CPU a transaction is the ceiling; each run's summary says whether consistency conditions 1-4 held"
    ),
    overrides={"duration_s": 60, "target": {"database": "spanload-exp-tpcc"}},
)

PG = Experiment(
    name="pg",
    description="PostgreSQL against GoogleSQL: the shop on GoogleSQL, then its PostgreSQL twin through the client "
    "library and through PGAdapter (Python workers; the two dialects need two databases, the presets')",
    variants=("shop-googlesql", "shop-pg-postgresql", "shop-pg-pgadapter"),
    figures=(
        KeyFigure("op.place_order.p50_ms", "place_order p50 ms"),
        KeyFigure("op.place_order.p95_ms", "place_order p95 ms"),
        KeyFigure("op.recent_orders.p50_ms", "recent_orders p50 ms"),
        KeyFigure("op.recent_orders.p95_ms", "recent_orders p95 ms"),
    ),
    report=(
        "the PostgreSQL-interface report ran TPC-C (here the presets tpcc-1w, pg-tpcc-client and "
        "pg-tpcc-pgadapter); this asks its questions of the shop definition: it found PGAdapter added under "
        "0.1 ms at p50, 2.7 % of the round "
        "trip (shop-pg-pgadapter against shop-pg-postgresql), and set the PostgreSQL dialect against GoogleSQL "
        "(shop-pg-postgresql against shop-googlesql); PGAdapter starts with its run, so its JVM's warm-up "
        "is in that variant's figures (the README's run: 400 ms p50 intervals at first, the client library's "
        "latency once warm)"
    ),
    overrides={"duration_s": 60},
)

EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (HINT, SESSION_POOL, CHANGE_STREAMS, TWO_PC, TPCC, PG)}


def get_experiment(name: str) -> Experiment:
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise RunInvalid(f"unknown experiment {name!r}; experiments are: {', '.join(EXPERIMENTS)}") from None
