"""Which program a run's workers are: one command per :class:`WorkerRuntime`.

Every runtime speaks :mod:`spanload.model.protocol` and is started as ``COMMAND --worker N``.
The Go worker is a binary that ``make install`` puts beside the venv's Python, like the local
Spanner; when it is missing a run asking for it is refused at once, with what to do.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from spanload.model.config import WorkerRuntime
from spanload.model.errors import EXIT_FAILED, RunInvalid
from spanload.spanner.local_server import find_executable

GO_WORKER_BINARY = "spanload-worker-go"
GO_WORKER_MISSING = f"the Go worker is not installed: run make install (it builds {GO_WORKER_BINARY})"


class WorkerNotInstalledError(RunInvalid):
    """The program of the requested runtime is not on this machine; ``str()`` says what to do.
    The API refuses the run (422); the command line exits 1, as for any run that cannot start."""

    exit_code = EXIT_FAILED

    def __init__(self, detail: str) -> None:
        super().__init__(detail, "runtime")


def worker_command(runtime: WorkerRuntime, go_worker: Path | None = None) -> list[str]:
    """The command that starts one worker of ``runtime`` (``--worker N`` is appended per worker);
    ``go_worker`` is the configured path of the Go binary (SPANLOAD_GO_WORKER_BINARY), else it is looked
    for beside this Python and on PATH. Raises :class:`WorkerNotInstalledError`."""
    match runtime:
        case WorkerRuntime.GO:
            if go_worker is not None:  # configured: that one or none
                if not (go_worker.is_file() and os.access(go_worker, os.X_OK)):
                    raise WorkerNotInstalledError(f"{GO_WORKER_MISSING}; {go_worker} is not an executable")
                return [str(go_worker)]
            found = find_executable(GO_WORKER_BINARY)
            if found is None:
                raise WorkerNotInstalledError(GO_WORKER_MISSING)
            return [str(found)]
        case WorkerRuntime.PYTHON:
            return [sys.executable, "-m", "spanload.workers.process"]
