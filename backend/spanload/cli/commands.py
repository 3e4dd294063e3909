"""`spanload serve | run | runs | report | validate | workloads | experiment | local-spanner | openapi |
completion`: parse the command (the Typer app, app.py) and run it. A usage error (a bad flag or
value) and an error of the tree (model/errors.py) each become one sentence on stderr and their exit
code, never a traceback nor Click's usage block."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer
import typer.main

from spanload.model.errors import EXIT_INTERRUPTED, EXIT_USAGE, RunError

PROG = "spanload"


def main(argv: Sequence[str] | None = None) -> int:
    from spanload.cli.app import app

    command = typer.main.get_command(app)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = command.main(args, prog_name=PROG, standalone_mode=False)
    except typer.Exit as done:
        return int(done.exit_code)
    except typer.Abort:
        sys.stderr.write("\n")
        return EXIT_INTERRUPTED
    except typer.TyperException as err:  # a usage error: Click's, as one sentence
        _error(usage_sentence(err))
        return EXIT_USAGE
    except RunError as err:  # the one place the command line turns the error tree into a sentence
        _error(f"{PROG} {_command_name(args)}: {err}")
        return err.exit_code
    return code if isinstance(code, int) else 0


def _error(sentence: str) -> None:
    from spanload.cli.console import error  # Rich loads for an error, not for every command

    error(sentence)


def usage_sentence(err: typer.TyperException) -> str:
    """``spanload run: Invalid value for '--tps': ... Try 'spanload run --help'.`` on one line."""
    ctx = getattr(err, "ctx", None)
    where = ctx.command_path if ctx is not None else PROG
    message = " ".join(err.format_message().replace("Value error, ", "").split())
    return f"{where}: {message[:1].upper()}{message[1:].rstrip('.')}. Try '{where} --help'."


def _command_name(args: list[str]) -> str:
    """The subcommand named in ``args`` (for the error's prefix: ``spanload run: ...``)."""
    return next((a for a in args if not a.startswith("-")), "")


if __name__ == "__main__":
    sys.exit(main())
