"""`spanload serve` as a user starts it: health reports the local Spanner up; nothing is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.helpers import REPO, VENV_BIN, ServeProcess, wait_for

PROJECT_VERSION = tomllib.loads((REPO / "backend" / "pyproject.toml").read_text())["project"]["version"]


def _program(pid: int) -> str:
    return Path(f"/proc/{pid}/exe").resolve().name


def _listening_pid(port: int) -> int | None:
    """The process holding the listening TCP socket on ``port`` of 127.0.0.1 (from /proc)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state, inode = line.split()[1], line.split()[3], line.split()[9]
        if state == "0A" and local == f"0100007F:{port:04X}":  # LISTEN on 127.0.0.1
            inodes.add(f"socket:[{inode}]")
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(fd) in inodes:
                return int(fd.parts[2])
        except OSError:
            continue
    return None


def test_serve_reports_local_spanner_up_and_leaves_no_child(tmp_path: Path) -> None:
    with ServeProcess(tmp_path) as serve:
        health = serve.health
        assert health["status"] == "ok"
        assert health["version"] == PROJECT_VERSION
        assert health["local_spanner"]["version"] == PROJECT_VERSION
        host, _, spanner_port = health["local_spanner"]["address"].rpartition(":")
        assert host == "127.0.0.1"
        # serve's one child is the local Spanner, and it is what listens at the address health gives
        assert [_program(pid) for pid in serve.children] == ["spanload-local-spanner"], serve.children
        assert _listening_pid(int(spanner_port)) in serve.children
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
        assert "Usage: spanload" in result.stdout  # Typer's (Rich's) help


def test_local_spanner_binary_prints_version() -> None:
    result = subprocess.run(
        [str(VENV_BIN / "spanload-local-spanner"), "--version"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0
    assert result.stdout == f"spanload-local-spanner {PROJECT_VERSION}\n", result.stdout


def test_a_killed_serve_takes_its_local_spanner_with_it(tmp_path: Path) -> None:
    with ServeProcess(tmp_path) as serve:
        assert [_program(pid) for pid in serve.children] == ["spanload-local-spanner"], serve.children
        serve.stop(signal.SIGKILL)
    # the child is told by the kernel (PR_SET_PDEATHSIG) and stops in its own time
    wait_for(lambda: None if serve.leftover_children() else True, 15, "the orphaned local Spanner to stop")


def test_serve_on_every_address_without_a_token_exits_2_with_one_sentence(tmp_path: Path) -> None:
    """Binding 0.0.0.0 puts the API on the network: without SPANLOAD_API_TOKEN serve refuses to start."""
    env = {
        **{k: v for k, v in os.environ.items() if k != "SPANLOAD_API_TOKEN"},
        "SPANLOAD_DATA_DIR": str(tmp_path / "data"),
        "SPANLOAD_LOCAL_SPANNER_PORT": "0",
    }
    result = subprocess.run(
        [str(VENV_BIN / "spanload"), "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "spanload serve: binding 0.0.0.0 exposes the API beyond this machine; "
        "set SPANLOAD_API_TOKEN to require a token."
    ]
    assert not (tmp_path / "data").exists()  # refused before anything started
