"""Issue 23: SPANNER_SYS minute figures belong to the run that was measured in that minute.

Two consecutive runs with different poll costs on one database (no table hint over a preloaded table,
then the hint): neither 30 s run holds a complete minute of its own (one that starts at or after the
run's begin and ends by its last interval), so neither may show a minute figure at all, and each
summary says why. Before the fix the second run showed the first run's minute for its whole length.
The figures come from the real clients against the local Spanner, whose SPANNER_SYS tables are
closed one-minute buckets of wall-clock time, as Spanner's are.
"""

from __future__ import annotations

import asyncio

import pytest

from spanload.model.config import WorkerRuntime
from spanload.model.samples import Gauge
from tests.engine.conftest import LocalTarget
from tests.engine.test_preload import _run

pytestmark = pytest.mark.timeout(300)

MINUTE_GAUGES = (
    Gauge.SERVER_POLL_AVG_LATENCY_S,
    Gauge.SERVER_POLL_CPU_FRACTION,
    Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S,
    Gauge.SERVER_TXN_AVG_PARTICIPANTS,
)
NO_MINUTE = "no complete minute inside the run yet"  # the wording


def test_a_30s_run_never_shows_another_runs_minute(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    database = f"minute-{runtime.value}"
    sinks = {}
    for hint in (False, True):
        config = local_spanner.config(
            {
                "duration_s": 30,
                "preload": {"rows": 20_000},
                "updater": {"transactions_per_second": 20, "mutations_per_transaction": 5},
                "watcher": {"table_hint": hint, "poll_interval_ms": 100},
            },
            database=database,
            runtime=runtime,
        )
        sinks[hint] = asyncio.run(_run(config, f"minute-{hint}"))
    for hint, sink in sinks.items():
        summary = sink.summary
        assert summary is not None and summary.totals.polls > 100 and summary.totals.transactions > 100
        shown = [(s.seq, g.value, s.gauges[g]) for s in sink.samples for g in MINUTE_GAUGES if g in s.gauges]
        assert shown == [], f"hint={hint}: minute figures from outside the run: {shown[:4]}"
        assert not set(summary.rates) & set(MINUTE_GAUGES), summary.rates
    for sink in sinks.values():
        # what the run did is wanted at the server too: poll and commit figures are n/a, with the reason
        assert sink.summary is not None
        assert sink.summary.unavailable == {g.value: NO_MINUTE for g in MINUTE_GAUGES}
