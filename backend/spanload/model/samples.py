"""What the aggregator makes of one report interval: the shape that the store keeps,
the websocket streams, the API serves and the UI charts. One ``Sample`` per interval.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from spanload.model.breakdown import Breakdown
from spanload.model.capacity import CapacityResult
from spanload.model.tpcc import TpccSummary

INTENDED_SUFFIX = "_intended"  # "updater.txn" + INTENDED_SUFFIX: timed from the intended start
SERVER_SUFFIX = "_server"  # "updater.txn" + SERVER_SUFFIX: the operation's server-timing


class Op(StrEnum):
    """Operation kinds that carry a latency histogram."""

    UPDATER_TXN = "updater.txn"  # commit latency, from the actual start
    UPDATER_TXN_INTENDED = "updater.txn_intended"  # from the intended (scheduled) start
    WATCHER_POLL = "watcher.poll"  # duration of one poll query
    WATCHER_NOTIFY = "watcher.notify"  # per change: seen-at minus its commit timestamp
    READER_READ = "reader.read"
    READER_READ_INTENDED = "reader.read_intended"
    # server-timing of the same operations (summed over their RPCs), where the target sends it
    UPDATER_TXN_SERVER = "updater.txn_server"
    WATCHER_POLL_SERVER = "watcher.poll_server"
    READER_READ_SERVER = "reader.read_server"
    # failed operations (an error, or their deadline ran out), timed from the actual start; the
    # histograms above keep successes only
    UPDATER_TXN_FAILED = "updater.txn.failed"
    READER_READ_FAILED = "reader.read.failed"
    WATCHER_POLL_FAILED = "watcher.poll.failed"


class Gauge(StrEnum):
    """Per-interval values that are not latencies."""

    UPDATER_TARGET_TPS = "updater.target_tps"
    UPDATER_TPS = "updater.tps"  # achieved transactions/s
    UPDATER_SCHEDULED_TPS = "updater.scheduled_tps"  # arrivals/s the Poisson schedule produced
    UPDATER_MUTATIONS_PS = "updater.mutations_ps"
    UPDATER_BEHIND = "updater.behind"  # operations due but not yet started
    WATCHER_CHANGES_PS = "watcher.changes_ps"
    WATCHER_ROWS_PER_POLL = "watcher.rows_per_poll"
    WATCHER_POLLS_PS = "watcher.polls_ps"
    WATCHER_LAG_MS = "watcher.lag_ms"  # the longest a change waited unreceived in the interval (workers/lag.py)
    READER_TARGET_RPS = "reader.target_rps"
    READER_RPS = "reader.rps"
    READER_SCHEDULED_RPS = "reader.scheduled_rps"
    SESSIONS_IN_USE = "sessions.in_use"
    SESSIONS_IDLE = "sessions.idle"
    SESSIONS_WAITING = "sessions.waiting"
    ERRORS_PS = "errors_ps"
    ABORTS_PS = "aborts_ps"
    SERVER_POLL_AVG_LATENCY_S = "server.poll_avg_latency_s"  # SPANNER_SYS.QUERY_STATS_TOP_MINUTE
    SERVER_POLL_CPU_FRACTION = "server.poll_cpu_fraction"
    SERVER_TXN_AVG_COMMIT_LATENCY_S = "server.txn_avg_commit_latency_s"  # SPANNER_SYS.TXN_STATS_TOP_MINUTE
    SERVER_TXN_AVG_PARTICIPANTS = "server.txn_avg_participants"
    # per report interval, from the local Spanner's SPANNER_SYS.SPANLOAD_COUNTERS (running totals)
    SERVER_COMMIT_PARTICIPANTS = "server.commit_participants"
    SERVER_COMMIT_LATENCY_S = "server.commit_latency_s"
    SERVER_CPU_FRACTION = "server.cpu_fraction"  # process CPU + latency-model CPU, fraction of one CPU
    SERVER_CPU_PER_COMMIT_MS = "server.cpu_per_commit_ms"
    # server CPU (the same counters) per change the watchers received: the aggregator's, engine/change_cost.py
    SERVER_CPU_PER_CHANGE_MS = "server.cpu_per_change_ms"
    # the watcher's own statements' CPU (QUERY_STATS_TOP_MINUTE) per change received in the same minute
    SERVER_WATCH_CPU_PER_CHANGE_MS = "server.watch_cpu_per_change_ms"
    SERVER_SPLITS = "server.splits"
    READER_BEHIND = "reader.behind"
    RETRIES_PS = "retries_ps"
    REPORT_LAG_MS = "worker.report_lag_ms"  # how late a worker sent its report (its busiest, max over workers)
    WORKERS_STALLED = "workers.stalled"  # workers silent for more than the stall threshold (supervisor)
    # TPC-C closed mode: terminals that began a transaction and have not ended (a live change of
    # tpcc.terminals starts or ends them), summed over processes
    TPCC_TERMINALS = "tpcc.terminals"


class Percentiles(BaseModel):
    """Latency percentiles in milliseconds, computed from a merged HdrHistogram."""

    count: int = 0
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    p999: float | None = None
    max: float | None = None
    mean: float | None = None


class Totals(BaseModel):
    """Running totals since the start of the run."""

    transactions: int = 0
    mutations: int = 0
    received_changes: int = 0
    polls: int = 0
    reads: int = 0
    errors: int = 0
    aborts: int = 0


class Sample(BaseModel):
    """One report interval of a run, merged across every worker process."""

    seq: int = Field(ge=0, description="0-based interval number")
    t: float = Field(description="end of the interval, unix seconds")
    elapsed_s: float = Field(description="seconds since the run started, at the end of the interval")
    interval_s: float
    latency: dict[str, Percentiles] = Field(default_factory=dict, description="keyed by Op")
    gauges: dict[str, float] = Field(default_factory=dict, description="keyed by Gauge")
    errors_by_code: dict[str, int] = Field(default_factory=dict, description="gRPC code name -> count")
    totals: Totals = Field(default_factory=Totals)
    by_worker: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="worker index -> that worker's own rates and targets this interval, keyed by Gauge "
        "(updater.tps, updater.target_tps, reader.rps, reader.target_rps, watcher.changes_ps)",
    )
    hdr: dict[str, str] = Field(
        default_factory=dict,
        description="Op -> base64 compressed HdrHistogram of this interval (microseconds)",
    )
    breakdown: dict[str, Breakdown] = Field(
        default_factory=dict, description="Op -> where its time went this interval, mean per operation"
    )
    warmup: bool = Field(
        default=False, description="a warm-up interval (config warmup_s, model.warmup): not in the summary's figures"
    )


MISSING_KEYS_SHOWN = 10  # keys a reconciliation mismatch names, for the user to look the rows up


class Reconciliation(BaseModel):
    """End-of-run proof that the watchers missed and doubled nothing."""

    keys_written: int = 0
    final_versions_received: int = 0
    final_versions_missing: int = 0
    duplicates: int = 0
    superseded_unseen: int = Field(0, description="versions overwritten before any poll could see them")
    ok: bool = False
    versions_written: int = Field(0, description="committed versions of this run's writes, over every key")
    versions_received: int = Field(0, description="distinct versions the watchers received")
    unexpected: int = Field(0, description="received versions this run's updater never committed")
    uncertain_keys: int = Field(0, description="keys left out: a commit of unknown outcome touched them")
    foreign_changes: int = Field(0, description="changes by writers of other runs, not reconciled")
    missing_keys: list[int] = Field(
        default_factory=list,
        description=f"up to {MISSING_KEYS_SHOWN} keys whose final version no watcher received, to look up",
    )
    detail: str = ""


class WorkerCost(BaseModel):
    """One worker process of a run and what its load cost in client CPU."""

    index: int = Field(ge=0)
    runtime: str = Field(description="the worker's language: python or go")
    pid: int = Field(description="the worker process's pid on its host")
    host: str = ""
    node: str | None = Field(None, description="the Ray node it ran on; null for a local child process")
    operations: int = Field(0, description="transactions + polls + reads it completed")
    cpu_s: float | None = Field(None, description="CPU seconds the worker used from begin to its last report")
    cpu_ms_per_op: float | None = Field(None, description="cpu_s per operation, in milliseconds")


class StopInfo(BaseModel):
    """How a stopped run ended: did every worker drain and exit within the grace?"""

    graceful: bool = Field(description="every worker stopped and exited by itself within the grace")
    grace_s: float = Field(description="SPANLOAD_STOP_GRACE_S at the time")
    killed_workers: list[int] = Field(default_factory=list, description="indexes of workers killed at the grace")
    detail: str = ""


class Summary(BaseModel):
    """Whole-run figures, from histograms merged over every interval."""

    duration_s: float = 0.0
    warmup_s: float = Field(
        default=0.0,
        description="seconds of warm-up intervals left out of latency, rates and breakdown (totals count them)",
    )
    latency: dict[str, Percentiles] = Field(default_factory=dict)
    rates: dict[str, float] = Field(default_factory=dict, description="whole-run averages keyed by Gauge")
    unavailable: dict[str, str] = Field(
        default_factory=dict,
        description="Gauge -> why the run has no figure for it (SPANNER_SYS minute figures: model.server_minute)",
    )
    totals: Totals = Field(default_factory=Totals)
    errors_by_code: dict[str, int] = Field(default_factory=dict)
    reconciliation: Reconciliation | None = None
    workers: list[WorkerCost] = Field(default_factory=list, description="one per worker process, by index")
    stop: StopInfo | None = Field(default=None, description="how a stopped run's workers ended; None if it failed")
    breakdown: dict[str, Breakdown] = Field(
        default_factory=dict, description="Op -> where its time went over the whole run, mean per operation"
    )
    tpcc: TpccSummary | None = Field(
        default=None, description="workload tpcc: tpmC, the mix, aborts and retries per type, consistency 1-4"
    )
    capacity: CapacityResult | None = Field(
        default=None, description="a capacity search's knee, what broke it, and every step's figures"
    )
