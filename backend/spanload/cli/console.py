"""Where the command line draws with Rich: its tables, and an error's one sentence (red on a
terminal). Off a terminal (a pipe, a CI log, a test) Rich writes no escape codes, and NO_COLOR is
honoured everywhere (Rich reads it); a sentence is never wrapped, so it stays one line."""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console, RenderableType

PIPE_WIDTH = 160  # a table's width off a terminal: wide enough for a CI log, fixed for scripts


def console(out: TextIO) -> Console:
    return Console(file=out, width=None if out.isatty() else PIPE_WIDTH, highlight=False, emoji=False)


def show(what: RenderableType, out: TextIO | None = None) -> None:
    """A table (or any renderable), as wide as the terminal, or :data:`PIPE_WIDTH` off one."""
    console(out or sys.stdout).print(what)


def error(sentence: str) -> None:
    """One sentence on stderr: red on a terminal, plain text otherwise."""
    console(sys.stderr).print(sentence, style="red", markup=False, soft_wrap=True)
