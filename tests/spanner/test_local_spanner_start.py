"""A local Spanner that dies before its ready line is reported when it dies, with how it ended and
what it printed, not after the ready timeout as a server that "did not become ready"."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from spanload.spanner.local_server import LocalSpannerError, start_local_spanner

# a hang guard only: the old code waited for the end of the output, which the grandchild holds
pytestmark = pytest.mark.timeout(120)


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def test_a_server_that_exits_at_once_is_reported_with_its_status_and_message(tmp_path: Path) -> None:
    binary = _script(
        tmp_path / "dies",
        'echo "loading" \necho "spanload-local-spanner: cannot open data directory: disk on fire" >&2\nexit 3\n',
    )
    with pytest.raises(LocalSpannerError) as raised:
        start_local_spanner(port=0, binary=binary)
    assert str(raised.value) == (
        "dies exited with code 3 before it was ready: loading\n"
        "spanload-local-spanner: cannot open data directory: disk on fire"
    )


def test_a_server_killed_by_a_signal_is_reported_so(tmp_path: Path) -> None:
    binary = _script(tmp_path / "killed", 'echo "about to go"\nkill -9 $$\n')
    with pytest.raises(LocalSpannerError) as raised:
        start_local_spanner(port=0, binary=binary)
    assert str(raised.value) == "killed was killed by SIGKILL before it was ready: about to go"


def test_a_dead_server_is_reported_while_a_grandchild_still_holds_its_output(tmp_path: Path) -> None:
    """The end of the output is not the sign of death: a process it left behind keeps the pipe open."""
    pid_file = tmp_path / "grandchild.pid"
    binary = _script(
        tmp_path / "leaves-a-child",
        f'sleep 40 &\necho $! > {pid_file}\necho "gone, leaving a child"\nexit 4\n',
    )
    try:
        with pytest.raises(LocalSpannerError) as raised:
            start_local_spanner(port=0, binary=binary)
        assert str(raised.value) == "leaves-a-child exited with code 4 before it was ready: gone, leaving a child"
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
