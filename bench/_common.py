"""Shared helpers for the bench scripts: the repository root on sys.path and small statistics."""

from __future__ import annotations

import statistics
import sys
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
