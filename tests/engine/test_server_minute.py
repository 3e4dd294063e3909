"""Issue 23: SPANNER_SYS minute figures belong to the run that was measured in that minute.

Two consecutive runs with different poll costs on one database (no table hint over a preloaded table,
then the hint): neither 30 s run holds a complete minute of its own (one that starts at or after the
run's begin and ends by its last interval), so neither may show a minute figure at all, and each
summary says why. Before the fix the second run showed the first run's minute for its whole length.
The figures come from the real clients against the local Spanner, whose SPANNER_SYS tables are
closed one-minute buckets of wall-clock time, as Spanner's are. Each runtime's pair runs on a
database of its own, the two pairs at once: the test waits one pair's minute instead of two.
"""

from __future__ import annotations

import asyncio

import pytest

from spanload.model.config import WorkerRuntime
from spanload.model.samples import Gauge
from tests.engine.conftest import LocalTarget
from tests.engine.test_preload import PreloadRecorder, _run

pytestmark = pytest.mark.timeout(300)

MINUTE_GAUGES = (
    Gauge.SERVER_POLL_AVG_LATENCY_S,
    Gauge.SERVER_POLL_CPU_FRACTION,
    Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S,
    Gauge.SERVER_TXN_AVG_PARTICIPANTS,
)
NO_MINUTE = "no complete minute inside the run yet"  # the wording
RUNTIMES = (WorkerRuntime.PYTHON, WorkerRuntime.GO)


async def _two_runs(local: LocalTarget, runtime: WorkerRuntime) -> dict[bool, PreloadRecorder]:
    """The runtime's two consecutive runs on a database of its own: no table hint, then the hint."""
    database = f"minute-{runtime.value}"
    sinks = {}
    for hint in (False, True):
        config = local.config(
            {
                "duration_s": 30,
                "preload": {"rows": 20_000},
                "updater": {"transactions_per_second": 20, "mutations_per_transaction": 5},
                "watcher": {"table_hint": hint, "poll_interval_ms": 100},
            },
            database=database,
            runtime=runtime,
        )
        sinks[hint] = await _run(config, f"minute-{runtime.value}-{hint}")
    return sinks


def test_a_30s_run_never_shows_another_runs_minute(local_spanner: LocalTarget) -> None:
    """Each runtime's pair of runs, the two pairs at once (SPANNER_SYS is per database, so neither
    pair sees the other's minutes)."""

    async def both() -> list[dict[bool, PreloadRecorder]]:
        return await asyncio.gather(*(_two_runs(local_spanner, runtime) for runtime in RUNTIMES))

    for runtime, sinks in zip(RUNTIMES, asyncio.run(both()), strict=True):
        for hint, sink in sinks.items():
            summary = sink.summary
            assert summary is not None and summary.totals.polls > 100 and summary.totals.transactions > 100
            shown = [(s.seq, g.value, s.gauges[g]) for s in sink.samples for g in MINUTE_GAUGES if g in s.gauges]
            assert shown == [], f"{runtime.value}, hint={hint}: minute figures from outside the run: {shown[:4]}"
            assert not set(summary.rates) & set(MINUTE_GAUGES), summary.rates
            # what the run did is wanted at the server too: poll and commit figures are n/a, with the reason
            # (the watcher's own CPU per change comes from those minutes too; the local Spanner's
            # counters give the server's whole CPU per change)
            minute_figures = [*MINUTE_GAUGES, Gauge.SERVER_WATCH_CPU_PER_CHANGE_MS]
            assert summary.unavailable == {g.value: NO_MINUTE for g in minute_figures}
            assert summary.rates[Gauge.SERVER_CPU_PER_CHANGE_MS] > 0
