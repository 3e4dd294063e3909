"""Presets: the field reports' scenarios as ready-made run configs.

- The Change Watcher load table (w tx/s, m mutations a transaction, n watchers; poll every 1 s,
  limit 10,000), each with a ``-no-hint`` variant (no FORCE_INDEX) and, where n = 1, a
  ``-not-null`` variant (``ShardId IS NOT NULL`` instead of the fixed shard list).
- Polling against a change stream (issue 29): each load level as ``<level>-poll`` and
  ``<level>-change-stream``, ``workloads/change_watcher.yaml`` with its watch in either mode, on the
  same load and in one database of their own (``spanload-change-streams``), so that the stream one
  creates stays off the database of the presets above.
- The write benchmark on the Tweet table, with point reads competing.
- The 2PC-participants batch insert: 6 new rows a single-use commit; and the report's lab,
  ``2pc-participants``: one session, about 42 commits/s (2.5k a minute) of 6 new rows into a table
  without secondary indexes, in a database of its own that starts empty and grows, with the local
  Spanner's production_like latency model, so participants rise as its splits divide.
- The session-pool agents: join-query readers and insert writers with 100 ms think time over a
  10-session pool, at rising concurrency.
- TPC-C on one warehouse (``tpcc-1w``): 8 terminals back to back, no keying or think times; and
  ``tpcc-1w-2p``, the same terminals over two worker processes.
- The PostgreSQL-interface report's experiment: ``tpcc-1w`` (GoogleSQL) and its PostgreSQL twins
  ``pg-tpcc-client`` (the client library on a PostgreSQL-dialect database) and ``pg-tpcc-pgadapter``
  (psycopg through PGAdapter, prepared statements), the same warehouses, terminals and duration, the
  two PostgreSQL ones on one database of that dialect. A compare of the three answers both questions.
- The PostgreSQL interfaces on the shop definition: ``shop-googlesql``, ``shop-pg-postgresql`` and
  ``shop-pg-pgadapter`` (``workloads/shop.yaml`` and its twin ``shop_pg.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spanload.model.builtin_convert import as_definition, builtin_definition
from spanload.model.config import RunConfig
from spanload.model.errors import UnknownPreset
from spanload.model.pg_twin import for_interface, pg_database


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    config: RunConfig


# name, title, w, m, n -- the Change Watcher report's load table.
CHANGE_WATCHER_LOADS: tuple[tuple[str, str, float, int, int], ...] = (
    ("very-light", "Very light", 1, 5, 1),
    ("light", "Light", 5, 20, 1),
    ("medium", "Medium", 10, 50, 1),
    ("high", "High", 25, 100, 1),
    ("very-high", "Very high", 50, 200, 1),
    ("very-high-2", "Very high", 50, 200, 2),
    ("very-high-4", "Very high", 50, 200, 4),
    ("very-high-8", "Very high", 50, 200, 8),
)
# mutations/s at which a 2-core machine running the local Spanner and the workers falls short: very-high
# (50 x 200) reached 22 tx/s with Python workers and 34 with Go in 20 s runs (README, "very-high on two cores");
# high (25 x 100) is met with Python workers (24.9 tx/s over a 45-minute soak)
BEYOND_TWO_CORES = 10_000
SHORT_OF = "22 tx/s with Python workers, 34 with Go"
SESSION_POOL_CONCURRENCY = (5, 10, 20, 40)
TWO_PC_PARTICIPANTS = "2pc-participants"
TWO_PC_DATABASE = "spanload-2pc"  # its own database, so that its table starts empty
TWO_PC_COMMITS_PER_S = 42.0  # the report's 2.5k commits a minute
TWO_PC_PRELOADED = "2pc-participants-preloaded"
# the local Spanner divides a split at 50,000 rows (its default --split-rows): 150,000 rows are about
# 4 splits, over which a commit's 6 uniform keys touch about 3.3
TWO_PC_PRELOAD_ROWS = 150_000
SESSION_POOL_SIZE = 10
SHOP_DATABASE = "spanload-shop"
SHOP_PG_DATABASE = pg_database(SHOP_DATABASE)  # one database for both PostgreSQL interfaces: the same data
PG_TPCC_DATABASE = "spanload-tpcc-pg"  # one database for both PostgreSQL interfaces: the same data
PG_TPCC = {"pg-tpcc-client": "postgresql", "pg-tpcc-pgadapter": "pgadapter"}  # preset -> client.interface
TPCC_WARMUP_S = 10.0  # tpcc-1w and its PG twins: PGAdapter's JVM is cold for the first seconds; all three skip them
TPCC_TWO_PROCESSES = "tpcc-1w-2p"  # tpcc-1w's terminals over two processes (TPC-C runs on Python workers only)
CHANGE_STREAMS_DATABASE = "spanload-change-streams"
# preset suffix -> the watch_mode knob of workloads/change_watcher.yaml (its watch.mode; live: the run may switch)
WATCH_MODES = {"poll": "poll", "change-stream": "change_stream"}


def _config(name: str, body: dict[str, Any]) -> RunConfig:
    return RunConfig.model_validate({"preset": name, **body})


def _builtin(
    name: str, workload: str, knobs: dict[str, Any], body: dict[str, Any] | None = None, watched: bool = True
) -> RunConfig:
    """A preset that runs the built-in definition ``workload`` with these knob values (and ``body``'s
    other fields); ``watched`` false drops the watch (the report's scenario ran no watcher: its polls
    would take a session of a small pool, or server CPU from what the scenario measures)."""
    definition = builtin_definition(workload).model_dump(mode="json", exclude_unset=True)
    if not watched:
        definition["watch"] = None
    origin = {"source": "builtin", "definition": workload}
    run = {"workload": "definition", "definition": definition, "definition_origin": origin, "knobs": knobs}
    return _config(name, {**(body or {}), **run})


def _legacy(name: str, body: dict[str, Any]) -> RunConfig:
    """A preset written in the report's terms (the updater's and watcher's fields) as the run of its
    workload's built-in definition (model/builtin_convert.py, the one home of e.g. max_mutations = 2m)."""
    return as_definition(_config(name, body))


def _change_watcher() -> list[Preset]:
    out = []
    for name, title, w, m, n in CHANGE_WATCHER_LOADS:
        updater = {"transactions_per_second": w, "mutations_per_transaction": m}
        watcher = {"watchers": n, "poll_interval_ms": 1000, "limit": 10_000}
        label = f"{title} Change Watcher load: {w:g} tx/s x {m} mutations, {n} watcher{'s' if n > 1 else ''}"
        if w * m >= BEYOND_TWO_CORES:
            label += f" ({w * m:,.0f} mutations/s: beyond a 2-core machine with the local Spanner, {SHORT_OF})"
        out.append(
            Preset(
                name,
                f"{label}; FORCE_INDEX, fixed shard list (workloads/change_watcher.yaml)",
                _legacy(name, {"updater": updater, "watcher": watcher}),
            )
        )
        out.append(
            Preset(
                f"{name}-no-hint",
                f"{label}; no table hint (the index is not forced)",
                _legacy(f"{name}-no-hint", {"updater": updater, "watcher": {**watcher, "table_hint": False}}),
            )
        )
        if n == 1:
            out.append(
                Preset(
                    f"{name}-not-null",
                    f"{label}; ShardId IS NOT NULL instead of the fixed shard list",
                    _legacy(
                        f"{name}-not-null", {"updater": updater, "watcher": {**watcher, "shard_filter": "not_null"}}
                    ),
                )
            )
        for suffix, mode in WATCH_MODES.items():
            # the same updater/watcher fields as above, turned into the definition's knobs by
            # model/builtin_knobs.py (the one home of e.g. max_mutations = 2m)
            config = _builtin(
                f"{name}-{suffix}",
                "change_watcher",
                {"watch_mode": mode},
                {"target": {"database": CHANGE_STREAMS_DATABASE}},
            ).merged({"updater": updater, "watcher": watcher})
            how = "a change stream, a reader per partition, 1 s heartbeats" if mode != "poll" else "polling every 1 s"
            out.append(
                Preset(
                    f"{name}-{suffix}",
                    f"{label}; the watch by {how} (workloads/change_watcher.yaml, database {CHANGE_STREAMS_DATABASE})",
                    config,
                )
            )
    return out


def _others() -> list[Preset]:
    out = [
        Preset(
            "write-benchmark",
            "Tweet table write benchmark: 100 tx/s single-row writes with a secondary index on Sort, "
            "50 point reads/s competing (workloads/write_benchmark.yaml)",
            _builtin(
                "write-benchmark",
                "write_benchmark",
                {
                    "transactions_per_second": 100.0,
                    "max_mutations": 2,  # the updater's 1 mutation a transaction: uniform 1..2
                    "parallelism": 16,
                    "reads_per_second": 50.0,
                    "read_concurrency": 8,
                },
                watched=False,
            ),
        ),
        Preset(
            "2pc-batch-insert",
            "2PC participants: 6 new rows per single-use commit spread over the key space, 20 commits/s "
            "(workloads/participants.yaml)",
            _builtin("2pc-batch-insert", "participants", {"commits_per_second": 20.0, "batch_rows": 6}, watched=False),
        ),
    ]
    out += _two_pc()
    out += _capacity()
    for agents in SESSION_POOL_CONCURRENCY:
        name = f"session-pool-agents-{agents}"
        out.append(
            Preset(
                name,
                f"Session pool exhaustion: {agents} join-query readers and {agents} insert writers, "
                f"100 ms think time, a {SESSION_POOL_SIZE}-session pool (no multiplexed sessions) "
                "(workloads/session_pool.yaml)",
                _builtin(
                    name,
                    "session_pool",
                    {"agents": agents, "think_time": 100},
                    {"client": {"multiplexed_sessions": False, "session_pool_size": SESSION_POOL_SIZE}},
                    watched=False,
                ),
            )
        )
    return out


def _two_pc() -> list[Preset]:
    """The 2PC-participants lab, on its empty table and on one preloaded to several splits: the same
    commits, session and latency model, so the two differ in participants alone."""

    def lab(name: str, preload_rows: int) -> RunConfig:
        return _builtin(
            name,
            "participants",
            {"commits_per_second": TWO_PC_COMMITS_PER_S, "batch_rows": 6, "in_flight": 1, "preload_rows": preload_rows},
            {
                "target": {"database": TWO_PC_DATABASE, "latency_model": "production_like"},
                "client": {"session_pool_size": 1},
            },
            watched=False,
        )

    return [
        Preset(
            TWO_PC_PARTICIPANTS,
            "2PC participants lab: one session, 42 commits/s of 6 new rows spread over the key space "
            f"into UserTable (no secondary index) of database {TWO_PC_DATABASE}, which starts empty and grows; "
            "the local Spanner's production_like latency model makes 2PC cost a second commit round "
            "(workloads/participants.yaml)",
            lab(TWO_PC_PARTICIPANTS, 0),
        ),
        Preset(
            TWO_PC_PRELOADED,
            f"2PC participants lab on a table preloaded to {TWO_PC_PRELOAD_ROWS:,} rows: the same commits, "
            "their 6 rows now over several splits (workloads/participants.yaml)",
            lab(TWO_PC_PRELOADED, TWO_PC_PRELOAD_ROWS),
        ),
    ]


# The capacity searches: PerfKitBenchmarker's Spanner recipe raises the target 1,000 QPS a step until
# CPU passes 65 % or p99 a limit; these start lower, for one machine, and go up to 20,000/s.
CAPACITY_SEARCH = {
    "start_rate": 200,
    "step": 200,
    "max_rate": 20_000,
    "min_step_s": 20,
    "max_step_s": 60,
    "percentile": "p99",
    "latency_ms": 100,
    "errors_pct": 1,
    "achieved_pct": 90,
    "server_cpu_pct": 65,
}


def _capacity() -> list[Preset]:
    return [
        Preset(
            "capacity-write-benchmark",
            "Capacity search on the Tweet table: single-row writes from 200 tx/s up by 200 a step (20-60 s each) "
            "until p99 passes 100 ms, errors 1 %, achieved falls under 90 % or server CPU passes 65 % "
            "(workloads/write_benchmark.yaml, its point reads off)",
            _builtin(
                "capacity-write-benchmark",
                "write_benchmark",
                {"max_mutations": 2, "parallelism": 64},
                {
                    "processes": 2,
                    "operations": {"point_read": {"enabled": False}},
                    "capacity": {**CAPACITY_SEARCH, "operation": "write"},
                },
                watched=False,
            ),
        ),
        Preset(
            "capacity-change-watcher",
            "Capacity search on the Change Watcher's updater (5 mutations a transaction) with one watcher polling "
            "every second: up by 200 tx/s a step until the updater's p99 passes 100 ms or a change's notification "
            "p99 passes 2 s (or errors, achieved, server CPU as for the write benchmark)",
            _legacy(
                "capacity-change-watcher",
                {
                    "processes": 2,
                    "updater": {"mutations_per_transaction": 5, "parallelism": 64},
                    "watcher": {"watchers": 1, "poll_interval_ms": 1000, "limit": 10_000},
                    "capacity": {**CAPACITY_SEARCH, "also": ["notify.p99_ms>2000"]},
                },
            ),
        ),
    ]


def _tpcc() -> list[Preset]:
    def one_warehouse(name: str, processes: int, **body: Any) -> RunConfig:
        tpcc = {"warehouses": 1, "mode": "closed", "terminals": 8}
        return _config(name, {"workload": "tpcc", "tpcc": tpcc, "processes": processes, **body})

    what = "the standard mix (45/43/4/4/4) from 8 terminals back to back, no keying or think times"
    return [
        Preset(
            "tpcc-1w",
            f"TPC-C on 1 warehouse: {what}; loaded first (skipped when present), consistency conditions 1-4 "
            "checked at the end",
            one_warehouse("tpcc-1w", 1, warmup_s=TPCC_WARMUP_S),
        ),
        Preset(
            TPCC_TWO_PROCESSES,
            f"TPC-C on 1 warehouse, the same 8 terminals over 2 worker processes: {what}",
            one_warehouse(TPCC_TWO_PROCESSES, 2),
        ),
        *(
            Preset(
                name,
                f"tpcc-1w on PostgreSQL-dialect database {PG_TPCC_DATABASE} through "
                + ("the client library" if interface == "postgresql" else "psycopg and PGAdapter (prepared statements)")
                + f": {what}; compare it with tpcc-1w and the other PostgreSQL preset",
                one_warehouse(
                    name,
                    1,
                    target={"database": PG_TPCC_DATABASE},
                    client={"interface": interface},
                    warmup_s=TPCC_WARMUP_S,
                ),
            )
            for name, interface in PG_TPCC.items()
        ),
    ]


def _interfaces() -> list[Preset]:
    """The PostgreSQL-interface report's setups on the shop definition: GoogleSQL, and its PostgreSQL
    twin through the client library and through PGAdapter, the two PostgreSQL ones on one database of
    that dialect."""
    out = [
        Preset(
            "shop-googlesql",
            f"The shop (workloads/shop.yaml) with the client library on GoogleSQL database {SHOP_DATABASE}",
            _builtin("shop-googlesql", "shop", {}, {"target": {"database": SHOP_DATABASE}}),
        )
    ]
    for interface, how in (("postgresql", "the client library"), ("pgadapter", "psycopg through PGAdapter")):
        name = f"shop-pg-{interface}"
        body = {"target": {"database": SHOP_PG_DATABASE}, "client": {"interface": interface}}
        out.append(
            Preset(
                name,
                f"The shop's PostgreSQL twin (workloads/shop_pg.yaml) with {how} on PostgreSQL database "
                f"{SHOP_PG_DATABASE} (Python workers only)",
                _builtin(name, "shop_pg", {}, body),
            )
        )
    return out


_PRESETS: dict[str, Preset] = {p.name: p for p in (*_change_watcher(), *_others(), *_tpcc(), *_interfaces())}


def all_presets() -> list[Preset]:
    """Every preset, in the order the reports present them."""
    return list(_PRESETS.values())


def get_preset(name: str) -> Preset:
    """The preset called ``name``. Raises :class:`UnknownPreset` naming the valid ones."""
    try:
        return _PRESETS[name]
    except KeyError:
        raise UnknownPreset(f"unknown preset {name!r}; presets are: {', '.join(_PRESETS)}") from None


def make_config(
    preset: str | None = None,
    overrides: dict[str, Any] | None = None,
    base: RunConfig | None = None,
    prefix: str = "",
) -> RunConfig:
    """A run's config: ``base`` (a whole config), else the preset's, else the defaults, with
    ``overrides`` (nested like the config) deep-merged on top and the result validated as a whole;
    a GoogleSQL built-in's ``base`` asked for on a PostgreSQL interface is its twin's (model/pg_twin.py).
    The one way the API and the command line turn a request into a config.
    Raises :class:`UnknownPreset`, or :class:`RunInvalid` naming the field (after ``prefix``)."""
    if base is None:
        base = get_preset(preset).config if preset is not None else RunConfig()
    overrides = overrides or {}
    return for_interface(base, overrides, prefix).merged(overrides, prefix)
