"""A capacity search in Debian's chromium (playwright-core) against a real `spanload serve` with the
local Spanner: issue 28's browser proof, in frontend/e2e/capacity.mjs. A search is set on the New
run page and started; another, against a synthetic knee, is watched on its live page drawing its
curve point by point and marking the knee; compare overlays the two curves."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.browser.frontend_script import FRONTEND, npm_script, run_script
from tests.helpers import ServeProcess

E2E_TIMEOUT_S = 240

pytestmark = pytest.mark.browser


def test_a_capacity_search_draws_its_curve_and_marks_the_knee_in_the_browser(tmp_path: Path) -> None:
    command = npm_script("e2e:capacity")
    started = time.time()
    with ServeProcess(tmp_path) as serve:
        result = run_script(command, {**serve.env, "SPANLOAD_URL": serve.url}, E2E_TIMEOUT_S)
        returncode = serve.stop()
    report = f"{result.stdout}\n{result.stderr}\nserve's output:\n{serve.output[-4000:]}"
    assert result.returncode == 0, f"browser test failed:\n{report}"
    assert "ok   start a search against a synthetic knee and see its curve draw point by point" in result.stdout, report
    assert returncode == 0, serve.output[-4000:]
    assert not serve.leftover_children()
    shots = FRONTEND / "test-results" / "capacity"
    fresh = sorted(p.name for p in shots.glob("*.png") if p.stat().st_mtime >= started)
    names = ("new-run-capacity", "live-capacity-curve", "compare-capacity")
    assert fresh == sorted(f"{name}-{width}.png" for name in names for width in (1280, 390)), fresh
