"""Running one of frontend/e2e/'s browser scripts against a serve: its output is the report."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO

FRONTEND = REPO / "frontend"
CHROMIUM = Path("/usr/bin/chromium")


def npm_script(script: str) -> list[str]:
    """The command that runs package.json's ``script``; fails the test at once when chromium, the
    built UI or npm is missing."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (run it as root)")
    assert (FRONTEND / "dist" / "index.html").exists(), "the UI is not built: run `make install`"
    npm = shutil.which("npm")
    assert npm, "npm is not on PATH"
    return [npm, "run", "--silent", script]


def run_script(command: list[str], env: dict[str, str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    """``command`` in frontend/, with ``env``; it fails a test through its exit code, never by raising."""
    return subprocess.run(
        command, cwd=FRONTEND, env=env, capture_output=True, text=True, timeout=timeout_s, check=False
    )
