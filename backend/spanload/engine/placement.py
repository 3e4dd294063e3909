"""Where a run's workers go and which program they are, and the one check made before a run starts.

:func:`check_start` is that check (a report workload's config turned into its built-in definition's
run, the rate cap of cloud targets, the runtime's program installed, the placement resolved): the
control plane calls it before it records a run, the command line before it starts anything, the
supervisor when it starts the workers; each goes on with the plan's ``config``.
"""

from __future__ import annotations

from dataclasses import dataclass

from spanload.engine import pgadapter_run
from spanload.engine.runtimes import worker_command
from spanload.engine.transports import LocalLauncher, WorkerLauncher
from spanload.model.builtin_convert import as_definition
from spanload.model.config import Placement, PlacementKind, RunConfig, TargetKind
from spanload.model.settings import Settings


@dataclass(frozen=True)
class StartPlan:
    """What a run that passed :func:`check_start` starts: ``config`` (a report workload's as its
    built-in definition's run) with ``command`` (``--worker N`` is appended per worker) at ``placement``."""

    config: RunConfig
    command: list[str]
    placement: Placement


def check_start(config: RunConfig, settings: Settings, command: list[str] | None = None) -> StartPlan:
    """Raises :class:`~spanload.model.errors.RunInvalid` naming the field when a rate exceeds
    SPANLOAD_MAX_TPS on a cloud target, :class:`~spanload.engine.runtimes.WorkerNotInstalledError`
    when the runtime's program is missing, or :class:`~spanload.spanner.pgadapter.PGAdapterError`
    when the pgadapter interface's Java or jars are. ``command`` replaces the runtime's program (a worker in
    another language, a test's fake peer). Raises :class:`RunInvalid` for a report workload's field
    its built-in definition cannot take."""
    config = as_definition(config)
    config.check_rate_cap(settings.max_tps)
    if command is None:
        command = worker_command(config.runtime, settings.go_worker_binary)
    if pgadapter_run.needs_pgadapter(config):
        pgadapter_run.check_installed(settings)  # Java and PGAdapter's jars, named if missing
    return StartPlan(config=config, command=command, placement=resolve_placement(config, settings))


def resolve_placement(config: RunConfig, settings: Settings) -> Placement:
    """The run's own placement, else Ray at ``settings.ray_address`` if the server has one, else
    local; a Ray placement without an address takes the server's."""
    placement = config.placement
    if placement is None:
        if settings.ray_address is None:
            return Placement()
        return Placement(kind=PlacementKind.RAY, address=settings.ray_address)
    if placement.kind is PlacementKind.RAY and placement.address is None:
        return placement.model_copy(update={"address": settings.ray_address or "auto"})
    return placement


def launcher_for(placement: Placement) -> WorkerLauncher:
    """What starts the workers at ``placement``: local child processes, or actors on a Ray cluster."""
    if placement.kind is PlacementKind.RAY:
        from spanload.engine.transports.ray_transport import RayLauncher

        return RayLauncher(placement.address or "auto", placement.cpus_per_worker)
    return LocalLauncher()


def emulator_host(config: RunConfig, settings: Settings, local_spanner_address: str | None) -> str | None:
    """host:port of the local server or emulator the run talks to (None for cloud): a local
    target's own address, else ``local_spanner_address`` (the server serve started), else the
    settings' host and port."""
    match config.target.kind:
        case TargetKind.LOCAL:
            return (
                config.target.emulator_host
                or local_spanner_address
                or f"{settings.local_spanner_host}:{settings.local_spanner_port}"
            )
        case TargetKind.EMULATOR:
            return config.target.emulator_host
    return None
