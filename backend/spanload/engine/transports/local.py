"""The local transport: each worker is a child process of this one, on stdin/stdout pipes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Sequence

from spanload.engine.transports.base import WorkerSpec, WorkerTransport

STREAM_LIMIT = 1 << 30  # a ledger line can be large


class LocalTransport:
    """A worker running as an asyncio child process of the engine."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self._host = socket.gethostname()

    @classmethod
    async def start(cls, spec: WorkerSpec) -> LocalTransport:
        env = {**os.environ, **spec.env} if spec.env else None
        process = await asyncio.create_subprocess_exec(
            *spec.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=STREAM_LIMIT,
            env=env,
        )
        return cls(process)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def host(self) -> str:
        return self._host

    @property
    def node(self) -> str | None:
        return None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    @property
    def failure(self) -> str | None:
        return None

    def write(self, line: bytes) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.write(line)

    def close_input(self) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    async def readline(self) -> bytes:
        assert self._process.stdout is not None
        return await self._process.stdout.readline()

    async def readline_err(self) -> bytes:
        assert self._process.stderr is not None
        return await self._process.stderr.readline()

    async def wait(self) -> int:
        return await self._process.wait()

    def terminate(self) -> None:
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()

    def kill(self) -> None:
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()


class LocalLauncher:
    """Starts every worker as a local child process."""

    async def start(self, specs: Sequence[WorkerSpec]) -> list[WorkerTransport]:
        started: list[WorkerTransport] = []
        try:
            for spec in specs:
                started.append(await LocalTransport.start(spec))
        except BaseException:
            for transport in started:
                transport.kill()
            raise
        return started
