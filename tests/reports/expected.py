"""The charts a report of tests/store/stored_run.py's run draws, worked out from what its samples
hold (sample_factory.py): the updater's rate and target, three operations' latency (the updater's
also from its intended start), the watcher's changes, errors and aborts, the session pool; then the
latency distributions."""

from __future__ import annotations

RUN_CHARTS = {
    "chart-throughput": ["updater.tps", "updater.target_tps"],
    "chart-latency-updater-txn": ["p50", "p90", "p99", "max", "p99 from the intended start"],
    "chart-latency-watcher-poll": ["p50", "p90", "p99", "max"],
    "chart-latency-watcher-notify": ["p50", "p90", "p99", "max"],
    "chart-watcher": ["watcher.changes_ps"],
    "chart-errors": ["errors_ps", "aborts_ps"],
    "chart-sessions": ["sessions.in_use", "sessions.idle", "sessions.waiting"],
    # whole-run percentiles; the updater's milliseconds apart from the watcher's tens and hundreds
    "chart-distribution-0": ["updater.txn"],
    "chart-distribution-1": ["watcher.poll", "watcher.notify"],
}
