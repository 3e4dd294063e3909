"""The Workloads page and a definition run's live page driven in Debian's chromium (playwright-core)
against a real `spanload serve` with the local Spanner: issue 26's proof, in
frontend/e2e/workloads.mjs. A definition for a schema the project never saw is written in the
editor with a misspelt column, its error is placed on its line, it is fixed, started, and a knob
generated from it is moved live until that operation's target follows; a second run of the same
definition, whose only difference is that knob's value, is compared with the first: compare shows
the knob's values and says the definitions are the same."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.browser.frontend_script import FRONTEND, npm_script, run_script
from tests.helpers import ServeProcess

E2E_TIMEOUT_S = 300

pytestmark = pytest.mark.browser


def test_write_validate_fix_start_and_tune_a_definition_in_the_browser(tmp_path: Path) -> None:
    command = npm_script("e2e:workloads")
    started = time.time()
    with ServeProcess(tmp_path) as serve:
        result = run_script(command, {**serve.env, "SPANLOAD_URL": serve.url}, E2E_TIMEOUT_S)
        returncode = serve.stop()
    report = f"{result.stdout}\n{result.stderr}\nserve's output:\n{serve.output[-4000:]}"
    assert result.returncode == 0, f"browser test failed:\n{report}"
    for seen in ("see the error on line", "see lend's target move", "the definitions are the same"):
        assert seen in result.stdout, report
    assert returncode == 0, serve.output[-4000:]
    assert not serve.leftover_children()
    shots = FRONTEND / "test-results" / "workloads"
    fresh = sorted(p.name for p in shots.glob("*.png") if p.stat().st_mtime >= started)
    assert fresh == sorted(
        [
            *(
                f"{name}-{width}.png"
                for name in ("workloads-page", "editor-error", "dry-run", "live-three-operations")
                for width in (1280, 390)
            ),
            "compare-definition-diff-1280.png",
        ]
    ), fresh
