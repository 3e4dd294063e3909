"""Issue 29: a watch whose mode is a knob switches live between polling and its change stream,
poll -> change_stream -> poll, under the real supervisor against the local Spanner, in both
runtimes; each hand-over receives every change once (the old watcher up to its timestamp, the new
one after it), so the reconciliation stays exact against the database (test_definition_versions_e2e's
checks), and each switch is an event on the run's timeline."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.events import EventKind
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.model.workload import WorkloadDefinition
from spanload.model.workload_file import validate_data
from tests.engine.conftest import LocalTarget
from tests.engine.test_definition_e2e import query
from tests.engine.test_definition_versions_e2e import SHARDS, check_against_the_database, prepared, versioned
from tests.engine.test_preload import PreloadRecorder

pytestmark = pytest.mark.timeout(240)

SAMPLES_PER_PHASE = 3  # report intervals (1 s) each mode runs before the next switch


def switchable() -> WorkloadDefinition:
    """The versioned test definition with ``watch.mode: $watch_mode`` (poll first), sharded pollers."""
    data = versioned("poll", shards={"column": "ShardId", "values": SHARDS}).model_dump(mode="json", exclude_unset=True)
    data["knobs"]["watch_mode"] = {"default": "poll", "choices": ["poll", "change_stream"]}
    data["watch"]["mode"] = "$watch_mode"
    return validate_data(data)


WAIT_S = 60.0  # a phase's samples or a switch's event that do not come fail the test, naming what


async def _until(what: str, sink: PreloadRecorder, done: Callable[[], bool]) -> None:
    try:
        async with asyncio.timeout(WAIT_S):
            while not done():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"no {what} within {WAIT_S:g} s; events: {sink.events}") from None


async def _samples(sink: PreloadRecorder, n: int) -> None:
    seen = len(sink.samples)
    await _until(f"{n} samples", sink, lambda: len(sink.samples) >= seen + n)


async def _switched(sink: PreloadRecorder, n: int) -> None:
    await _until(f"switch {n}", sink, lambda: sum(kind is EventKind.WATCH_MODE for kind, _ in sink.events) >= n)


async def _patched_run(
    config: RunConfig,
    run_id: str,
    knobs: list[dict[str, Any]],
    settled: Callable[[PreloadRecorder, int], Awaitable[None]] | None = None,
) -> PreloadRecorder:
    """A run under the supervisor: SAMPLES_PER_PHASE samples, then each knob patch in turn (the
    n-th waited for by ``settled(sink, n)``, if given) and SAMPLES_PER_PHASE samples more; stopped."""
    sink = PreloadRecorder()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    await _samples(sink, SAMPLES_PER_PHASE)
    for n, values in enumerate(knobs, start=1):
        await supervisor.patch(run_id, ConfigPatch.model_validate({"knobs": values}), "test")
        if settled is not None:
            await settled(sink, n)
        await _samples(sink, SAMPLES_PER_PHASE)
    await supervisor.stop(run_id)
    await asyncio.wait_for(supervisor.wait_finished(run_id), 120)
    return sink


@pytest.mark.parametrize("runtime", ["python", "go"])
def test_a_run_that_switches_poll_stream_poll_reconciles_exactly(local_spanner: LocalTarget, runtime: str) -> None:
    # one watcher: a stream's followers each see every change, and received_changes stays one a change
    config = prepared(local_spanner, switchable(), {"processes": 2, "knobs": {"watchers": 1}}, runtime)

    patches = [{"watch_mode": "change_stream"}, {"watch_mode": "poll"}]
    sink = asyncio.run(asyncio.wait_for(_patched_run(config, "switch", patches, _switched), 200))
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    switches = [c for kind, c in sink.events if kind is EventKind.WATCH_MODE]
    assert [(c["previous"], c["mode"], c["error"]) for c in switches] == [
        ("poll", "change_stream", None),
        ("change_stream", "poll", None),
    ]
    handovers = [dt.datetime.fromisoformat(str(c["handover"])) for c in switches]
    assert handovers == sorted(handovers)
    # the stream the switch made exists: the second phase read it
    ((streams,),) = query(
        local_spanner,
        config,
        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.CHANGE_STREAMS WHERE CHANGE_STREAM_NAME = 'SpanloadWatch_Versioned'",
    )
    assert streams == 1
    assert sink.summary is not None
    assert [w.runtime for w in sink.summary.workers] == [runtime, runtime]
    check_against_the_database(local_spanner, config, sink.summary, context=f"hand-overs: {handovers}")


@pytest.mark.parametrize("runtime", ["python", "go"])
def test_a_second_stream_reader_patched_in_receives_from_then_on(local_spanner: LocalTarget, runtime: str) -> None:
    """The readers knob is live in both runtimes: watchers 1 -> 2 mid-run
    on a stream; the second reader receives every change from its start on, as the first does (each sees
    every change), so the changes received are more than the versions and fewer than twice them, while
    the reconciliation (the first reader's) stays exact."""
    knobs = {"watchers": 1, "watch_mode": "change_stream"}
    config = prepared(local_spanner, switchable(), {"processes": 1, "knobs": knobs}, runtime)

    sink = asyncio.run(asyncio.wait_for(_patched_run(config, "readers", [{"watchers": 2}]), 200))
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    summary = sink.summary
    assert summary is not None and summary.reconciliation is not None
    r = summary.reconciliation
    assert r.ok and r.duplicates == 0, r
    assert r.versions_received < summary.totals.received_changes < 2 * r.versions_received
