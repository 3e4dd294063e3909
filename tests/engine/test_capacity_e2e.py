"""A capacity search against the local Spanner with its production-like latency model: the engine
raises the updater's rate step by step with live patches until a stop condition breaks."""

from __future__ import annotations

import asyncio

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.capacity import Limit
from spanload.model.events import EventKind
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_profiles import Sink

pytestmark = pytest.mark.timeout(300)


def test_a_capacity_search_finds_a_knee_and_stops_the_run(local_spanner: LocalTarget) -> None:
    config = local_spanner.config(
        {
            "updater": {"transactions_per_second": 1, "mutations_per_transaction": 1, "parallelism": 16},
            "watcher": {"enabled": False},
            "capacity": {
                "start_rate": 100,
                "step": 300,
                "max_rate": 6000,
                "min_step_s": 3,
                "max_step_s": 8,
                "percentile": "p50",  # p99 on a machine shared with other test runs is noise
                "latency_ms": 50,
            },
        }
    )
    config = config.model_copy(update={"target": config.target.model_copy(update={"latency_model": "production_like"})})

    async def scenario() -> Sink:
        sink = Sink()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("capacity", config)
        await asyncio.wait_for(supervisor.wait_finished("capacity"), 240)  # no duration: the search ends it
        return sink

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None and sink.summary.capacity is not None
    result = sink.summary.capacity
    steps = result.steps
    assert result.limited_by in (Limit.DATABASE, Limit.CLIENT, Limit.MACHINE), result.note
    assert [s.rate for s in steps] == [100 + 300 * i for i in range(len(steps))]
    assert [s.held for s in steps] == [True] * (len(steps) - 1) + [False]
    assert result.knee == steps[-2].rate and result.broke_by == steps[-1].broke_by != []
    # every rate was a live change by the search, and every step's verdict is on the timeline
    assert [float(str(c["updater.transactions_per_second"])) for c, _ in sink.patches] == [s.rate for s in steps]
    assert {who for _, who in sink.patches} == {"capacity"}
    assert len([k for k, _ in sink.events if k is EventKind.CAPACITY]) == len(steps)
    held = steps[0]
    assert held.achieved > 0.9 * held.rate and held.p99 is not None and held.p50 is not None
    assert held.p50 >= 3.0  # the production-like model: a commit takes at least 3 ms
