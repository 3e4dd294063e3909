"""`spanload run`: a load test without the web UI (for CI).

It drives the same :class:`~spanload.engine.supervisor.Supervisor` as the dashboard, with a sink
that prints a status block every interval (like the Change Watcher benchmark's), then a summary
table; ``--json FILE`` writes the config, the whole-run figures and every interval sample;
``--threshold`` checks fail the exit code. Ctrl-C stops the run cleanly and still reports.

The run is saved in the run store (``--no-save`` not), so `spanload serve` lists it and compare and
report use it; ``--server URL`` starts it on a running serve instead, which shows it live in the
dashboard, and follows it here. Thresholds are checked against the run's names before it starts.

Exit codes: 0 passed, 1 a threshold failed or the run failed, 2 bad flags, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from spanload.cli.flags import overrides_from
from spanload.cli.outcome import Outcome
from spanload.cli.render import PrintingSink, summary_table, write_json
from spanload.cli.workloads import parse_sets, read_definition_file
from spanload.engine import thresholds
from spanload.engine.placement import check_start
from spanload.model import presets
from spanload.model.config import (
    RunConfig,
    TargetKind,
)
from spanload.model.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, RunError, RunInvalid
from spanload.model.events import EventKind
from spanload.model.profile import parse_stages
from spanload.model.settings import Settings, get_settings
from spanload.model.state import RunSink, RunState
from spanload.model.workload_file import Positions

if TYPE_CHECKING:  # the local Spanner's module loads only for a run that starts one
    from spanload.spanner.local_server import SupervisedLocalSpanner, TargetChange


def build_config(args: SimpleNamespace) -> RunConfig:
    """The run's config from ``--preset``, ``--workload-file``, ``--set`` and knob flags. Raises
    :class:`RunInvalid` (a broken definition: :class:`DefinitionInvalid`, every problem placed)."""
    overrides = overrides_from(args)
    workload_file = getattr(args, "workload_file", None)
    sets = parse_sets(getattr(args, "set", []) or [])
    if workload_file is not None:
        definition, _, _ = read_definition_file(workload_file)
        overrides.update(workload="definition", definition=definition.model_dump(mode="json"), knobs=sets)
    elif sets:
        raise RunInvalid("--set gives knobs of a workload definition: add --workload-file FILE", "knobs")
    if getattr(args, "abort_on", None):
        overrides["abort_on"] = args.abort_on
    capacity = capacity_from(args)
    if capacity is not None:
        overrides["capacity"] = capacity
    profile = profile_from(args)
    if profile is not None:
        overrides["profile"] = profile
    base = config_file(args.config, args.preset) if getattr(args, "config", None) is not None else None
    return presets.make_config(args.preset, overrides, base=base, prefix="invalid run configuration: ")


def config_file(path: Path, preset: str | None) -> RunConfig:
    """The config in a file: a run config, a run export (``run.config``) or a ``--json`` document
    or run (``config``). Raises :class:`RunInvalid` naming the file."""
    if preset is not None:
        raise RunInvalid("give --config or --preset, not both", "config")
    loaded = _read_yaml(path, "--config")
    if isinstance(loaded, dict) and isinstance(loaded.get("run"), dict) and "config" in loaded["run"]:
        loaded = loaded["run"]["config"]
    elif isinstance(loaded, dict) and isinstance(loaded.get("config"), dict):
        loaded = loaded["config"]
    if not isinstance(loaded, dict):
        raise RunInvalid(f"--config {path}: not a run config (a JSON or YAML object)", "config")
    try:
        return RunConfig.model_validate(loaded)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        raise RunInvalid(f"--config {path}: {where}: {first['msg']}", "config") from None


def capacity_from(args: SimpleNamespace) -> dict[str, Any] | None:
    """``config.capacity`` from ``--capacity-file`` with ``--capacity START:STEP:MAX`` on top; None
    without either. Raises :class:`RunInvalid` naming the flag."""
    text, path = getattr(args, "capacity", None), getattr(args, "capacity_file", None)
    out: dict[str, Any] = {}
    if path is not None:
        loaded = _read_yaml(path, "--capacity-file")
        if not isinstance(loaded, dict):
            raise RunInvalid(f"--capacity-file {path}: a capacity search (start_rate, step, max_rate...)", "capacity")
        out.update(loaded)
    if text is not None:
        try:
            start, step, most = (float(part) for part in text.split(":"))
        except ValueError:
            raise RunInvalid(f"--capacity {text!r} is not START:STEP:MAX, e.g. 100:100:5000", "capacity") from None
        out.update(start_rate=start, step=step, max_rate=most)
    return out or None


def _read_yaml(path: Path, flag: str) -> Any:
    try:
        return yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        field = {"--stages-file": "profile", "--capacity-file": "capacity"}.get(flag, "config")
        raise RunInvalid(f"{flag} {path}: {err}", field) from None


def profile_from(args: SimpleNamespace) -> dict[str, Any] | None:
    """``config.profile`` from ``--stages`` or ``--stages-file`` and ``--profile-operation``; None
    without either. Raises :class:`RunInvalid` naming the flag."""
    stages, path = getattr(args, "stages", None), getattr(args, "stages_file", None)
    operation = getattr(args, "profile_operation", None)
    if stages is not None and path is not None:
        raise RunInvalid("give --stages or --stages-file, not both", "profile")
    if stages is None and path is None:
        if operation is not None:
            raise RunInvalid("--profile-operation goes with --stages or --stages-file", "profile")
        return None
    profile: dict[str, Any]
    if stages is not None:
        try:
            profile = {"stages": [s.model_dump() for s in parse_stages(stages)]}
        except ValueError as err:
            raise RunInvalid(f"--stages: {err}", "profile") from None
    else:
        assert path is not None
        loaded = _read_yaml(path, "--stages-file")
        profile = {"stages": loaded} if isinstance(loaded, list) else loaded
        if not isinstance(profile, dict):
            raise RunInvalid(f"--stages-file {path}: a profile (stages: [...]) or a list of stages", "profile")
    if operation is not None:
        profile["operation"] = operation
    return profile


async def run_headless(
    run_id: str,
    config: RunConfig,
    settings: Settings,
    sink: RunSink,
    source: tuple[Any, Positions] | None = None,
    local: SupervisedLocalSpanner | None = None,
) -> bool:
    """Run until the duration ends, the run fails, or SIGINT/SIGTERM; True if interrupted. ``source``:
    the ``--workload-file`` as read, which places the problems of its check before load. ``local``:
    the local Spanner :func:`local_target` started, whose outages go on the run's timeline."""
    from spanload.engine.supervisor import Supervisor  # the Spanner client loads only for a run that goes

    supervisor = Supervisor(settings, sink)
    loop = asyncio.get_running_loop()
    if local is not None:

        def target_changed(change: TargetChange) -> None:  # from the local Spanner's supervising thread
            kind = EventKind.TARGET_UP if change.up else EventKind.TARGET_DOWN
            loop.call_soon_threadsafe(sink.on_event, run_id, kind, change.fields())

        local.on_change = target_changed
    interrupted = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupted.set)
    try:
        await supervisor.start(run_id, config, source)
        finished = asyncio.ensure_future(supervisor.wait_finished(run_id))
        interrupt = asyncio.ensure_future(interrupted.wait())
        await asyncio.wait({finished, interrupt}, return_when=asyncio.FIRST_COMPLETED)
        if interrupt.done() and not finished.done():
            sys.stdout.write("stopping: writers stop, the watcher drains, then the summary...\n")
            sys.stdout.flush()
            await supervisor.stop(run_id)
        interrupt.cancel()
        await finished
        return interrupted.is_set()
    finally:
        if local is not None:
            local.on_change = None
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await supervisor.shutdown()


@contextlib.contextmanager
def local_target(config: RunConfig, settings: Settings) -> Iterator[tuple[RunConfig, SupervisedLocalSpanner | None]]:
    """``config``, pointed at a local Spanner when its target is local without an address: one
    already listening on the settings' port, else one started here, started again if it dies (as
    serve's is), and stopped after; with the server started, if any."""
    if config.target.kind is not TargetKind.LOCAL or config.target.emulator_host:
        yield config, None
        return
    from spanload.spanner.local_server import is_listening, supervise_local_spanner

    address = f"{settings.local_spanner_host}:{settings.local_spanner_port}"
    server = None
    if not settings.local_spanner_port or not is_listening(address):
        server = supervise_local_spanner(settings)
        address = server.address
    try:
        yield config.model_copy(update={"target": config.target.model_copy(update={"emulator_host": address})}), server
    finally:
        if server is not None:
            server.stop()


def main(args: SimpleNamespace) -> int:
    """`spanload run`. Returns the exit code; a :class:`RunError` (bad flags, no local Spanner, a run
    that could not start) goes up to the command line, which prints it and exits with its code."""
    out = sys.stdout
    if args.list_presets:
        for preset in presets.all_presets():
            out.write(f"{preset.name:<28}{preset.description}\n")
        return EXIT_OK
    config = build_config(args)
    checks = [thresholds.parse(t) for t in args.threshold]
    if args.list_metrics:
        out.write("\n".join(thresholds.known_metrics(config)) + "\n")
        return EXIT_OK
    thresholds.check_names(checks, config)  # an unknown name: exit 2 now, not after the whole run
    if args.html and args.no_save:
        raise RunInvalid("--html reports the saved run: drop --no-save")
    if args.server:
        from spanload.cli.remote_run import run_remote

        return finish(args, run_remote(args, config), checks)
    settings = get_settings()
    # a report workload as its built-in definition, the rate cap, a missing runtime: before any server starts
    config = check_start(config, settings).config
    sink = PrintingSink(out, quiet=args.quiet)
    run_id = f"cli-{uuid.uuid4().hex[:12]}"
    from spanload.cli.saved import saving  # the store's libraries load only for a run that goes

    with local_target(config, settings) as (config, local):
        sink.config = config
        saved = contextlib.nullcontext(sink) if args.no_save else saving(settings, run_id, config, sink)
        with saved as target_sink:
            interrupted = asyncio.run(run_headless(run_id, config, settings, target_sink, _source(args), local))
    outcome = Outcome(
        run_id=run_id,
        config=config,
        state=sink.state,
        reason=sink.reason,
        summary=sink.summary,
        samples=sink.samples,
        interrupted=interrupted,
        saved_in=None if args.no_save else settings.store_url,
    )
    return finish(args, outcome, checks)


def _source(args: SimpleNamespace) -> tuple[Any, Positions] | None:
    """The ``--workload-file`` as read (its data and positions), else None."""
    workload_file = getattr(args, "workload_file", None)
    if workload_file is None:
        return None
    _, data, positions = read_definition_file(workload_file)
    return data, positions


def finish(args: SimpleNamespace, outcome: Outcome, checks: list[thresholds.Threshold]) -> int:
    """The summary table, each threshold's verdict, the ``--json`` and ``--html`` files, and the exit code."""
    out = sys.stdout
    if outcome.summary is not None:
        out.write("\n".join(summary_table(outcome.summary, outcome.config.definition)) + "\n")
    figures = thresholds.metrics_of(outcome.summary) if outcome.summary is not None else {}
    verdicts = [c.verdict(figures) for c in checks] if outcome.summary is not None else []
    for verdict in verdicts:
        if verdict["detail"] is not None:
            out.write(f"{verdict['detail']}\n")
    if outcome.saved_in is not None:
        out.write(f"run {outcome.run_id} saved in {outcome.saved_in}\n")
    if args.json:
        write_file(args.json, lambda path: write_json(path, outcome.document(verdicts)))
    if args.html:
        from spanload.cli.report import write_run_report

        write_file(args.html, lambda path: write_run_report(args, outcome, path, verdicts))
    if outcome.state is RunState.FAILED:
        raise RunError(f"the run failed: {outcome.reason}")
    if any(not v["passed"] for v in verdicts):
        return EXIT_FAILED
    return EXIT_INTERRUPTED if outcome.interrupted else EXIT_OK


def write_file(path: Path, write: Callable[[Path], None]) -> None:
    try:
        write(path)
    except OSError as err:
        raise RunError(f"could not write {path}: {err.strerror}") from None
