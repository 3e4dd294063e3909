"""How the supervisor reaches its workers: a local child process (:mod:`.local`), or a Ray actor on a
cluster (:mod:`.ray_transport`, which starts the process on its node: :mod:`.ray_host`).

The supervisor speaks :mod:`spanload.model.protocol` lines to a :class:`WorkerTransport` and never
learns where the worker runs; a :class:`WorkerLauncher` starts a run's workers and hands back one
transport per worker.
"""

from spanload.engine.transports.base import WorkerLauncher, WorkerSpec, WorkerTransport
from spanload.engine.transports.local import LocalLauncher, LocalTransport

__all__ = ["LocalLauncher", "LocalTransport", "WorkerLauncher", "WorkerSpec", "WorkerTransport"]
