"""The local worker transport: a child process with env, lines both ways, exit status, kill."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys

from spanload.engine.transports import LocalLauncher, WorkerSpec

ECHO = (
    "import os, sys\n"
    "print('env', os.environ['SPANLOAD_TEST_VALUE'], flush=True)\n"
    "for line in sys.stdin:\n"
    "    print('echo', line.strip(), flush=True)\n"
    "    print('err', line.strip(), file=sys.stderr, flush=True)\n"
    "sys.exit(7)\n"
)


def test_a_local_worker_gets_its_env_echoes_lines_and_reports_its_exit_status() -> None:
    async def scenario() -> None:
        spec = WorkerSpec(index=0, command=[sys.executable, "-c", ECHO], env={"SPANLOAD_TEST_VALUE": "v42"})
        (transport,) = await LocalLauncher().start([spec])
        assert transport.node is None
        assert transport.host == socket.gethostname()
        assert transport.pid > 0
        assert await transport.readline() == b"env v42\n"
        transport.write(b'{"type": "x"}\n')
        assert await transport.readline() == b'echo {"type": "x"}\n'
        assert await transport.readline_err() == b'err {"type": "x"}\n'
        assert transport.returncode is None
        transport.close_input()
        transport.write(b"dropped after close\n")  # no error, no effect
        assert await transport.readline() == b""
        assert await transport.wait() == 7
        assert transport.returncode == 7

    asyncio.run(scenario())


def test_killing_a_local_worker_ends_its_streams_with_the_signal_as_status() -> None:
    async def scenario() -> None:
        spec = WorkerSpec(index=1, command=[sys.executable, "-c", "import time; time.sleep(60)"])
        (transport,) = await LocalLauncher().start([spec])
        transport.kill()
        assert await transport.readline() == b""
        assert await asyncio.wait_for(transport.wait(), 10) == -signal.SIGKILL
        transport.kill()  # already gone: no error
        transport.terminate()

    asyncio.run(scenario())
