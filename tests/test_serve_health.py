"""`spanload serve` as a user starts it: health reports the local Spanner up; nothing is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

import httpx

from tests.helpers import VENV_BIN, alive, children_of, free_port, wait_for


def test_serve_reports_local_spanner_up_and_leaves_no_child(tmp_path: Any) -> None:
    port = free_port()
    env = {
        **os.environ,
        "SPANLOAD_PORT": str(port),
        "SPANLOAD_DATA_DIR": str(tmp_path),
        "SPANLOAD_LOCAL_SPANNER_PORT": "0",
    }
    serve = subprocess.Popen(
        [str(VENV_BIN / "spanload"), "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:

        def healthy() -> dict[str, Any] | None:
            body: dict[str, Any] = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).json()
            return body if body["local_spanner"]["state"] == "up" else None

        health = wait_for(healthy, 60, "the local Spanner to be reported up")
        assert health["status"] == "ok"
        assert health["version"]
        assert health["local_spanner"]["version"] == health["version"]
        host, _, spanner_port = health["local_spanner"]["address"].rpartition(":")
        assert host == "127.0.0.1" and int(spanner_port) > 0
        children = children_of(serve.pid)
        assert children, "serve started no child process"
    finally:
        serve.send_signal(signal.SIGINT)
        output, _ = serve.communicate(timeout=30)
    assert serve.returncode == 0, output
    leftovers = [pid for pid in children if alive(pid)]
    assert not leftovers, f"child processes left running after serve stopped: {leftovers}"


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
