"""`spanload report RUN_ID -o FILE.html` opened from disk in Debian's chromium with every request
that is not file:// aborted (frontend/e2e/report_offline.mjs): the file stands alone, and it draws
each of the run's series."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.browser.frontend_script import CHROMIUM, FRONTEND
from tests.helpers import VENV_BIN
from tests.reports.expected import RUN_CHARTS
from tests.store.stored_run import store_finished_run

pytestmark = pytest.mark.browser


def _run(
    command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_the_report_file_draws_every_series_of_the_run_with_the_network_blocked(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (run it as root)")
    store_finished_run(tmp_path, "offline-run")
    report = tmp_path / "report.html"
    env = {**os.environ, "SPANLOAD_DATA_DIR": str(tmp_path)}
    written = _run([str(VENV_BIN / "spanload"), "report", "offline-run", "-o", str(report)], env=env)
    assert written.returncode == 0, written.stderr
    node = shutil.which("node")
    assert node, "node is not on PATH"
    shot = FRONTEND / "test-results" / "report" / "run-report.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    opened = _run([node, "e2e/report_offline.mjs", str(report), str(shot)], cwd=FRONTEND)
    assert opened.returncode == 0, opened.stderr
    seen = json.loads(opened.stdout.strip().splitlines()[-1])
    assert seen["blocked"] == []  # it asked for nothing beyond the file
    assert seen["title"] == "Spanload run stored offline-run"
    assert {c["id"]: c["labels"] for c in seen["charts"]} == RUN_CHARTS
    assert shot.stat().st_size > 0
