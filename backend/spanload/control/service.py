"""The control plane's run service: what the API's routes call to start, change and stop runs.
It checks the request against the stored run, applies safety bounds, drives the load engine's
supervisor, and leaves recording to the hub (the supervisor's RunSink)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from spanload.control.hub import Hub
from spanload.engine.placement import check_start
from spanload.model.config import ConfigPatch, RunConfig, TargetKind
from spanload.model.errors import RunConflict, RunInvalid, RunNotFound
from spanload.model.presets import make_config
from spanload.model.profile import ProfileEdit, ProfileStatus
from spanload.model.settings import Settings
from spanload.model.state import RunAction, RunEngine, RunState, check_action
from spanload.model.stored_config import read_stored
from spanload.store import runs as run_store
from spanload.store.models import RunRow

logger = logging.getLogger(__name__)


def default_target(settings: Settings) -> dict[str, Any]:
    """The target of a run that names none (docker-compose points it at the emulator)."""
    if settings.default_target_kind == TargetKind.EMULATOR.value:
        return {"kind": "emulator", "emulator_host": settings.default_emulator_host}
    return {"kind": "local"}


def config_from(
    preset: str | None,
    config: RunConfig | None,
    overrides: dict[str, Any],
    name: str | None,
    target: dict[str, Any] | None = None,
) -> RunConfig:
    """The config a create request asks for: a whole config, or a preset's (else the defaults),
    with ``overrides`` merged on top; ``target`` is the default target, for requests that name none.
    Raises :class:`UnknownPreset` or :class:`RunInvalid`."""
    if config is None and target is not None and "target" not in overrides:
        overrides = {**overrides, "target": target}
    if name is not None:
        overrides = {**overrides, "name": name}
    return make_config(preset, overrides, base=config)


class RunService:
    def __init__(self, settings: Settings, sessions: sessionmaker[Session], hub: Hub, engine: RunEngine) -> None:
        self.settings = settings
        self.sessions = sessions
        self.hub = hub
        self.engine = engine
        self._config_changes_seen: dict[str, int] = {}

    async def _read(self, run_id: str) -> RunRow:
        def read() -> RunRow | None:
            with self.sessions() as session:
                return run_store.get_run(session, run_id)

        row = await asyncio.to_thread(read)
        if row is None:
            raise RunNotFound.of(run_id)
        return row

    async def get(self, run_id: str, flush: bool = True) -> RunRow:
        """The stored run; with ``flush``, after everything the hub received so far is stored
        (read-your-writes after a control action)."""
        if flush:
            await self.hub.flush()
        return await self._read(run_id)

    async def create(self, config: RunConfig) -> RunRow:
        # a report workload as its built-in definition, the rate cap, the runtime installed: all
        # before the run is recorded, so the stored config is the definition it runs
        config = check_start(config.seeded(), self.settings).config
        run_id = uuid.uuid4().hex

        def insert() -> RunRow:
            with self.sessions() as session:
                return run_store.create_run(session, run_id, config)

        await asyncio.to_thread(insert)
        self.hub.track(run_id, config)
        try:
            await self.engine.start(run_id, config)
        except RunInvalid:  # refused before any worker started (no consent for DDL): no run is left
            await self.hub.flush()
            await self._delete_row(run_id)
            raise
        except Exception as err:
            logger.warning("run %s failed to start: %s", run_id, err)
            await self.hub.flush()
            if (await self._read(run_id)).status is RunState.PENDING:  # refused before it began
                self.hub.on_state(run_id, RunState.FAILED, f"failed to start: {err}")
        return await self.get(run_id)

    async def patch_config(self, run_id: str, patch: ConfigPatch, who: str) -> RunRow:
        row = await self.get(run_id)
        check_action(run_id, row.status, RunAction.CHANGE)
        changes = patch.changed_fields()
        if not changes:
            raise RunInvalid("the patch changes nothing: set at least one field")
        current = self.hub.configs.get(run_id) or read_stored(row.current_config).config
        current.apply(patch).check_rate_cap(self.settings.max_tps)
        try:
            await self.engine.patch(run_id, patch, who)  # the engine records it with its sink, the hub
        except RunInvalid:
            raise
        except Exception as err:
            raise RunConflict(f"run {run_id!r} cannot change now: {err}") from err
        return await self.get(run_id)

    async def edit_profile(self, run_id: str, edit: ProfileEdit) -> ProfileStatus:
        """Skip, extend or abandon the stage under way of the run's profile (the engine records it)."""
        row = await self.get(run_id)
        check_action(run_id, row.status, RunAction.CHANGE)
        try:
            return await self.engine.edit_profile(run_id, edit)
        except (RunConflict, RunInvalid):
            raise
        except Exception as err:  # unknown to the engine: it ended meanwhile
            raise RunConflict(f"run {run_id!r} cannot edit its profile now: {err}") from err

    async def _control(self, run_id: str, action: RunAction) -> RunRow:
        row = await self.get(run_id)
        check_action(run_id, row.status, action)
        try:
            await getattr(self.engine, action.value)(run_id)
        except Exception as err:  # unknown to the engine, or its state moved on meanwhile
            raise RunConflict(f"cannot {action.value} run {run_id!r}: {err}") from err
        return await self.get(run_id)

    async def pause(self, run_id: str) -> RunRow:
        return await self._control(run_id, RunAction.PAUSE)

    async def resume(self, run_id: str) -> RunRow:
        return await self._control(run_id, RunAction.RESUME)

    async def stop(self, run_id: str) -> RunRow:
        return await self._control(run_id, RunAction.STOP)

    async def delete(self, run_id: str) -> None:
        row = await self.get(run_id)
        check_action(run_id, row.status, RunAction.DELETE)
        await self._delete_row(run_id)

    async def _delete_row(self, run_id: str) -> None:
        def remove() -> None:
            with self.sessions() as session:
                run_store.delete_run(session, run_id)

        await asyncio.to_thread(remove)
