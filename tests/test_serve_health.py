"""`spanload serve` as a user starts it: health reports the local Spanner up; nothing is left behind."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.helpers import VENV_BIN, ServeProcess, wait_for


def test_serve_reports_local_spanner_up_and_leaves_no_child(tmp_path: Path) -> None:
    with ServeProcess(tmp_path) as serve:
        health = serve.health
        assert health["status"] == "ok"
        assert health["version"]
        assert health["local_spanner"]["version"] == health["version"]
        host, _, spanner_port = health["local_spanner"]["address"].rpartition(":")
        assert host == "127.0.0.1" and int(spanner_port) > 0
        assert serve.children, "serve started no child process"
        returncode = serve.stop()
    assert returncode == 0, serve.output
    assert not serve.leftover_children(), f"children left running after serve stopped: {serve.leftover_children()}"


def test_unknown_flag_exits_2_with_one_sentence() -> None:
    result = subprocess.run(
        [str(VENV_BIN / "spanload"), "serve", "--no-such-flag"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--no-such-flag" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_every_command_has_help() -> None:
    for command in ([], ["serve"], ["run"], ["local-spanner"]):
        result = subprocess.run(
            [sys.executable, "-m", "spanload.cli", *command, "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert "usage: spanload" in result.stdout


def test_local_spanner_binary_prints_version() -> None:
    result = subprocess.run(
        [str(VENV_BIN / "spanload-local-spanner"), "--version"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0
    assert result.stdout.startswith("spanload-local-spanner ")


def test_a_killed_serve_takes_its_local_spanner_with_it(tmp_path: Path) -> None:
    with ServeProcess(tmp_path) as serve:
        assert serve.children, "serve started no child process"
        serve.stop(signal.SIGKILL)
    # the child is told by the kernel (PR_SET_PDEATHSIG) and stops in its own time
    wait_for(lambda: None if serve.leftover_children() else True, 15, "the orphaned local Spanner to stop")
