"""The supervisor's record of a run going on and of each of its worker processes.

The life cycle (:mod:`spanload.engine.supervisor`), the load phase (:mod:`~spanload.engine.preload_phase`)
and the summary's assembly (:mod:`~spanload.engine.run_summary`) read and write these; nothing outside
the engine sees them.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from spanload.engine.abort_rules import AbortWatch
from spanload.engine.aggregator import Aggregator
from spanload.engine.capacity import CapacityRunner
from spanload.engine.profiles import ProfileRunner
from spanload.engine.transports import WorkerTransport
from spanload.model import protocol
from spanload.model.config import RunConfig
from spanload.model.state import RunState
from spanload.spanner.local_server import SupervisedLocalSpanner


@dataclass
class WorkerHandle:
    index: int
    transport: WorkerTransport
    hello: asyncio.Future[protocol.Hello]
    ready: asyncio.Future[None]
    writers_stopped: asyncio.Future[protocol.WritersStopped]
    stopped: asyncio.Future[None]
    preloaded: asyncio.Future[None]
    table_rows: int | None = None  # what worker 0 counted in the run's table (Ready)
    preload_done: int = 0  # rows of its share of the load phase done so far
    preload_skipped: int = 0  # of those, rows found already present
    preload_cpu_s: float | None = None  # CPU seconds its load used so far (if it measures it)
    last_heard: float = field(default_factory=time.monotonic)
    stalled_since: float | None = None  # monotonic time of the last line before a stall
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        where = f"pid {self.transport.pid}"
        if self.transport.node is not None:
            where += f" on node {self.transport.node}"
        return f"worker {self.index} ({where})"

    def send(self, message: Any) -> None:
        self.transport.write(protocol.encode(message))

    def release(self) -> None:
        """Once the run has ended (:meth:`RunHandle.release_measurements`): drop its tasks, and the
        writers' ledger (a row per key written) that the resolved ``writers_stopped`` holds."""
        self.tasks.clear()
        if self.writers_stopped.done() and not self.writers_stopped.cancelled():
            self.writers_stopped = self.writers_stopped.get_loop().create_future()
            self.writers_stopped.cancel()

    def futures(self) -> list[asyncio.Future[Any]]:
        """Everything the supervisor may be waiting on from this worker."""
        return [self.ready, self.preloaded, self.writers_stopped, self.stopped, self.hello]


@dataclass
class RunHandle:
    id: str
    config: RunConfig
    state: RunState = RunState.PENDING
    workers: list[WorkerHandle] = field(default_factory=list)
    aggregator: Aggregator | None = None
    begun_monotonic: float = 0.0
    watcher_ledger: protocol.WatcherLedger | None = None
    tpcc_checked: protocol.TpccChecked | None = None  # worker 0's TPC-C consistency check at stop
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    stopping: asyncio.Task[None] | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    reason: str | None = None
    stop_deadline: float | None = None  # monotonic; set when a stop begins
    stop_detail: str = ""
    profile: ProfileRunner | None = None  # config.profile followed live (engine/profiles.py)
    capacity: CapacityRunner | None = None  # config.capacity's search (engine/capacity.py)
    abort: AbortWatch | None = None  # config.abort_on judged every interval (engine/abort_rules.py)
    abort_reason: str | None = None  # set when a rule stopped the run: it ends FAILED with it
    pgadapter: SupervisedLocalSpanner | None = None  # the pgadapter interface's proxy, if the run started it

    def release_measurements(self) -> None:
        """Drop what only the run's summary needed, once it is sent: the aggregator (its whole-run
        histograms, ~90 kB each, and per-minute sums) and the watcher's ledger (every key it received:
        ~7 MB after 8 minutes of ``light``). The supervisor keeps a handle of every run it started
        for as long as serve runs (for its state and reason), so each ended run kept them (issue 30).
        Its tasks go too (all done or cancelled by now): a cancelled task keeps its CancelledError, whose
        traceback keeps the frame and its locals, the stdout reader's last messages (the ledger) among
        them; and so do the writers' ledgers (:meth:`WorkerHandle.release`)."""
        self.aggregator = None
        self.watcher_ledger = None
        self.tpcc_checked = None
        self.tasks.clear()
        for worker in self.workers:
            worker.release()


def resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def retrieve(future: asyncio.Future[Any]) -> None:
    """A done-callback that marks a future's exception as seen (nobody may be left to await it)."""
    if not future.cancelled():
        future.exception()
