"""The web UI driven in Debian's chromium (playwright-core) against a real `spanload serve`
with the local Spanner: the steps of issue 4's proof, in frontend/e2e/run.mjs."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import REPO, ServeProcess

FRONTEND = REPO / "frontend"
CHROMIUM = Path("/usr/bin/chromium")
E2E_TIMEOUT_S = 240

pytestmark = pytest.mark.browser


def test_light_run_live_tuning_and_compare_in_the_browser(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (run it as root)")
    assert (FRONTEND / "dist" / "index.html").exists(), "the UI is not built: run `make install`"
    npm = shutil.which("npm")
    assert npm, "npm is not on PATH"
    started = time.time()
    with ServeProcess(tmp_path) as serve:
        result = subprocess.run(
            [npm, "run", "--silent", "e2e"],
            cwd=FRONTEND,
            env={**serve.env, "SPANLOAD_URL": serve.url},
            capture_output=True,
            text=True,
            timeout=E2E_TIMEOUT_S,
            check=False,
        )
        returncode = serve.stop()
    report = f"{result.stdout}\n{result.stderr}\nserve's output:\n{serve.output[-4000:]}"
    assert result.returncode == 0, f"browser test failed:\n{report}"
    assert returncode == 0, serve.output[-4000:]
    assert not serve.leftover_children()
    fresh = [p.name for p in (FRONTEND / "test-results").glob("**/*.png") if p.stat().st_mtime >= started]
    assert fresh, "the browser test saved no screenshots under frontend/test-results/"
