"""The Ray actor that hosts one worker process on a cluster node.

It imports no Ray at module level: :mod:`spanload.engine.transports.ray_transport` wraps
:class:`WorkerHost` with ``ray.remote`` on the driver, and Ray imports this module by name on the
node (every node has Spanload installed, see the README's "More load than one machine"). On the
node the worker is an ordinary child process of the actor (:class:`LocalTransport`); the actor
relays its protocol lines in batches, so the supervisor's protocol is untouched.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
from collections.abc import Sequence
from typing import Any

from spanload.engine.transports.base import WorkerSpec
from spanload.engine.transports.local import LocalTransport

END = b""  # in a batch of lines: the stream ended


def resolve_command(command: Sequence[str], driver_python: str) -> list[str]:
    """The command as this node can run it: the driver's Python becomes this node's Python, and a
    program missing at the driver's path is looked up beside this Python, then on PATH."""
    program, *args = command
    if program == driver_python:
        return [sys.executable, *args]
    if not os.path.isfile(program):
        name = os.path.basename(program)
        beside = os.path.join(os.path.dirname(sys.executable), name)
        found = beside if os.path.isfile(beside) else shutil.which(name)
        if found:
            return [found, *args]
    return [program, *args]


class WorkerHost:
    """Starts one worker process on its node and relays its stdin, stdout and stderr lines."""

    def __init__(self) -> None:
        self._transport: LocalTransport | None = None
        self._lines: dict[str, asyncio.Queue[bytes]] = {}
        self._pumps: list[asyncio.Task[None]] = []

    async def start(self, index: int, command: list[str], env: dict[str, str], driver_python: str) -> dict[str, Any]:
        """Start the worker; its pid, host and node id."""
        import ray

        spec = WorkerSpec(index=index, command=resolve_command(command, driver_python), env=env)
        transport = await LocalTransport.start(spec)
        self._transport = transport
        self._lines = {"out": asyncio.Queue(), "err": asyncio.Queue()}
        self._pumps = [
            asyncio.get_running_loop().create_task(self._pump(transport.readline, self._lines["out"])),
            asyncio.get_running_loop().create_task(self._pump(transport.readline_err, self._lines["err"])),
        ]
        return {"pid": transport.pid, "host": socket.gethostname(), "node": ray.get_runtime_context().get_node_id()}

    @staticmethod
    async def _pump(readline: Any, queue: asyncio.Queue[bytes]) -> None:
        while True:
            line = await readline()
            queue.put_nowait(line)
            if not line:
                return

    def _worker(self) -> LocalTransport:
        if self._transport is None:
            raise RuntimeError("the worker process was not started")
        return self._transport

    async def read(self, stream: str) -> list[bytes]:
        """Every line the worker wrote on ``stream`` ("out" or "err") since the last call, at
        least one (waiting for it); the batch ends with ``b""`` once the stream ended."""
        queue = self._lines[stream]
        batch = [await queue.get()]
        while batch[-1] != END and not queue.empty():
            batch.append(queue.get_nowait())
        return batch

    async def write(self, lines: list[bytes]) -> None:
        worker = self._worker()
        for line in lines:
            worker.write(line)

    async def close_input(self) -> None:
        self._worker().close_input()

    async def terminate(self) -> None:
        self._worker().terminate()

    async def kill(self) -> None:
        self._worker().kill()

    async def wait(self) -> int:
        return await self._worker().wait()
