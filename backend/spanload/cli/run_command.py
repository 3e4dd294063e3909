"""`spanload run`'s options: the run's own (presets, files, thresholds, where to run it), written
here, then one per knob of the run config, generated from its fields (flags.py) into the command's
signature, which is where Typer reads options from."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import typer

from spanload.cli.flags import knob_parameters

File = Annotated[Path | None, typer.Option(metavar="FILE")]


def run(
    preset: Annotated[
        str | None, typer.Option(help="start from a preset (see --list-presets); knob flags override it")
    ] = None,
    list_presets: Annotated[bool, typer.Option("--list-presets", help="print the presets and exit")] = False,
    config: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="start from a saved config (JSON or YAML): a run config, a run export or a --json document; "
            "knob flags override it",
        ),
    ] = None,
    list_metrics: Annotated[
        bool, typer.Option("--list-metrics", help="print the names --threshold can use for this config and exit")
    ] = False,
    json: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="write the run id, config, summary, each threshold's verdict and every sample here"
        ),
    ] = None,
    html: Annotated[Path | None, typer.Option(metavar="FILE", help="write the run's HTML report here")] = None,
    no_save: Annotated[bool, typer.Option("--no-save", help="do not save the run in the run store")] = False,
    server: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="start the run on a running spanload serve (it shows live in its dashboard) and follow it here",
        ),
    ] = None,
    token: Annotated[str | None, typer.Option(help="the server's API token (default: SPANLOAD_API_TOKEN)")] = None,
    threshold: Annotated[
        list[str],
        typer.Option(
            metavar="EXPR",
            help="fail unless it holds, e.g. 'updater.p99_ms<50', 'watcher.changes_ps>10', 'reconciliation.ok==1'",
        ),
    ] = [],  # noqa: B006 (Typer copies it)
    abort_on: Annotated[
        list[str],
        typer.Option(
            metavar="RULE",
            help="stop the run (and fail it) once this holds for a time, judged every interval, "
            "e.g. 'updater.p99_ms>500 for 30s' (repeatable; config.abort_on)",
        ),
    ] = [],  # noqa: B006
    quiet: Annotated[bool, typer.Option("--quiet", help="no live status block")] = False,
    workload_file: Annotated[
        Path | None, typer.Option(metavar="FILE", help="run a workload definition (YAML or JSON); see workloads/")
    ] = None,
    set: Annotated[
        list[str],
        typer.Option(
            "--set", metavar="KNOB=VALUE", help="a knob of the definition, e.g. --set order_rate=80 (repeatable)"
        ),
    ] = [],  # noqa: B006
    stages: Annotated[
        str | None,
        typer.Option(
            metavar="STAGES",
            help="a load profile: RATE:DURATION, ramp:FROM-TO:DURATION, step:[FROM+]INCREMENT/EVERY:TO, comma "
            "separated, e.g. '100:30s,ramp:100-2000:5m,2000:1m'; it drives the updater's rate (see "
            "--profile-operation)",
        ),
    ] = None,
    stages_file: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="a load profile from a file (YAML or JSON: config.profile)"),
    ] = None,
    profile_operation: Annotated[
        str | None,
        typer.Option(metavar="OP", help="the definition's operation the profile drives (rate or concurrency)"),
    ] = None,
    capacity: Annotated[
        str | None,
        typer.Option(
            metavar="START:STEP:MAX",
            help="a capacity search: the updater's rate from START up by STEP a step while each step holds, up "
            "to MAX (e.g. 100:100:5000); the other settings (stop conditions, step times) from --capacity-file "
            "or defaults",
        ),
    ] = None,
    capacity_file: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="a capacity search from a file (YAML or JSON: config.capacity)"),
    ] = None,
    **knobs: Any,
) -> int:
    values = SimpleNamespace(**{name: value for name, value in locals().items() if name != "knobs"}, **knobs)
    from spanload.cli import headless

    return headless.main(values)


_written = [
    p for p in inspect.signature(run, eval_str=True).parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD
]
run.__signature__ = inspect.signature(run).replace(parameters=[*_written, *knob_parameters()])  # type: ignore[attr-defined]


def parse(argv: Sequence[str]) -> SimpleNamespace:
    """``spanload run ARGV``'s values as the command gets them, without running it (for tests and
    tools that build a config the way the command line does). A bad flag raises Typer's usage error."""
    app = typer.Typer()
    app.command()(run)
    command = typer.main.get_command(app)
    with command.make_context("run", list(argv)) as ctx:
        return SimpleNamespace(
            **{name: list(value) if isinstance(value, tuple) else value for name, value in ctx.params.items()}
        )
