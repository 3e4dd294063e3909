"""`serve`'s local Spanner is supervised: a server that dies is started again on the same address and
data directory, after a backoff that doubles while it keeps dying and resets once it stayed up."""

from __future__ import annotations

import os
import queue
import signal
from pathlib import Path

from spanload.spanner.local_server import ServerState, SupervisedLocalSpanner, TargetChange, is_listening
from tests.helpers import alive, wait_for

CHANGE_TIMEOUT_S = 60.0


def _kill_and_wait_back(
    server: SupervisedLocalSpanner, changes: queue.Queue[TargetChange]
) -> tuple[int, TargetChange, TargetChange]:
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    down = changes.get(timeout=CHANGE_TIMEOUT_S)
    up = changes.get(timeout=CHANGE_TIMEOUT_S)
    return pid, down, up


def test_a_killed_local_spanner_comes_back_on_its_address_with_a_doubling_backoff(tmp_path: Path) -> None:
    changes: queue.Queue[TargetChange] = queue.Queue()
    server = SupervisedLocalSpanner(
        data_dir=tmp_path / "data", backoff_s=0.2, backoff_max_s=0.5, stable_s=3600, on_change=changes.put
    )
    pids = [server.pid]
    try:
        address = server.address
        for restarts, (wait_s, next_wait_s) in enumerate([(0.2, 0.4), (0.4, 0.5), (0.5, 0.5)]):
            pid, down, up = _kill_and_wait_back(server, changes)
            assert down == TargetChange(
                up=False,
                address=address,
                restarts=restarts,
                reason="local Spanner was killed by SIGKILL",
                wait_s=wait_s,
            )
            assert (up.up, up.address, up.restarts, up.reason) == (True, address, restarts + 1, None)
            assert up.down_s is not None and up.down_s >= wait_s  # it waited out the backoff
            assert server.state is ServerState.UP
            assert server.restarts == restarts + 1
            assert server.last_exit == "was killed by SIGKILL"
            assert server.next_wait_s == next_wait_s
            assert server.pid not in (None, pid)
            assert is_listening(address)
            wait_for(lambda pid=pid: None if alive(pid) else True, 10, "the killed server to be reaped")
            pids.append(server.pid)
    finally:
        server.stop()
    assert server.state is ServerState.DOWN
    assert changes.empty()  # a stop is not a death: nothing restarts it
    assert [pid for pid in pids if pid is not None and alive(pid)] == []


def test_the_backoff_starts_over_once_the_server_stayed_up(tmp_path: Path) -> None:
    changes: queue.Queue[TargetChange] = queue.Queue()
    server = SupervisedLocalSpanner(
        data_dir=tmp_path / "data", backoff_s=0.2, backoff_max_s=5, stable_s=0, on_change=changes.put
    )
    try:
        waits = [_kill_and_wait_back(server, changes)[1].wait_s for _ in range(3)]
    finally:
        server.stop()
    assert waits == [0.2, 0.2, 0.2]
