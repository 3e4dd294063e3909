"""Live changes seen in what the workers do, not only in the event or the target gauge (issue 30,
"Untested"): a patched read rate in the reads the workers count, a patched poll interval in the
polls the watcher runs, a patched number of TPC-C terminals in the terminals the worker runs.

Real worker processes (both runtimes where the workload runs on both), the official clients, the
local Spanner. A rate is compared as the median of per-interval counts over several whole
intervals before and after the patch, with a wide margin (10x or 5x asked, 3x required): counts,
not durations, and no single interval decides.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
from collections.abc import Callable
from typing import Any

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import ConfigPatch, RunConfig, WorkerRuntime
from spanload.model.presets import get_preset
from spanload.model.samples import Gauge, Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_supervisor import Recorder
from tests.engine.test_tpcc_e2e import TINY

pytestmark = pytest.mark.timeout(120)

INTERVALS = 4  # whole intervals counted on each side of a patch
WAIT_S = 60.0  # for the samples a step needs: the worker's start (imports, schema) on a loaded machine


async def _samples(sink: Recorder, count: int, what: str) -> None:
    """Until ``sink`` holds ``count`` samples; fails at once if the run failed, or after WAIT_S."""
    for _ in range(int(WAIT_S / 0.05)):
        if sink.states and sink.states[-1][0] is RunState.FAILED:
            raise AssertionError(f"the run failed waiting for {what}: {sink.states[-1][1]}")
        if len(sink.samples) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {what} within {WAIT_S:.0f} s ({len(sink.samples)} samples)")


def run_around_patch(config: RunConfig, run_id: str, patch: dict[str, Any]) -> tuple[list[Sample], int]:
    """Run ``config``, patch it live once it reported INTERVALS + 1 samples, stop once INTERVALS + 2
    more came. Returns the samples and how many there were when the patch was sent."""

    async def scenario() -> tuple[list[Sample], int]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start(run_id, config)
        try:
            await _samples(sink, INTERVALS + 1, f"{INTERVALS + 1} samples before the patch")
            seen = len(sink.samples)
            await supervisor.patch(run_id, ConfigPatch.model_validate(patch), "test")
            await _samples(sink, seen + INTERVALS + 2, f"{INTERVALS + 2} samples after the patch")
        finally:
            await supervisor.stop(run_id)
        return sink.samples, seen

    return asyncio.run(scenario())


def counts_around(samples: list[Sample], seen: int, total: Callable[[Sample], int]) -> tuple[list[int], list[int]]:
    """What each whole interval added to a running total (Sample.totals are cumulative), before the
    patch (the first interval left out: the worker's start) and after it (the two it may have
    landed in left out: part old, part new)."""
    added = [total(b) - total(a) for a, b in itertools.pairwise(samples)]  # added[i]: sample i + 1's
    return added[: seen - 1][-INTERVALS:], added[seen + 1 :][:INTERVALS]


def assert_grew(before: list[int], after: list[int], factor: float, what: str) -> None:
    """The median interval after is at least ``factor`` times the median before (and above it)."""
    low, high = statistics.median(before), statistics.median(after)
    assert high >= factor * max(low, 1), f"{what} an interval: {before} before the patch, {after} after"


def test_a_live_read_rate_and_poll_interval_show_in_the_reads_and_polls_the_workers_run(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """One run, one patch of both: the read rate 2 -> 20/s and the poll interval 1000 -> 200 ms."""
    config = local_spanner.config(
        {
            "updater": {"transactions_per_second": 1, "mutations_per_transaction": 1},
            "watcher": {"poll_interval_ms": 1000},
            "reader": {"enabled": True, "reads_per_second": 2},
        },
        runtime=runtime,
    )
    patch = {"reader": {"reads_per_second": 20}, "watcher": {"poll_interval_ms": 200}}
    samples, seen = run_around_patch(config, "reads-and-polls", patch)
    before, after = counts_around(samples, seen, lambda s: s.totals.reads)
    assert_grew(before, after, 3, "reads")
    before, after = counts_around(samples, seen, lambda s: s.totals.polls)
    assert_grew(before, after, 3, "polls")


REACH = 60  # samples a change of terminals may take to show: ending one waits for its transaction
HOLD = 4  # samples the new count must then hold


def _terminals(samples: list[Sample]) -> list[float | None]:
    return [s.gauges.get(Gauge.TPCC_TERMINALS) for s in samples]


async def _reach(sink: Recorder, seen: int, new: float) -> list[float | None]:
    """tpcc.terminals from sample ``seen`` (the first after the patch) until it reads ``new``, then
    HOLD samples more; fails if it does not within REACH samples. Counts of samples, not seconds: a
    slow transaction on a loaded machine delays the count, it does not fail the test."""
    for count in range(seen + 1, seen + REACH + 1):
        await _samples(sink, count, f"sample {count - seen} after the patch to {new:g} terminals")
        if sink.samples[count - 1].gauges.get(Gauge.TPCC_TERMINALS) == new:
            await _samples(sink, count + HOLD, f"{HOLD} samples after tpcc.terminals reached {new:g}")
            return _terminals(sink.samples[seen : count + HOLD])
    raise AssertionError(f"tpcc.terminals not {new:g} in {REACH} samples: {_terminals(sink.samples[seen:])}")


def test_a_live_number_of_tpcc_terminals_is_the_number_the_workers_run(local_spanner: LocalTarget) -> None:
    """TPC-C runs on the Python workers only (one process here: two take 5 s more to start; the
    aggregator's test adds the processes' counts). A patch up starts terminals, a patch down ends
    some after their transaction; tpcc.terminals counts those that began a transaction and have not
    ended. After each patch the gauge reaches the new count (however many samples that takes, up
    to REACH), holds it for HOLD samples, and on the way only moves from the old count towards it."""
    config = get_preset("tpcc-1w").config.merged(
        {
            "duration_s": 120,
            "warmup_s": 0.0,
            "report_interval_s": 0.5,
            "target": local_spanner.config().target.model_dump(),
            "tpcc": {**TINY, "terminals": 2},
        }
    )

    async def scenario() -> list[list[float | None]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("terminals", config)
        parts: list[list[float | None]] = []
        try:
            await _samples(sink, INTERVALS + 1, f"{INTERVALS + 1} samples before the patch")
            parts.append(_terminals(sink.samples[1:]))
            for terminals in (6, 3):
                seen = len(sink.samples)
                await supervisor.patch("terminals", ConfigPatch.model_validate({"tpcc": {"terminals": terminals}}), "t")
                parts.append(await _reach(sink, seen, terminals))
        finally:
            await supervisor.stop("terminals")
        return parts

    before, grown, shrunk = asyncio.run(scenario())
    assert before == [2.0] * len(before), before
    for old, new, seen in ((2.0, 6.0, grown), (6.0, 3.0, shrunk)):
        # it holds the new count once reached; on the way it only moves from the old count towards it
        assert seen[-HOLD - 1 :] == [new] * (HOLD + 1), (old, new, seen)
        between = [v for v in seen if v is not None and min(old, new) <= v <= max(old, new)]
        assert between == seen and seen == sorted(between, reverse=new < old), (old, new, seen)
