"""`spanload serve | run | runs | report | validate | workloads | experiment | local-spanner | openapi |
completion`:
parse the command and run it. An error of the tree (model/errors.py) becomes one sentence on stderr and
its exit code."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from spanload import __version__
from spanload.model.errors import EXIT_USAGE, RunError


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one sentence and exit code 2, never a traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message[0].upper()}{message[1:]}. Try '{self.prog} --help'.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="spanload", description="Live load tests for Cloud Spanner.")
    parser.add_argument("--version", action="version", version=f"spanload {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    serve = commands.add_parser("serve", help="serve the dashboard and API (starts the local Spanner)")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1; others need SPANLOAD_API_TOKEN)")
    serve.add_argument("--port", type=int, help="port to bind (default 8000)")
    serve.add_argument("--no-local-spanner", action="store_true", help="do not start the local Spanner")
    serve.add_argument("--data-dir", help="directory for the run store and local Spanner data")
    serve.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="place workers of runs without a placement on this Ray cluster: auto, HOST:PORT or ray://HOST:PORT",
    )

    local = commands.add_parser("local-spanner", help="run the embedded local Spanner server")
    local.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    local.add_argument("--port", type=int, default=9010, help="gRPC port (default 9010)")
    local.add_argument("--data-dir", help="directory for database files (default: in memory)")

    commands.add_parser("openapi", help="print the API's OpenAPI schema (with the live websocket's messages) as JSON")

    from spanload.cli import headless, workloads

    run = commands.add_parser("run", help="run a load test headless and print live status")
    headless.add_arguments(run)
    validate = commands.add_parser(
        "validate", help="check a workload definition: offline, or against a target (schema, statements, types)"
    )
    workloads.add_validate_arguments(validate)
    workloads.add_workloads_arguments(commands.add_parser("workloads", help="the built-in workload definitions"))

    from spanload.cli import report, runs

    runs.add_arguments(
        commands.add_parser("runs", help="saved runs: list, show, export, compare, delete (a serve's, or the store's)")
    )
    report.add_arguments(
        commands.add_parser("report", help="write a run's (or 2-6 runs' comparison) self-contained HTML report")
    )

    from spanload.cli import experiment

    experiment.add_arguments(
        commands.add_parser(
            "experiment", help="run a seed report's variants back to back and compare their key figures"
        )
    )
    from spanload.cli import completion

    completion.add_arguments(
        commands.add_parser("completion", help='print a shell completion script: eval "$(spanload completion bash)"')
    )
    return parser


def print_openapi() -> int:
    """The schema of the app as ``spanload serve`` builds it; needs no store and no Spanner."""
    from spanload.main import create_app

    print(json.dumps(create_app().openapi(), indent=2, sort_keys=True))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _command(args)
    except RunError as err:  # the one place the command line turns the error tree into a sentence
        sys.stderr.write(f"spanload {args.command}: {err}\n")
        return err.exit_code


def _command(args: argparse.Namespace) -> int:
    match args.command:
        case "serve":
            from spanload.cli.serve import serve

            return serve(args)
        case "local-spanner":
            from spanload.spanner.local_server import exec_local_spanner

            return exec_local_spanner(args.host, args.port, args.data_dir)
        case "openapi":
            return print_openapi()
        case "run":
            from spanload.cli import headless

            return headless.main(args)
        case "validate":
            from spanload.cli import workloads

            return workloads.validate_main(args)
        case "workloads":
            from spanload.cli import workloads

            return workloads.workloads_main(args)
        case "runs":
            from spanload.cli import runs

            return runs.main(args)
        case "report":
            from spanload.cli import report

            return report.main(args)
        case "experiment":
            from spanload.cli import experiment

            return experiment.main(args)
        case "completion":
            from spanload.cli import completion

            return completion.main(args)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
