"""Typer option settings the commands share: a choice among fixed values, refused in argparse's
words (``invalid choice: 'xml' (choose from json, csv)``), completed by the shell."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def choice(values: Sequence[str], metavar: str | None = None) -> dict[str, Any]:
    """``typer.Option(..., **choice(values))``: the parser, metavar (``{a,b}`` unless given) and
    completion of a choice."""

    def parse(text: str) -> str:
        if text not in values:
            raise ValueError(f"invalid choice: {text!r} (choose from {', '.join(values)})")
        return text

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return {"parser": parse, "metavar": metavar or "{" + ",".join(values) + "}", "autocompletion": complete}
