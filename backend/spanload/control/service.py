"""The control plane's run service: what the API's routes call to start, change and stop runs.
It checks the request against the stored run, applies safety bounds, drives the load engine's
supervisor, and leaves recording to the hub (the supervisor's RunSink)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker

from spanload.control.hub import Hub
from spanload.engine.runtimes import WorkerNotInstalledError, worker_command
from spanload.model.config import ConfigPatch, RunConfig, TargetKind, _deep_merge
from spanload.model.preset_catalog import preset_config, preset_names
from spanload.model.settings import Settings
from spanload.model.state import RunEngine, RunState
from spanload.store import runs as run_store
from spanload.store.models import RunRow

logger = logging.getLogger(__name__)

LIVE_STATES = frozenset({RunState.RUNNING, RunState.PAUSED})


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
    Unknown presets and invalid results raise RunInvalid."""
    if config is None and target is not None and "target" not in overrides:
        overrides = {**overrides, "target": target}
    if config is not None:
        base = config.model_dump(by_alias=True)
    elif preset is not None:
        found = preset_config(preset)
        if found is None:
            raise RunInvalid(f"unknown preset {preset!r}; known presets: {', '.join(preset_names())}")
        base = found.model_dump(by_alias=True) | {"preset": preset}
    else:
        base = RunConfig().model_dump(by_alias=True)
    merged = _deep_merge(base, overrides)
    if name is not None:
        merged["name"] = name
    try:
        return RunConfig.model_validate(merged)
    except ValidationError as err:
        raise RunInvalid(validation_message(err)) from err


class RunError(Exception):
    """A request the service refuses; ``status_code`` is the HTTP status the API answers with."""

    status_code = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class RunNotFound(RunError):
    status_code = 404


class RunConflict(RunError):
    status_code = 409


class RunInvalid(RunError):
    status_code = 422


def check_rate_bounds(config: RunConfig, max_tps: float) -> None:
    """Cloud targets take an upper bound on rates, so that a typo cannot hammer production."""
    if config.target.kind is not TargetKind.CLOUD:
        return
    for field, rate in (
        ("updater.transactions_per_second", config.updater.transactions_per_second),
        ("reader.reads_per_second", config.reader.reads_per_second),
    ):
        if rate > max_tps:
            raise RunInvalid(
                f"{field} = {rate:g} exceeds SPANLOAD_MAX_TPS = {max_tps:g} for a cloud target; "
                "raise SPANLOAD_MAX_TPS if you mean it"
            )


def validation_message(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"])
        parts.append(f"{where}: {e['msg']}" if where else str(e["msg"]))
    return "; ".join(parts)


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
            raise RunNotFound(f"run {run_id!r} not found")
        return row

    async def get(self, run_id: str, flush: bool = True) -> RunRow:
        """The stored run; with ``flush``, after everything the hub received so far is stored
        (read-your-writes after a control action)."""
        if flush:
            await self.hub.flush()
        return await self._read(run_id)

    async def create(self, config: RunConfig) -> RunRow:
        check_rate_bounds(config, self.settings.max_tps)
        try:
            worker_command(config.runtime, self.settings.go_worker_binary)
        except WorkerNotInstalledError as err:
            raise RunInvalid(str(err)) from None
        run_id = uuid.uuid4().hex

        def insert() -> RunRow:
            with self.sessions() as session:
                return run_store.create_run(session, run_id, config)

        await asyncio.to_thread(insert)
        self.hub.track(run_id, config)
        try:
            await self.engine.start(run_id, config)
        except Exception as err:
            logger.warning("run %s failed to start: %s", run_id, err)
            await self.hub.flush()
            if (await self._read(run_id)).status is RunState.PENDING:  # refused before it began
                self.hub.on_state(run_id, RunState.FAILED, f"failed to start: {err}")
        return await self.get(run_id)

    async def patch_config(self, run_id: str, patch: ConfigPatch, who: str) -> RunRow:
        row = await self.get(run_id)
        if row.status not in LIVE_STATES:
            raise RunConflict(f"run {run_id!r} is {row.status.value}; only a running or paused run can change")
        changes = patch.changed_fields()
        if not changes:
            raise RunInvalid("the patch changes nothing: set at least one field")
        current = self.hub.configs.get(run_id) or RunConfig.model_validate(row.current_config)
        try:
            proposed = current.apply(patch)
        except ValidationError as err:
            raise RunInvalid(validation_message(err)) from err
        check_rate_bounds(proposed, self.settings.max_tps)
        try:
            await self.engine.patch(run_id, patch, who)  # the engine records it with its sink, the hub
        except ValueError as err:
            raise RunInvalid(str(err)) from err
        except Exception as err:
            raise RunConflict(f"run {run_id!r} cannot change now: {err}") from err
        return await self.get(run_id)

    async def _control(self, run_id: str, allowed: frozenset[RunState], verb: str) -> RunRow:
        row = await self.get(run_id)
        if row.status not in allowed:
            raise RunConflict(f"cannot {verb} run {run_id!r}: it is {row.status.value}")
        action = getattr(self.engine, verb)
        try:
            await action(run_id)
        except Exception as err:  # unknown to the engine, or its state moved on meanwhile
            raise RunConflict(f"cannot {verb} run {run_id!r}: {err}") from err
        return await self.get(run_id)

    async def pause(self, run_id: str) -> RunRow:
        return await self._control(run_id, frozenset({RunState.RUNNING}), "pause")

    async def resume(self, run_id: str) -> RunRow:
        return await self._control(run_id, frozenset({RunState.PAUSED}), "resume")

    async def stop(self, run_id: str) -> RunRow:
        active = frozenset({RunState.PENDING, RunState.STARTING, RunState.RUNNING, RunState.PAUSED})
        return await self._control(run_id, active, "stop")

    async def delete(self, run_id: str) -> None:
        row = await self.get(run_id)
        if row.status.is_active:
            raise RunConflict(f"run {run_id!r} is {row.status.value}; stop it before deleting it")

        def remove() -> None:
            with self.sessions() as session:
                run_store.delete_run(session, run_id)

        await asyncio.to_thread(remove)
