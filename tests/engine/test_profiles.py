"""Load profiles against the real engine, worker processes and the local Spanner: the engine drives
the load with live patches, so both runtimes follow a profile without knowing of it. Counts and
orders of samples, never seconds: the machine is shared."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.profile import ProfileAction, ProfileEdit
from spanload.model.samples import Gauge
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_supervisor import Recorder

pytestmark = pytest.mark.timeout(240)


class Sink(Recorder):
    """The supervisor tests' recorder, for events that name no worker (the profile's)."""

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        self.events.append((kind, changes))

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        pass

    def targets(self) -> list[float]:
        return [s.gauges[Gauge.UPDATER_TARGET_TPS] for s in self.samples if Gauge.UPDATER_TARGET_TPS in s.gauges]


def _updater_only(local: LocalTarget, runtime: WorkerRuntime, profile: dict[str, object]) -> RunConfig:
    return local.config(
        {
            "updater": {"transactions_per_second": 1, "mutations_per_transaction": 1},
            "watcher": {"enabled": False},
            "profile": profile,
        },
        runtime=runtime,
    )


async def _until(sink: Sink, count: int) -> None:
    while len(sink.samples) < count:
        await asyncio.sleep(0.05)


def test_a_profile_is_followed_stage_by_stage_and_stops_the_run_at_its_end(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    stages = [
        {"kind": "hold", "rate": 5, "duration_s": 4},
        {"kind": "ramp", "from_rate": 10, "to_rate": 30, "duration_s": 5},
        {"kind": "step", "increment": 5, "every_s": 3, "to_rate": 40},  # 35, then 40
    ]
    config = _updater_only(local_spanner, runtime, {"stages": stages})

    async def scenario() -> Sink:
        sink = Sink()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("profile", config)
        await asyncio.wait_for(supervisor.wait_finished("profile"), 120)  # no duration: the profile ends it
        return sink

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    # every rate the profile set is a live change on the timeline, by the profile, in the schedule's order
    # (the run is the change watcher definition's: the profile drives its write operation's rate)
    rates = [float(str(c["operations.write.rate"])) for c, who in sink.patches if who == "profile"]
    assert all(who == "profile" for _, who in sink.patches)
    assert rates[0] == 5.0 and rates[-2:] == [35.0, 40.0], rates
    ramp = rates[1:-2]
    assert len(ramp) >= 3 and ramp[0] == 10.0 and ramp == sorted(ramp) and all(10 <= r < 30 for r in ramp), rates
    stage_events = [c["stage"] for k, c in sink.events if k is EventKind.PROFILE and c["event"] == "stage"]
    assert stage_events == [0, 1, 2]
    assert [c["event"] for k, c in sink.events if k is EventKind.PROFILE][-1] == "end"
    # the samples' target gauges run through the stages in order: 5, the ramp going up, 35, 40
    targets = sink.targets()
    runs = [(value, len(list(group))) for value, group in itertools.groupby(targets)]
    assert runs[0][0] == 5.0 and runs[0][1] >= 2, runs
    assert [v for v, _ in runs[-2:]] == [35.0, 40.0] and runs[-2][1] >= 2, runs
    middle = [v for v, _ in runs[1:-2]]
    assert middle and middle == sorted(middle) and all(10 <= v < 30 for v in middle), runs
    # each level's rate asked, as counts: the Poisson schedule produced its target's arrivals (within 4
    # standard deviations); the transactions done follow those arrivals, and each level did more a
    # second than the one before. How far behind them a loaded machine falls is not this test's (40
    # tx/s fell 25 behind on a Python worker in a full `make test`), so no level must catch up.
    done_per_s = []
    for level in (5.0, 35.0, 40.0):
        at = [x for x in sink.samples if x.gauges.get(Gauge.UPDATER_TARGET_TPS) == level]
        asked = sum(level * x.interval_s for x in at)
        scheduled = sum(x.gauges.get(Gauge.UPDATER_SCHEDULED_TPS, 0.0) * x.interval_s for x in at)
        assert abs(scheduled - asked) <= 4 * asked**0.5 + 1, (level, asked, scheduled)
        done_per_s.append(sum(x.gauges.get(Gauge.UPDATER_TPS, 0.0) * x.interval_s for x in at) / (asked / level))
    assert done_per_s[0] < done_per_s[1], done_per_s
    # open loop: a transaction starts at its arrival, so no report has more done than scheduled so far
    scheduled_so_far = itertools.accumulate(
        round(x.gauges.get(Gauge.UPDATER_SCHEDULED_TPS, 0.0) * x.interval_s) for x in sink.samples
    )
    done_so_far = itertools.accumulate(round(x.gauges.get(Gauge.UPDATER_TPS, 0.0) * x.interval_s) for x in sink.samples)
    pairs = list(zip(done_so_far, scheduled_so_far, strict=True))
    assert all(done <= scheduled for done, scheduled in pairs), pairs
    assert sink.summary is not None and pairs[-1][0] == sink.summary.totals.transactions > 0, pairs


def test_extend_skip_and_hold_take_effect_within_one_interval(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    stages = [
        {"kind": "hold", "rate": 5, "duration_s": 3},
        {"kind": "hold", "rate": 20, "duration_s": 600},
        {"kind": "hold", "rate": 40, "duration_s": 600},
    ]
    config = _updater_only(local_spanner, runtime, {"stages": stages})

    async def scenario() -> tuple[Sink, int, int]:
        sink = Sink()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("edits", config)
        await _until(sink, 1)
        status = await supervisor.edit_profile("edits", ProfileEdit(action=ProfileAction.EXTEND, seconds=4))
        assert (status.stage, status.total_s) == (0, 1207)
        while sink.targets()[-1:] != [20.0]:  # the extended stage ends
            await asyncio.sleep(0.05)
        await _until(sink, len(sink.samples) + 2)
        status = await supervisor.edit_profile("edits", ProfileEdit(action=ProfileAction.SKIP))
        assert (status.stage, status.rate) == (2, 40.0)
        skipped_at = len(sink.samples)
        await _until(sink, skipped_at + 3)
        status = await supervisor.edit_profile("edits", ProfileEdit(action=ProfileAction.ABANDON))
        assert status.abandoned and status.stage is None and status.rate == 40.0
        abandoned_at = len(sink.samples)
        await _until(sink, abandoned_at + 3)
        await supervisor.stop("edits")
        return sink, skipped_at, abandoned_at

    sink, skipped_at, _abandoned_at = asyncio.run(scenario())
    targets = sink.targets()
    # extended by 4 s: the 3 s stage held 7 intervals of 1 s (one either way for where the clock began)
    assert 6 <= targets.count(5.0) <= 8 and targets[: targets.count(5.0)] == [5.0] * targets.count(5.0), targets
    assert set(targets[targets.count(5.0) : skipped_at]) == {20.0}, targets
    # the interval under way when the skip came may still end at 20; the one after it is at 40
    assert targets[skipped_at + 1] == 40.0, targets[skipped_at:]
    assert set(targets[skipped_at + 1 :]) == {40.0}, targets  # abandoned: the last rate holds
    edits = [c["event"] for k, c in sink.events if k is EventKind.PROFILE]
    assert edits == ["stage", "extend", "stage", "skip", "stage", "abandon"]
    assert sink.states[-1] == (RunState.FINISHED, None)
