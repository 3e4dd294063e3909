"""The profile runner's clock without a run: extend holds the stage's rate, skip ends it, the end
stops the run. The clock is advanced by hand (no sleeping, no timing)."""

from __future__ import annotations

import asyncio

from spanload.engine.profiles import ProfileRunner, Steering
from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.events import EventKind
from spanload.model.profile import ProfileAction, ProfileEdit, parse_stages
from spanload.model.state import RunState


def test_extend_holds_the_rate_then_the_stage_goes_on_and_skip_at_the_last_stage_ends_the_run() -> None:
    config = RunConfig.model_validate({"profile": {"stages": parse_stages("5:10s,ramp:10-20:10s")}})
    rates: list[float] = []
    events: list[dict[str, object]] = []
    stopped: list[bool] = []

    async def patch(p: ConfigPatch) -> None:
        assert p.updater is not None and p.updater.transactions_per_second is not None
        rates.append(p.updater.transactions_per_second)

    def event(kind: EventKind, changes: dict[str, object]) -> None:
        assert kind is EventKind.PROFILE
        events.append(changes)

    steering = Steering(state=lambda: RunState.RUNNING, patch=patch, event=event, stop=lambda: stopped.append(True))

    async def scenario() -> None:
        runner = ProfileRunner(config, steering)  # ticks of the report interval, 1 s
        await runner._apply()
        runner._advance(4)
        status = await runner.edit(ProfileEdit(action=ProfileAction.EXTEND, seconds=6))
        assert (status.stage, status.position_s, status.total_s) == (0, 4, 26)
        runner._advance(5)  # held: the clock stands
        assert runner.position_s == 4 and await runner._apply()
        runner._advance(3)  # 1 s of hold left, then 2 s on
        assert runner.position_s == 6
        runner._advance(4)
        assert await runner._apply()  # the ramp begins at 10 s on the profile's clock, 16 s in
        runner._advance(2.5)
        assert await runner._apply()  # in whole ticks: 2 s into the ramp
        status = await runner.edit(ProfileEdit(action=ProfileAction.SKIP))
        assert status.ended and status.stage is None

    asyncio.run(scenario())
    assert rates == [5, 10, 12]
    assert [e["event"] for e in events] == ["stage", "extend", "stage", "skip", "end"]
    assert stopped == [True]
