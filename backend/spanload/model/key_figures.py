"""Each workload's key figures: what its field report measured, the figures a comparison opens with.

Names are compare's metric names (``control/compare.flatten_summary``): ``latency.<op>.<field>``
(milliseconds), ``rates.<gauge>``, ``tpcc.tpmc``. Labels name the unit the UI shows: it shows the
server latencies that come in seconds (``rates.server.*_latency_s``) in milliseconds, as every
latency. The Change Watcher report's table hint moves the poll's time at the server and at the
client; its tx/s and notification latency come after them.
"""

from __future__ import annotations

from collections.abc import Iterable

from spanload.model.config import Workload

KEY_FIGURES: dict[Workload, tuple[tuple[str, str], ...]] = {
    Workload.CHANGE_WATCHER: (
        ("latency.watcher.poll_server.p50", "poll at the server p50 (ms, server-timing)"),
        ("latency.watcher.poll.p50", "poll at the client p50 (ms)"),
        ("rates.server.poll_avg_latency_s", "poll at the server, SPANNER_SYS avg (ms)"),
        ("latency.watcher.poll.p99", "poll at the client p99 (ms)"),
        ("latency.watcher.notify.p50", "change notification p50 (ms)"),
        ("latency.watcher.notify.p99", "change notification p99 (ms)"),
        ("rates.server.cpu_per_change_ms", "server CPU per change (ms)"),
        ("rates.updater.tps", "achieved tx/s"),
        ("latency.updater.txn.p50", "updater latency p50 (ms)"),
    ),
    Workload.WRITE_BENCHMARK: (
        ("rates.updater.tps", "achieved tx/s"),
        ("latency.updater.txn.p50", "updater latency p50 (ms)"),
        ("latency.updater.txn.p99", "updater latency p99 (ms)"),
        ("latency.updater.txn_intended.p99", "updater p99 from intended start (ms)"),
        ("rates.reader.rps", "reads/s"),
        ("latency.reader.read.p99", "reader latency p99 (ms)"),
    ),
    Workload.SESSION_POOL: (
        ("latency.reader.read_intended.p99", "reader p99 from intended start (ms)"),
        ("latency.reader.read_server.p50", "reader at the server p50 (ms)"),
        ("rates.sessions.waiting", "sessions waiting"),
        ("rates.reader.rps", "reads/s"),
        ("latency.updater.txn_intended.p99", "writer p99 from intended start (ms)"),
    ),
    Workload.PARTICIPANTS: (
        ("rates.server.commit_participants", "participants per commit"),
        ("rates.server.commit_latency_s", "server commit latency (ms)"),
        ("latency.updater.txn.p50", "commit latency p50 (ms)"),
        ("rates.server.cpu_per_commit_ms", "server CPU per commit (ms)"),
        ("rates.updater.tps", "achieved tx/s"),
    ),
    Workload.TPCC: (
        ("tpcc.tpmc", "tpmC"),
        ("latency.tpcc.new_order.p99", "New-Order p99 (ms)"),
        ("latency.tpcc.payment.p99", "Payment p99 (ms)"),
        ("rates.aborts_ps", "aborts/s"),
    ),
}
COMMON = (("rates.errors_ps", "errors/s"),)


def key_figures(workloads: Iterable[Workload]) -> list[tuple[str, str]]:
    """The key figures of every workload given (each once, in the order first seen), then errors/s."""
    out: dict[str, str] = {}
    for workload in workloads:
        for metric, label in KEY_FIGURES.get(workload, ()):
            out.setdefault(metric, label)
    for metric, label in COMMON:
        out.setdefault(metric, label)
    return list(out.items())
