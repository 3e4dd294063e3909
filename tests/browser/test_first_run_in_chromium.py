"""A new user's first run in Debian's chromium against a real `spanload serve` (issue 23's
papercuts), the steps in frontend/e2e/first_run.mjs: /docs with the network blocked, /runs/unknown's
404s, the live page after Start, its controls at 1280x900 and 390 px, the change watcher's charts
first, a failed run's pages, and the config's plurals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.browser.frontend_script import FRONTEND, run_script
from tests.helpers import ServeProcess

CHROMIUM = Path("/usr/bin/chromium")
TIMEOUT_S = 300

pytestmark = pytest.mark.browser


def test_first_run_papercuts_in_the_browser(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (run it as root)")
    assert (FRONTEND / "dist" / "swagger-ui" / "swagger-ui-bundle.js").exists(), (
        "the UI is not built: run `make install`"
    )
    node = shutil.which("node")
    assert node, "node is not on PATH"
    with ServeProcess(tmp_path) as serve:
        result = run_script([node, "e2e/first_run.mjs"], {**serve.env, "SPANLOAD_URL": serve.url}, TIMEOUT_S)
        returncode = serve.stop()
    report = f"{result.stdout}\n{result.stderr}\nserve's output:\n{serve.output[-4000:]}"
    assert result.returncode == 0 and "all steps passed" in result.stdout, f"browser test failed:\n{report}"
    assert returncode == 0, serve.output[-4000:]
    assert not serve.leftover_children()
