"""Running one of frontend/e2e/'s browser scripts against a serve: its output is the report."""

from __future__ import annotations

import subprocess

from tests.helpers import REPO

FRONTEND = REPO / "frontend"


def run_script(command: list[str], env: dict[str, str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    """``command`` in frontend/, with ``env``; it fails a test through its exit code, never by raising."""
    return subprocess.run(
        command, cwd=FRONTEND, env=env, capture_output=True, text=True, timeout=timeout_s, check=False
    )
