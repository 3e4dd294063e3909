"""`spanload completion bash|zsh|fish`: the shell's completion script, Typer's (the same as
``spanload --show-completion SHELL``). The script asks the command itself what to offer (it runs
``spanload`` with ``_SPANLOAD_COMPLETE`` set), so every subcommand and every flag generated from the
config fields completes, and a new one needs no completion written for it."""

from __future__ import annotations

from typer.completion import get_completion_script  # type: ignore[attr-defined]  # Typer re-exports it there

from spanload.cli.commands import PROG

COMPLETE_VAR = f"_{PROG.upper()}_COMPLETE"


def script(shell: str) -> str:
    return get_completion_script(prog_name=PROG, complete_var=COMPLETE_VAR, shell=shell)
