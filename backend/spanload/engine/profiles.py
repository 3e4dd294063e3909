"""A run's load profile followed live: the schedule of ``config.profile`` turned into patches.

The engine drives the load with the same live patches a user sends (``who`` is ``profile``), so
every worker runtime follows a profile without knowing it exists, and every change it makes is on
the run's timeline. A stage's start is an event of its own (``profile``), as are the edits.

The profile's clock counts running time only: it stands still while the run is paused and while a
stage is extended. A ramp is patched every ``ramp_step_s`` (default: the report interval); a hold
or a step's level once, at its start. Edits (:meth:`ProfileRunner.edit`) take effect at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.errors import RunConflict
from spanload.model.events import EventKind
from spanload.model.profile import Planned, ProfileAction, ProfileEdit, ProfileStatus, RampStage, at, patch_for
from spanload.model.state import RunState

logger = logging.getLogger(__name__)

SAME_RATE = 1e-6  # a ramp's rate that moved less than this since the last patch is not patched again


@dataclass
class Steering:
    """What the runner needs of the supervisor for one run."""

    state: Callable[[], RunState]
    patch: Callable[[ConfigPatch], Awaitable[object]]
    event: Callable[[EventKind, dict[str, object]], None]
    stop: Callable[[], None]


class ProfileRunner:
    """Follows one run's profile from its start. :meth:`drive` is the run's task."""

    def __init__(self, config: RunConfig, steering: Steering) -> None:
        assert config.profile is not None
        self.profile = config.profile
        self.definition = config.definition
        self.tick_s = config.profile.ramp_step_s or config.report_interval_s
        self.steering = steering
        self.plan = self.profile.plan()
        self.position_s = 0.0  # on the profile's clock
        self.held_s = 0.0  # extension left: the clock stands still this long
        self.extended_s = 0.0  # every extension so far
        self.stage: Planned | None = None
        self.rate: float | None = None
        self.abandoned = False
        self.ended = False
        self._woken = asyncio.Event()

    # -- the clock and the schedule -------------------------------------------------------------------

    def status(self) -> ProfileStatus:
        return ProfileStatus(
            stage=None if self.abandoned or self.ended or self.stage is None else self.stage.index,
            stages=len(self.plan),
            position_s=self.position_s + self.extended_s - self.held_s,
            total_s=self.plan[-1].end_s + self.extended_s,
            rate=self.rate,
            abandoned=self.abandoned,
            ended=self.ended,
        )

    def _advance(self, seconds: float) -> None:
        held = min(self.held_s, seconds)
        self.held_s -= held
        self.position_s += seconds - held

    def _shift(self, from_index: int, seconds: float) -> None:
        """Move stages ``from_index``... by ``seconds`` on the clock (negative: earlier)."""
        self.plan = [
            p if p.index < from_index else Planned(p.index, p.stage, p.start_s + seconds, p.duration_s, p.begin_rate)
            for p in self.plan
        ]

    async def drive(self) -> None:
        """Patch the run as the schedule says until the profile ends (then stop the run, if it
        says so), is abandoned, or the run stops."""
        last = time.monotonic()
        while True:
            state = self.steering.state()
            if state not in (RunState.RUNNING, RunState.PAUSED) or self.abandoned:
                return
            now = time.monotonic()
            if state is RunState.RUNNING:
                self._advance(now - last)
            last = now
            if not await self._apply():
                return
            await self._sleep()

    async def _apply(self) -> bool:
        """Set the rate the clock says; False once the profile is over."""
        stage = at(self.plan, self.position_s)
        if stage is None:
            self.ended = True
            self.steering.event(EventKind.PROFILE, {"event": "end", "position_s": round(self.position_s, 3)})
            if self.profile.stop_at_end:
                self.steering.stop()
            return False
        if self.stage is None or stage.index != self.stage.index:
            self.stage = stage
            self.steering.event(
                EventKind.PROFILE,
                {
                    "event": "stage",
                    "stage": stage.index,
                    "kind": stage.stage.kind,
                    "position_s": round(stage.start_s, 3),
                },
            )
        offset = self.position_s - stage.start_s
        if isinstance(stage.stage, RampStage):  # in steps of one tick from the stage's start: 10, 14, 18...
            offset = math.floor(offset / self.tick_s + 1e-6) * self.tick_s
        rate = round(stage.rate(offset), 6)
        if self.rate is None or abs(rate - self.rate) > SAME_RATE:
            self.rate = rate
            try:
                await self.steering.patch(
                    ConfigPatch.model_validate(patch_for(self.profile.operation, self.definition, rate))
                )
            except RunConflict as err:  # the run moved on (stopping) meanwhile
                logger.info("profile patch not applied: %s", err)
        return True

    async def _sleep(self) -> None:
        """Until the next tick, the next stage's start, or an edit, whichever is first."""
        stage = self.stage
        wait = self.tick_s
        if stage is not None and self.held_s <= 0:
            wait = min(wait, max(stage.end_s - self.position_s, 0.0))
        self._woken.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), wait)

    # -- live edits ----------------------------------------------------------------------------------

    async def edit(self, edit: ProfileEdit) -> ProfileStatus:
        """Skip to the next stage, extend the current one, or abandon the profile; at once (the
        next stage's rate is patched before this returns). Raises
        :class:`RunConflict` when the profile is over."""
        if self.abandoned or self.ended or self.stage is None:
            raise RunConflict("the run's profile is over: there is no stage to edit")
        stage = self.stage
        changes: dict[str, object] = {"event": edit.action.value, "stage": stage.index}
        match edit.action:
            case ProfileAction.SKIP:
                self.held_s = 0.0
                self._shift(stage.index + 1, self.position_s - stage.end_s)
                self.plan[stage.index] = Planned(
                    stage.index, stage.stage, stage.start_s, self.position_s - stage.start_s, stage.begin_rate
                )
            case ProfileAction.EXTEND:
                assert edit.seconds is not None
                self.held_s += edit.seconds
                self.extended_s += edit.seconds
                changes["seconds"] = edit.seconds
            case ProfileAction.ABANDON:
                self.abandoned = True
                changes["rate"] = self.rate
        self.steering.event(EventKind.PROFILE, changes)
        if not self.abandoned:
            await self._apply()
        self._woken.set()
        return self.status()
