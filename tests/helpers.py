"""Helpers shared by the test suites: free ports, child processes, polling."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def children_of(pid: int) -> set[int]:
    """PIDs whose parent is ``pid`` (from /proc)."""
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(probe: Callable[[], T | None], timeout_s: float, what: str, every_s: float = 0.1) -> T:
    """Call ``probe`` until it returns something other than None, or fail naming ``what``."""
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = probe()
        except Exception as err:  # the thing polled is not up yet
            last_error = err
        else:
            if result is not None:
                return result
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}; last error: {last_error}")
