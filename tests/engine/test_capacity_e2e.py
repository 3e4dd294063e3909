"""Capacity searches against the local Spanner with a synthetic knee (target.commit_knee: a commit
that finds more than N commits in the last second takes D ms longer), so that the answer is known
exactly: the engine raises the updater's rate step by step with live patches until a stop condition
breaks. Two searches run at once in each test, each on its own database (the knee counts one
database's commits)."""

from __future__ import annotations

import asyncio

import pytest

from spanload.cli.render import capacity_table
from spanload.engine.supervisor import Supervisor
from spanload.model.capacity import CapacityResult, Limit
from spanload.model.config import CommitKnee, RunConfig
from spanload.model.events import EventKind
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_profiles import Sink

pytestmark = pytest.mark.timeout(180)


def _config(local: LocalTarget, knee: dict[str, int], capacity: dict[str, object], **body: object) -> RunConfig:
    config = local.config(
        {
            "report_interval_s": 0.5,
            "updater": {"transactions_per_second": 1, "mutations_per_transaction": 1, "parallelism": 64},
            "watcher": {"enabled": False},
            "capacity": {"min_step_s": 2, "max_step_s": 5, **capacity},
            **body,
        }
    )
    target = config.target.model_copy(update={"commit_knee": CommitKnee.model_validate(knee)})
    return config.model_copy(update={"target": target})


async def _search(run_id: str, config: RunConfig) -> Sink:
    sink = Sink()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    await asyncio.wait_for(supervisor.wait_finished(run_id), 150)  # no duration: the search ends it
    await supervisor.shutdown()
    return sink


def _both(*configs: RunConfig) -> list[Sink]:
    async def scenario() -> list[Sink]:
        return list(await asyncio.gather(*(_search(f"capacity-{i}", c) for i, c in enumerate(configs))))

    return asyncio.run(scenario())


def _result(sink: Sink) -> CapacityResult:
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    assert sink.summary is not None and sink.summary.capacity is not None
    print("\n".join(capacity_table(sink.summary.capacity)))
    return sink.summary.capacity


def test_the_search_finds_the_databases_knee_and_it_moves_with_the_model(local_spanner: LocalTarget) -> None:
    # 100 ms more a commit above N commits a second; p50 judged: at 1.2 N and more nearly every commit waits
    search = {"start_rate": 100, "step": 100, "max_rate": 600, "percentile": "p50", "latency_ms": 50}
    sinks = _both(
        _config(local_spanner, {"rate": 250, "delay_ms": 100}, search),
        _config(local_spanner, {"rate": 150, "delay_ms": 100}, search),
    )
    results = [_result(s) for s in sinks]
    assert [(r.knee, r.limited_by) for r in results] == [(200, Limit.DATABASE), (100, Limit.DATABASE)], results
    for sink, result in zip(sinks, results, strict=True):
        steps = result.steps
        assert [s.rate for s in steps] == [100 + 100 * i for i in range(len(steps))]
        assert [s.held for s in steps] == [True] * (len(steps) - 1) + [False]
        broke = steps[-1]
        assert broke.p50 is not None and broke.p50 >= 100, broke  # the knee's delay, not the machine's noise
        assert result.broke_by == broke.broke_by and broke.broke_by[0].startswith("p50 ")
        # every rate was a live change by the search (of the change watcher definition's write
        # operation, which the updater's rate became), and every step's verdict is on the timeline
        assert [float(str(c["operations.write.rate"])) for c, _ in sink.patches] == [s.rate for s in steps]
        assert {who for _, who in sink.patches} == {"capacity"}
        assert len([k for k, _ in sink.events if k is EventKind.CAPACITY]) == len(steps)


def test_with_one_executor_a_worker_the_knee_is_the_clients_and_moves_with_the_worker_count(
    local_spanner: LocalTarget,
) -> None:
    # every commit takes 20 ms more (knee 0): one executor does at most ~45/s, whatever the database could
    search = {"start_rate": 20, "step": 40, "max_rate": 100, "latency_ms": None}
    updater = {"transactions_per_second": 1, "mutations_per_transaction": 1, "parallelism": 1}
    one, two = _both(
        _config(local_spanner, {"rate": 0, "delay_ms": 20}, search, updater=updater, processes=1),
        _config(local_spanner, {"rate": 0, "delay_ms": 20}, search, updater=updater, processes=2),
    )
    alone, pair = _result(one), _result(two)
    assert (alone.knee, alone.limited_by) == (20, Limit.CLIENT), alone
    # updater.parallelism is the write operation's max_in_flight knob, parallelism
    assert "every one of their 1 executors was busy" in alone.note and "raise knobs.parallelism" in alone.note
    broke = alone.steps[-1]
    assert broke.in_flight is not None and broke.in_flight >= 0.9 and broke.achieved < 54, broke
    # two workers, an executor each: at least 60/s held (0.7 of what two executors do); 100 may or may not
    assert pair.knee is not None and pair.knee >= 60, pair
    assert pair.limited_by in (Limit.CLIENT, Limit.MAX_RATE), pair
