"""GET /metrics: the runs and the control plane in Prometheus' exposition format (for Grafana).

Rendered by prometheus-client from a registry of this scrape's own (never the process-wide default
one) holding one collector over the hub's live state (:mod:`spanload.control.run_metrics`). Every
family has one quantity and its unit in its name (seconds, ``_per_second``, ``_ratio``); a workload
definition's operations (``op.<op>...``) are values of the ``operation`` label, as the built-in
ones (``updater.txn``, ``reader.read``, ``watcher.poll``) are.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping

from fastapi import APIRouter, Request, Response
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from spanload.api.deps import HubDep, SessionDep
from spanload.control.hub import Hub
from spanload.control.run_metrics import LATENCY_BUCKETS_S, Quantity, RunSeries, classify
from spanload.model import op_metrics
from spanload.model.op_metrics import OpGauge
from spanload.model.samples import Gauge, Op, Sample
from spanload.model.state import RunState
from spanload.store import runs as run_store

router = APIRouter(tags=["metrics"])

RUN = ("run_id",)
RUN_OP = ("run_id", "operation")

LATENCY_FAMILIES: dict[Quantity, tuple[str, str, tuple[str, ...]]] = {
    Quantity.LATENCY: (
        "spanload_operation_latency_seconds",
        "successful executions, timed from their actual start",
        RUN_OP,
    ),
    Quantity.INTENDED: (
        "spanload_operation_intended_latency_seconds",
        "successful executions, timed from their intended (scheduled) start: queueing included",
        RUN_OP,
    ),
    Quantity.SERVER: (
        "spanload_operation_server_latency_seconds",
        "server-timing of an execution, summed over its RPCs, where the target sends it",
        RUN_OP,
    ),
    Quantity.FAILED: (
        "spanload_operation_failed_latency_seconds",
        "failed executions (an error or their deadline), timed from their actual start",
        RUN_OP,
    ),
    Quantity.NOTIFY: (
        "spanload_watcher_notification_latency_seconds",
        "per change received: when a watcher saw it minus its commit timestamp",
        RUN,
    ),
}

# operation -> (target, achieved, scheduled, behind) gauges of the built-in workers
BUILTIN_RATES: dict[str, tuple[str | None, str, str | None, str | None]] = {
    Op.UPDATER_TXN: (Gauge.UPDATER_TARGET_TPS, Gauge.UPDATER_TPS, Gauge.UPDATER_SCHEDULED_TPS, Gauge.UPDATER_BEHIND),
    Op.READER_READ: (Gauge.READER_TARGET_RPS, Gauge.READER_RPS, Gauge.READER_SCHEDULED_RPS, Gauge.READER_BEHIND),
    Op.WATCHER_POLL: (None, Gauge.WATCHER_POLLS_PS, None, None),
}
OP_RATE_FAMILIES = {
    "target": ("spanload_operation_target_per_second", "executions per second asked for (open loop)"),
    "achieved": ("spanload_operation_achieved_per_second", "executions per second that succeeded, latest interval"),
    "scheduled": ("spanload_operation_scheduled_per_second", "arrivals per second the schedule produced"),
    "behind": ("spanload_operation_behind", "arrivals due but not started, at the latest interval's end"),
    "in_flight": ("spanload_operation_in_flight", "executions going on, at the latest interval's end"),
}
OP_GAUGE_ROLE = {
    OpGauge.TARGET_PS: "target",
    OpGauge.PS: "achieved",
    OpGauge.SCHEDULED_PS: "scheduled",
    OpGauge.BEHIND: "behind",
    OpGauge.IN_FLIGHT: "in_flight",
}

# run-level gauges of the latest sample: Gauge -> (family, scale to the family's unit, help)
RUN_GAUGES: dict[str, tuple[str, float, str]] = {
    Gauge.UPDATER_MUTATIONS_PS: ("spanload_updater_mutations_per_second", 1.0, "mutations committed per second"),
    Gauge.WATCHER_CHANGES_PS: ("spanload_watcher_changes_per_second", 1.0, "changes the watchers received per second"),
    Gauge.WATCHER_ROWS_PER_POLL: ("spanload_watcher_rows_per_poll", 1.0, "rows a poll returned, mean"),
    Gauge.WATCHER_LAG_MS: ("spanload_watcher_lag_seconds", 1e-3, "the longest a change waited unreceived"),
    Gauge.SERVER_POLL_AVG_LATENCY_S: (
        "spanload_server_poll_latency_seconds",
        1.0,
        "the poll query's mean latency at the server, last minute (SPANNER_SYS.QUERY_STATS_TOP_MINUTE)",
    ),
    Gauge.SERVER_POLL_CPU_FRACTION: (
        "spanload_server_poll_cpu_ratio",
        1.0,
        "the poll query's share of the server's CPU, last minute (SPANNER_SYS.QUERY_STATS_TOP_MINUTE)",
    ),
    Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S: (
        "spanload_server_txn_commit_latency_seconds",
        1.0,
        "mean commit latency at the server, last minute (SPANNER_SYS.TXN_STATS_TOP_MINUTE)",
    ),
    Gauge.SERVER_TXN_AVG_PARTICIPANTS: (
        "spanload_server_txn_participants",
        1.0,
        "mean participants of a commit, last minute (SPANNER_SYS.TXN_STATS_TOP_MINUTE)",
    ),
    Gauge.SERVER_COMMIT_PARTICIPANTS: (
        "spanload_server_commit_participants",
        1.0,
        "mean participants of a commit, latest interval (local Spanner)",
    ),
    Gauge.SERVER_COMMIT_LATENCY_S: (
        "spanload_server_commit_latency_seconds",
        1.0,
        "mean commit latency at the server, latest interval (local Spanner)",
    ),
    Gauge.SERVER_CPU_FRACTION: (
        "spanload_server_cpu_ratio",
        1.0,
        "the server's CPU as a fraction of one CPU, latest interval (local Spanner)",
    ),
    Gauge.SERVER_CPU_PER_COMMIT_MS: (
        "spanload_server_cpu_per_commit_seconds",
        1e-3,
        "server CPU per commit, latest interval (local Spanner)",
    ),
    Gauge.SERVER_CPU_PER_CHANGE_MS: (
        "spanload_server_cpu_per_change_seconds",
        1e-3,
        "server CPU per change the watchers received, latest interval (local Spanner)",
    ),
    Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS: (
        "spanload_server_watch_cpu_per_change_seconds",
        1e-3,
        "the watcher's statements' CPU per change received, last minute (SPANNER_SYS.QUERY_STATS_TOP_MINUTE)",
    ),
    Gauge.SERVER_SPLITS: ("spanload_server_splits", 1.0, "splits of the workload's table (local Spanner)"),
    Gauge.REPORT_LAG_MS: ("spanload_worker_report_lag_seconds", 1e-3, "how late the latest worker report came"),
    Gauge.WORKERS_STALLED: ("spanload_workers_stalled", 1.0, "worker processes silent past the stall threshold"),
}
SESSION_STATES = {Gauge.SESSIONS_IN_USE: "in_use", Gauge.SESSIONS_IDLE: "idle", Gauge.SESSIONS_WAITING: "waiting"}
TOTALS = {
    "transactions": "transactions committed",
    "mutations": "mutations committed",
    "received_changes": "changes the watchers received",
    "polls": "watcher polls",
    "reads": "reads",
    "aborts": "transactions the server aborted",
}


def _operation_rates(sample: Sample) -> Iterator[tuple[str, str, float]]:
    """(role, operation, value) of every operation's rate gauges in a sample."""
    seen: set[tuple[str, str]] = set()
    for op, gauges in BUILTIN_RATES.items():
        for role, gauge in zip(("target", "achieved", "scheduled", "behind"), gauges, strict=True):
            if gauge is not None and gauge in sample.gauges:
                seen.add((role, op))
                yield role, op, sample.gauges[gauge]
    for gauge, value in sample.gauges.items():
        parsed = op_metrics.split(gauge)
        if parsed is not None and parsed[1] in OP_GAUGE_ROLE:
            seen.add((OP_GAUGE_ROLE[OpGauge(parsed[1])], parsed[0]))
            yield OP_GAUGE_ROLE[OpGauge(parsed[1])], parsed[0], value
    # an interval without a success has no achieved gauge (the aggregator derives it from a counter
    # that is absent): against a target, that is 0/s, not no figure
    for _, op in sorted(seen):
        if ("target", op) in seen and ("achieved", op) not in seen:
            seen.add(("achieved", op))
            yield "achieved", op, 0.0


class SpanloadCollector(Collector):
    """The hub's runs and the control plane's health, collected at each scrape."""

    def __init__(self, hub: Hub, runs_by_state: Mapping[RunState, int], names: Mapping[str, str]) -> None:
        self.hub = hub
        self.runs_by_state = runs_by_state
        self.names = names

    def collect(self) -> Iterator[Metric]:
        self.hub.metrics.prune(time.time())
        runs = sorted(self.hub.metrics.runs.items())
        yield from self._control_plane()
        info = GaugeMetricFamily("spanload_run_info", "runs /metrics has series of", labels=[*RUN, "name", "state"])
        for run_id, series in runs:
            info.add_metric([run_id, self.names.get(run_id, ""), series.state.value], 1)
        yield info
        yield from self._histograms(runs)
        yield from self._rates(runs)
        yield from self._breakdown(runs)
        yield from self._gauges(runs)
        yield from self._counters(runs)

    def _control_plane(self) -> Iterator[Metric]:
        by_state = GaugeMetricFamily("spanload_runs", "runs in the store by state (newest 1000)", labels=["state"])
        for state, count in self.runs_by_state.items():
            by_state.add_metric([state.value], count)
        yield by_state
        yield GaugeMetricFamily("spanload_live_viewers", "websocket viewers connected", value=self.hub.viewer_count())
        yield CounterMetricFamily(
            "spanload_live_viewers_dropped_total", "viewers dropped for falling behind", value=self.hub.viewers_dropped
        )
        writer = self.hub.writer
        yield GaugeMetricFamily(
            "spanload_store_writer_lag_seconds", "how long the oldest unapplied store write has waited", writer.lag_s()
        )
        yield GaugeMetricFamily("spanload_store_writer_pending", "store writes not applied yet", writer.pending())
        yield CounterMetricFamily(
            "spanload_store_writer_dropped_total", "store writes dropped (queue full)", value=writer.dropped
        )
        yield CounterMetricFamily("spanload_store_writer_failed_total", "store writes that failed", value=writer.failed)

    def _histograms(self, runs: list[tuple[str, RunSeries]]) -> Iterator[Metric]:
        families = {
            q: HistogramMetricFamily(name, help_text + ", since the run began", labels=list(labels))
            for q, (name, help_text, labels) in LATENCY_FAMILIES.items()
        }
        for run_id, series in runs:
            for (quantity, operation), buckets in sorted(series.histograms.items()):
                labels = [run_id] if LATENCY_FAMILIES[quantity][2] == RUN else [run_id, operation]
                points = [(str(b), c) for b, c in zip(LATENCY_BUCKETS_S, buckets.cumulative, strict=True)]
                families[quantity].add_metric(labels, [*points, ("+Inf", buckets.count)], buckets.sum_s)
        yield from families.values()

    def _rates(self, runs: list[tuple[str, RunSeries]]) -> Iterator[Metric]:
        families = {
            role: GaugeMetricFamily(name, help_text, labels=list(RUN_OP))
            for role, (name, help_text) in OP_RATE_FAMILIES.items()
        }
        for run_id, series in runs:
            if series.latest is not None:
                for role, operation, value in sorted(_operation_rates(series.latest)):
                    families[role].add_metric([run_id, operation], value)
        yield from families.values()

    def _breakdown(self, runs: list[tuple[str, RunSeries]]) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "spanload_operation_breakdown_seconds",
            "where an execution's time went (intended start to end), mean per execution, latest interval: "
            "queue, session_wait, client, server (or server_frontend and query_commit)",
            labels=[*RUN_OP, "part"],
        )
        for run_id, series in runs:
            latest = series.latest.breakdown if series.latest is not None else {}
            for key, breakdown in sorted(latest.items()):
                operation = classify(key)[1]
                for part in breakdown.parts:
                    family.add_metric([run_id, operation, part.part.value], part.ms / 1000.0)
        yield family

    def _gauges(self, runs: list[tuple[str, RunSeries]]) -> Iterator[Metric]:
        families = {g: GaugeMetricFamily(name, h, labels=list(RUN)) for g, (name, _, h) in RUN_GAUGES.items()}
        sessions = GaugeMetricFamily(
            "spanload_sessions", "the client's session pool, latest interval", labels=[*RUN, "state"]
        )
        for run_id, series in runs:
            gauges = series.latest.gauges if series.latest is not None else {}
            for gauge, (_, scale, _) in RUN_GAUGES.items():
                if gauge in gauges:
                    families[gauge].add_metric([run_id], gauges[gauge] * scale)
            for gauge, state in SESSION_STATES.items():
                if gauge in gauges:
                    sessions.add_metric([run_id, state], gauges[gauge])
        yield from families.values()
        yield sessions

    def _counters(self, runs: list[tuple[str, RunSeries]]) -> Iterator[Metric]:
        errors = CounterMetricFamily(
            "spanload_errors_total", "failed operations by gRPC code, since the run began", labels=[*RUN, "code"]
        )
        retries = CounterMetricFamily(
            "spanload_retries_total", "transactions retried after an abort, since the run began", labels=list(RUN)
        )
        totals = {
            kind: CounterMetricFamily(f"spanload_{kind}_total", f"{h}, since the run began", labels=list(RUN))
            for kind, h in TOTALS.items()
        }
        for run_id, series in runs:
            for code, count in sorted(series.errors_by_code.items()):
                errors.add_metric([run_id, code], count)
            retries.add_metric([run_id], series.retries)
            for kind, family in totals.items():
                family.add_metric([run_id], getattr(series.totals, kind))
        yield errors
        yield retries
        yield from totals.values()


TEXT = {"schema": {"type": "string"}}


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": TEXT, "application/openmetrics-text": TEXT}}},
)
def metrics(request: Request, session: SessionDep, hub: HubDep) -> Response:
    """Per run: throughput target and achieved, latency histograms, errors, sessions, server stats;
    and the control plane's health. OpenMetrics when the scraper asks for it."""
    rows, _ = run_store.list_runs(session, limit=1000)
    by_state = dict.fromkeys(RunState, 0)
    for row in rows:
        by_state[row.status] += 1
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SpanloadCollector(hub, by_state, {row.id: row.name for row in rows}))
    encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encoder(registry), media_type=content_type)
