"""The `spanload` command tree, on Typer: each command's options, and the module that carries it
out (imported when the command runs, so `spanload --help` and a completion stay quick). Each
command hands its parsed values on as one namespace (``SimpleNamespace(**locals())``, taken before
the command's own import adds a name)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import typer

from spanload import __version__
from spanload.cli import run_command
from spanload.cli.flags import parse_duration
from spanload.cli.params import choice
from spanload.model.config import TargetKind, WorkerRuntime
from spanload.model.state import RunState

EXPORT_FORMATS = ("json", "csv", "summary-csv")
SHELLS = ("bash", "zsh", "fish")

app = typer.Typer(
    name="spanload",
    help="Live load tests for Cloud Spanner.",
    add_completion=True,  # --install-completion / --show-completion; `spanload completion SHELL` prints it too
    pretty_exceptions_enable=False,  # an error is one sentence (commands.main), never a traceback
    # Click's plain help: Rich's help formatting imports markdown and syntax highlighting (pygments),
    # which would make `spanload --help` and every completion slower than the argparse CLI was
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
runs_app = typer.Typer(help="saved runs: list, show, export, compare, delete (a serve's, or the store's)")
workloads_app = typer.Typer(help="the built-in workload definitions")
app.add_typer(runs_app, name="runs")
app.add_typer(workloads_app, name="workloads")
app.command("run", help="run a load test headless and print live status")(run_command.run)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"spanload {__version__}")
        raise typer.Exit()


@app.callback()
def spanload(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """Live load tests for Cloud Spanner."""


Server = Annotated[str | None, typer.Option(metavar="URL", help="a running spanload serve, e.g. http://127.0.0.1:8000")]
Token = Annotated[str | None, typer.Option(help="the server's API token (default: SPANLOAD_API_TOKEN)")]
Json = Annotated[bool, typer.Option("--json", help="print the API's JSON document")]
RunId = Annotated[str, typer.Argument(metavar="RUN_ID")]


@app.command(
    help="serve the dashboard and API (starts the local Spanner); the local Spanner's port is "
    "SPANLOAD_LOCAL_SPANNER_PORT (default 9010; 0 picks a free one)"
)
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="address to bind (default 127.0.0.1, or SPANLOAD_HOST; others need SPANLOAD_API_TOKEN)"),
    ] = None,
    port: Annotated[int | None, typer.Option(help="port to bind (default 8000, or SPANLOAD_PORT)")] = None,
    no_local_spanner: Annotated[
        bool, typer.Option("--no-local-spanner", help="do not start the local Spanner")
    ] = False,
    data_dir: Annotated[
        Path | None, typer.Option(metavar="DIR", help="directory for the run store and local Spanner data")
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS",
            help="place workers of runs without a placement on this Ray cluster: auto, HOST:PORT or ray://HOST:PORT",
        ),
    ] = None,
) -> int:
    args = SimpleNamespace(**locals())
    from spanload.cli.serve import serve as run_serve

    return run_serve(args)


@app.command("local-spanner", help="run the embedded local Spanner server")
def local_spanner(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="gRPC port")] = 9010,
    data_dir: Annotated[
        Path | None, typer.Option(metavar="DIR", help="directory for database files (default: in memory)")
    ] = None,
) -> int:
    from spanload.spanner.local_server import exec_local_spanner

    return exec_local_spanner(host, port, None if data_dir is None else str(data_dir))


@app.command(help="print the API's OpenAPI schema (with the live websocket's messages) as JSON")
def openapi() -> int:
    """The schema of the app as ``spanload serve`` builds it; needs no store and no Spanner."""
    from spanload.main import create_app

    typer.echo(json.dumps(create_app().openapi(), indent=2, sort_keys=True))
    return 0


@app.command(help="check a workload definition: offline, or against a target (schema, statements, types)")
def validate(
    file: Annotated[Path, typer.Argument(help="the definition (YAML or JSON)")],
    target: Annotated[
        str | None,
        typer.Option(help="validate against a target (default: offline)", **choice([k.value for k in TargetKind])),
    ] = None,
    emulator_host: Annotated[
        str | None, typer.Option(metavar="HOST:PORT", help="the local Spanner or emulator to validate on")
    ] = None,
    project: str = "spanload",
    instance: str = "spanload",
    database: str = "spanload",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="execute each operation once (writes rolled back) and print the results")
    ] = False,
    set: Annotated[list[str], typer.Option("--set", metavar="KNOB=VALUE", help="a knob for the dry run")] = [],  # noqa: B006
) -> int:
    args = SimpleNamespace(**locals())
    from spanload.cli import workloads

    return workloads.validate_main(args)


@workloads_app.command("list", help="the built-in definitions")
def workloads_list() -> int:
    from spanload.cli import workloads

    return workloads.workloads_main(SimpleNamespace(verb="list"))


@workloads_app.command("show", help="print one built-in definition")
def workloads_show(name: str) -> int:
    from spanload.cli import workloads

    return workloads.workloads_main(SimpleNamespace(verb="show", name=name))


@workloads_app.command("schema", help="print the definition format's JSON Schema")
def workloads_schema() -> int:
    from spanload.cli import workloads

    return workloads.workloads_main(SimpleNamespace(verb="schema"))


def _runs(verb: str, **values: object) -> int:
    from spanload.cli import runs

    return runs.main(SimpleNamespace(verb=verb, **values))


@runs_app.command("list", help="saved runs, newest first")
def runs_list(
    status: Annotated[
        str | None, typer.Option(help="only runs in this state", **choice([s.value for s in RunState]))
    ] = None,
    name: Annotated[str | None, typer.Option(help="only runs whose name holds this (case-insensitive)")] = None,
    limit: Annotated[int, typer.Option(help="at most this many")] = 50,
    server: Server = None,
    token: Token = None,
    json: Json = False,
) -> int:
    return _runs("list", **locals())


@runs_app.command("show", help="one run: its config, status and summary")
def runs_show(run_id: RunId, server: Server = None, token: Token = None, json: Json = False) -> int:
    return _runs("show", **locals())


@runs_app.command("export", help="one run as JSON (with histograms), CSV or the summary CSV")
def runs_export(
    run_id: RunId,
    format: Annotated[str, typer.Option(**choice(EXPORT_FORMATS))] = "json",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    ] = None,
    server: Server = None,
    token: Token = None,
) -> int:
    return _runs("export", **locals())


@runs_app.command("compare", help="2 to 6 runs side by side; the first is the baseline")
def runs_compare(
    run_ids: Annotated[list[str], typer.Argument(metavar="RUN_ID...")],
    server: Server = None,
    token: Token = None,
    json: Json = False,
) -> int:
    return _runs("compare", **locals())


@runs_app.command("delete", help="delete a run that is not going, with everything stored for it")
def runs_delete(run_id: RunId, server: Server = None, token: Token = None, json: Json = False) -> int:
    return _runs("delete", **locals())


@app.command(help="write a run's (or 2-6 runs' comparison) self-contained HTML report")
def report(
    run_ids: Annotated[
        list[str], typer.Argument(metavar="RUN_ID...", help="one run, or 2 to 6 to compare (first: baseline)")
    ],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    ] = None,
    server: Server = None,
    token: Token = None,
) -> int:
    args = SimpleNamespace(**locals())
    from spanload.cli import report as html_report

    return html_report.main(args)


@app.command(help="run a seed report's variants back to back and compare their key figures")
def experiment(
    name: Annotated[str | None, typer.Argument(metavar="NAME", help="the experiment (see --list)")] = None,
    list: Annotated[bool, typer.Option("--list", help="print the experiments and exit")] = False,
    duration: Annotated[
        Any, typer.Option(parser=parse_duration, metavar="DURATION", help="length of each variant, e.g. 60s")
    ] = None,
    preload_rows: Annotated[
        int | None, typer.Option(metavar="N", help="rows the table holds before the first variant")
    ] = None,
    runtime: Annotated[
        str | None,
        typer.Option(help="worker runtime of every variant", **choice([r.value for r in WorkerRuntime])),
    ] = None,
    emulator_host: Annotated[
        str | None, typer.Option(metavar="HOST:PORT", help="a running local Spanner (default: start one)")
    ] = None,
    json: Annotated[
        Path | None, typer.Option(metavar="DIR", help="write each variant's run as DIR/VARIANT.json")
    ] = None,
) -> int:
    args = SimpleNamespace(**locals())
    from spanload.cli import experiment as experiments

    return experiments.main(args)


@app.command(help='print a shell completion script: eval "$(spanload completion bash)"')
def completion(
    shell: Annotated[
        str, typer.Argument(help="the shell to complete in: bash, zsh or fish", **choice(SHELLS, "SHELL"))
    ],
) -> int:
    from spanload.cli.completion import script

    typer.echo(script(shell))
    return 0
