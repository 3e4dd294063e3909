"""The transport seam: what the supervisor needs from a worker process, wherever it runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class WorkerSpec:
    """One worker to start: its index in the run, the command line and extra environment."""

    index: int
    command: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)


class WorkerTransport(Protocol):
    """A started worker process: NDJSON lines in and out, stderr lines, exit status, identity.

    ``readline`` / ``readline_err`` return ``b""`` once the stream ended (the process exited or
    the link to it was lost); ``wait`` then gives the exit status (negative: killed by a signal).
    """

    @property
    def pid(self) -> int:
        """The worker process's id on its host."""
        ...

    @property
    def host(self) -> str:
        """The host name the worker process runs on."""
        ...

    @property
    def node(self) -> str | None:
        """The cluster node id the worker runs on (None for a local child process)."""
        ...

    @property
    def returncode(self) -> int | None:
        """The exit status once the process ended, else None."""
        ...

    @property
    def failure(self) -> str | None:
        """Why the link to the worker was lost (its node or actor died), e.g. "lost its Ray actor:
        ..."; None while it holds or when the process itself exited."""
        ...

    def write(self, line: bytes) -> None:
        """Queue one encoded protocol line for the worker's stdin (dropped once input is closed)."""
        ...

    def close_input(self) -> None:
        """Close the worker's stdin (a worker reads that as: stop)."""
        ...

    async def readline(self) -> bytes:
        """The next line the worker wrote on stdout, ``b""`` at the end."""
        ...

    async def readline_err(self) -> bytes:
        """The next line the worker wrote on stderr, ``b""`` at the end."""
        ...

    async def wait(self) -> int:
        """Wait for the process to end; its exit status."""
        ...

    def terminate(self) -> None:
        """Ask the process to end (SIGTERM); no error if it already ended."""
        ...

    def kill(self) -> None:
        """End the process at once (SIGKILL); no error if it already ended."""
        ...


class WorkerLauncher(Protocol):
    """Starts a run's workers together (a cluster launcher places them across nodes at once)."""

    async def start(self, specs: Sequence[WorkerSpec]) -> list[WorkerTransport]:
        """One started transport per spec, in order; on failure nothing is left running."""
        ...
