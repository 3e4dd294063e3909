"""Shared helpers for the bench scripts: the repository root on sys.path and small statistics."""

from __future__ import annotations

import contextlib
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def median_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000.0


def fmt_rate(value: float) -> str:
    return f"{value:,.0f}"


def verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


@contextlib.contextmanager
def local_spanner(address: str | None) -> Iterator[str]:
    """``address`` when given (a running server), else a local Spanner started in memory for the
    bench and stopped after it."""
    if address is not None:
        yield address
        return
    from spanload.model.settings import Settings
    from spanload.spanner.local_server import start_local_spanner

    server = start_local_spanner("127.0.0.1", 0, None, Settings().local_spanner_binary)
    try:
        yield server.address
    finally:
        server.stop()
