"""Workers placed on a Ray cluster: one :class:`~spanload.engine.transports.ray_host.WorkerHost`
actor per worker, spread across the nodes, each running the worker process on its node.

This process is the Ray driver: it connects once (lazily, on the first Ray run) and stays
connected to that one cluster. ``ray.init`` can hang on an address that does not answer, so it runs
on a thread of its own behind a TCP probe and a deadline, never on an event loop.

The supervisor's protocol lines travel as actor calls: a writer task sends what the supervisor
wrote, in order, in batches; a read call per stream returns every line the worker wrote since the
previous one. A dead actor or a lost node ends the streams with ``failure`` set.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from spanload.engine.transports.base import WorkerSpec, WorkerTransport
from spanload.engine.transports.ray_host import END, WorkerHost

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 5.0  # TCP connect to the cluster's address: an unreachable one fails within this
CONNECT_TIMEOUT_S = 60.0  # ray.init after the probe (Ray Client starts a server process per driver)
PLACE_TIMEOUT_S = 60.0  # a worker's actor must be placed and its process started within this
KILL_GRACE_S = 2.0  # the actor gets this long to kill its worker before the actor itself is killed
LOST_STATUS = -1  # exit status of a worker whose actor or node was lost
RAY_NAMESPACE = "spanload"


class PlacementError(Exception):
    """The Ray cluster could not be reached or could not place the workers; a sentence."""


def _probe(address: str) -> None:
    """Raise PlacementError unless something accepts TCP connections at ``address``'s host:port."""
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise PlacementError(f"Ray address {address!r} is not 'auto', HOST:PORT or ray://HOST:PORT")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as err:
        raise PlacementError(f"cannot reach the Ray cluster at {address}: {err.strerror or err}") from None


class _Driver:
    """This process's one connection to a Ray cluster, made on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._address: str | None = None
        self._connecting: concurrent.futures.Future[None] | None = None

    async def connect(self, address: str, timeout: float = PROBE_TIMEOUT_S + CONNECT_TIMEOUT_S) -> None:
        with self._lock:
            if self._address is not None and self._address != address:
                raise PlacementError(
                    f"this process already drives the Ray cluster at {self._address}; it cannot also use {address}"
                    " (one Ray cluster per control plane: restart it with that address)"
                )
            if self._connecting is None or (self._connecting.done() and self._connecting.exception() is not None):
                self._address = address
                self._connecting = concurrent.futures.Future()
                threading.Thread(
                    target=self._init, args=(address, self._connecting), name="ray-connect", daemon=True
                ).start()
            connecting = self._connecting
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(connecting)), timeout)
        except TimeoutError:
            raise PlacementError(f"could not connect to the Ray cluster at {address} within {timeout:.0f} s") from None

    def shutdown(self) -> None:
        """Disconnect from the cluster (its actors, owned by this driver, end with it)."""
        with self._lock:
            if self._connecting is None or not self._connecting.done():
                return
            self._address = None
            self._connecting = None
        import ray

        ray.shutdown()

    def _init(self, address: str, done: concurrent.futures.Future[None]) -> None:
        try:
            if address != "auto":
                _probe(address)
            import ray

            if not ray.is_initialized():
                ray.init(address=address, namespace=RAY_NAMESPACE, log_to_driver=False, configure_logging=False)
            done.set_result(None)
        except PlacementError as err:
            with self._lock:
                self._address = None
            done.set_exception(err)
        except Exception as err:  # ray.init raises ConnectionError, RuntimeError, ValueError...
            with self._lock:
                self._address = None
            done.set_exception(PlacementError(f"could not connect to the Ray cluster at {address}: {err}"))


DRIVER = _Driver()


async def _call(ref: Any) -> Any:
    """Await a Ray ObjectRef from any event loop."""
    return await asyncio.wrap_future(ref.future())


def _reason(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return (text[0] if text else type(err).__name__)[:300]


class RayTransport:
    """A worker process on a Ray node, reached through its WorkerHost actor."""

    def __init__(self, actor: Any, info: dict[str, Any]) -> None:
        self._actor = actor
        self._pid: int = info["pid"]
        self._host: str = info["host"]
        self._node: str = info["node"]
        self._buffers: dict[str, deque[bytes]] = {"out": deque(), "err": deque()}
        self._ended: set[str] = set()
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._input_closed = False
        self._returncode: int | None = None
        self._failure: str | None = None
        self._killing: asyncio.Task[None] | None = None
        self._writer = asyncio.get_running_loop().create_task(self._send_loop(), name=f"ray-send-{self._pid}")

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def host(self) -> str:
        return self._host

    @property
    def node(self) -> str | None:
        return self._node

    @property
    def returncode(self) -> int | None:
        return self._returncode

    @property
    def failure(self) -> str | None:
        return self._failure

    def _lost(self, err: BaseException) -> None:
        if self._failure is None:
            self._failure = f"lost its Ray actor: {_reason(err)}"
        self._ended.update(self._buffers)

    async def _send_loop(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while batch[-1] is not None and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            lines = [line for line in batch if line is not None]
            try:
                if lines:
                    await _call(self._actor.write.remote(lines))
                if batch[-1] is None:
                    await _call(self._actor.close_input.remote())
                    return
            except Exception as err:
                self._lost(err)
                return

    def write(self, line: bytes) -> None:
        if not self._input_closed:
            self._outbox.put_nowait(line)

    def close_input(self) -> None:
        if not self._input_closed:
            self._input_closed = True
            self._outbox.put_nowait(None)

    async def _readline(self, stream: str) -> bytes:
        buffer = self._buffers[stream]
        while not buffer:
            if stream in self._ended:
                return END
            try:
                batch: list[bytes] = await _call(self._actor.read.remote(stream))
            except Exception as err:
                self._lost(err)
                return END
            buffer.extend(batch)
        line = buffer.popleft()
        if line == END:
            self._ended.add(stream)
        return line

    async def readline(self) -> bytes:
        return await self._readline("out")

    async def readline_err(self) -> bytes:
        return await self._readline("err")

    async def wait(self) -> int:
        if self._returncode is None:
            try:
                code: int = await _call(self._actor.wait.remote())
            except Exception as err:
                self._lost(err)
                code = LOST_STATUS
            self._returncode = code
            self._writer.cancel()
            self._release()
        return self._returncode

    def _release(self) -> None:
        import ray

        with contextlib.suppress(Exception):
            ray.kill(self._actor, no_restart=True)

    def terminate(self) -> None:
        if self._returncode is None:
            self._actor.terminate.remote()

    def kill(self) -> None:
        if self._returncode is None and self._killing is None:
            self._killing = asyncio.get_running_loop().create_task(self._kill())

    async def _kill(self) -> None:
        """Kill the worker through its actor; kill the actor too if it does not answer."""
        try:
            await asyncio.wait_for(_call(self._actor.kill.remote()), KILL_GRACE_S)
        except Exception:
            self._release()


class RayLauncher:
    """Starts a run's workers on the Ray cluster at ``address``, one actor each, spread across nodes."""

    def __init__(self, address: str, cpus_per_worker: float) -> None:
        self.address = address
        self.cpus_per_worker = cpus_per_worker

    async def start(self, specs: Sequence[WorkerSpec]) -> list[WorkerTransport]:
        began = time.monotonic()
        await DRIVER.connect(self.address)
        import ray

        host_class: Any = ray.remote(WorkerHost)  # ray.remote's typed handles do not follow async methods
        actors: list[Any] = [
            host_class.options(
                num_cpus=self.cpus_per_worker,
                scheduling_strategy="SPREAD",
                max_restarts=0,
                max_task_retries=0,
                name=None,
            ).remote()
            for _ in specs
        ]
        calls = [
            _call(actor.start.remote(spec.index, list(spec.command), dict(spec.env), sys.executable))
            for actor, spec in zip(actors, specs, strict=True)
        ]
        try:
            infos = await asyncio.wait_for(asyncio.gather(*calls), PLACE_TIMEOUT_S)
        except BaseException as err:
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor, no_restart=True)
            if isinstance(err, TimeoutError):
                raise PlacementError(
                    f"the Ray cluster at {self.address} did not place {len(specs)} workers of "
                    f"{self.cpus_per_worker:g} CPU within {PLACE_TIMEOUT_S:.0f} s (too few free CPUs?)"
                ) from None
            if isinstance(err, Exception):
                raise PlacementError(
                    f"the Ray cluster at {self.address} could not start a worker: {_reason(err)}"
                ) from None
            raise
        logger.info(
            "placed %d workers on Ray at %s in %.1f s: %s",
            len(specs),
            self.address,
            time.monotonic() - began,
            ", ".join(f"{i['pid']}@{i['node'][:8]}" for i in infos),
        )
        return [RayTransport(actor, info) for actor, info in zip(actors, infos, strict=True)]
