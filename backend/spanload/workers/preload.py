"""The load phase: fill a run's tables with rows shaped like its workload's, in big batches.

A *loader* says how one run is loaded: a workload definition's ``load`` (workers/interp/load.py) or
TPC-C's units (workers/tpcc/load.py). :func:`run_preload` drives it over a worker's share of the row
numbers, with several commits in flight, retries, resume and progress. A *row number* is the
loader's unit (a row of a definition's load, concatenated over its tables; for TPC-C a chunk of one
table's rows with their children): the supervisor splits ``[0, rows)`` between the workers, the
idempotency check compares ``count(database, 0, None)`` with it, and the progress bar counts them.
``write`` must be safe to call again for rows already there (resume and retries do). Keep one commit
under Spanner's 80,000 mutations (``batch_rows`` x columns).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from spanload.model.config import RunConfig, Workload
from spanload.spanner import deadline, request_tags
from spanload.spanner.client import TargetUnreachableError
from spanload.workers.interp.load import loader_functions as definition_loader
from spanload.workers.tpcc.load import loader_functions

logger = logging.getLogger(__name__)

IN_FLIGHT = 4  # commits in flight per worker process
ATTEMPTS = 4  # tries of one batch before the load fails
RETRY_BACKOFF_S = 0.2
MIN_BATCH_TIMEOUT_S = 60.0  # a batch's deadline: the run's client.timeout_ms, but never less than this
# A batch's deadline is long (a big commit into a busy server) and the client retries a refused
# connection within it: a target that died mid-load failed the run only after 4 x 60 s. So while no
# batch finishes for STALL_PROBE_S, the target is asked (the start-up probe: one quick RPC, no
# retry); UNREACHABLE_PROBES unanswered probes in a row end the load at once. A busy target answers
# the probe, and its slow commits keep their whole deadline.
STALL_PROBE_S = 2.0
UNREACHABLE_PROBES = 2

Database = Any  # google.cloud.spanner_v1.database.Database
WriteRows = Callable[[Database, int, int], None]
CountRows = Callable[[Database, int, "int | None"], int]


@dataclass(frozen=True)
class Loader:
    """How to load one workload: ``write(db, lo, hi)`` writes rows ``[lo, hi)`` in one commit
    (idempotently); ``count(db, lo, hi)`` counts the rows present among ``[lo, hi)``, the whole
    table when ``hi`` is None."""

    write: WriteRows
    count: CountRows
    batch_rows: int


def loader_for(config: RunConfig) -> Loader:
    """The run's loader; ``KeyError`` naming the workload if it has none. TPC-C's depends on the
    run's scale: one unit (a chunk of one table's rows with their children) per commit."""
    if config.workload is Workload.TPCC:
        write, count = loader_functions(config.tpcc)
        return Loader(write=write, count=count, batch_rows=1)
    if config.definition is None:
        raise KeyError(f"workload {config.workload.value!r} has no loader: it is not a workload definition")
    dwrite, dcount, rows = definition_loader(config.definition, config.knob_values(), config.seed or 0, batch_timeout_s)
    return Loader(write=dwrite, count=dcount, batch_rows=rows)


def batch_timeout_s() -> float:
    """The deadline of one batch (or count) of the load phase: big commits into a busy server take
    longer than the measured phase's operations, and a batch that times out is only tried again."""
    return max(deadline.timeout_s(), MIN_BATCH_TIMEOUT_S)


# -- the driver -------------------------------------------------------------------------------------


class PreloadStopped(RuntimeError):
    """The load was abandoned (the worker is stopping)."""


def run_preload(
    database: Callable[[], Database],
    loader: Loader,
    start: int,
    count: int,
    *,
    resume: bool,
    on_batch: Callable[[int, int], None],
    stop: threading.Event,
    in_flight: int = IN_FLIGHT,
    probe: Callable[[], None] | None = None,
) -> None:
    """Load rows ``[start, start + count)`` in batches of ``loader.batch_rows``, ``in_flight``
    commits at a time. ``on_batch(rows, skipped)`` after each batch (from a pool thread): ``rows``
    done, of which ``skipped`` were found present (``resume``: each batch's range is counted
    first and skipped when full). A batch is tried ``ATTEMPTS`` times; then the load raises.

    ``probe()`` (raising :class:`TargetUnreachableError`) is asked while no batch finishes: a
    target that stops answering it ``UNREACHABLE_PROBES`` times in a row ends the load at once,
    with a sentence naming the target and the rows reached (the batches in flight are abandoned)."""
    size = loader.batch_rows
    batches = [(lo, min(lo + size, start + count)) for lo in range(start, start + count, size)]
    lock = threading.Lock()
    reached = [0, time.monotonic()]  # rows done, when a batch last finished
    lost: list[str] = []  # why the load ended at once: the target stopped answering
    abandon = threading.Event()

    def finished(rows: int, skipped: int) -> None:
        with lock:
            reached[0] += rows
            reached[1] = time.monotonic()
        on_batch(rows, skipped)

    def one(lo: int, hi: int) -> None:
        for attempt in range(1, ATTEMPTS + 1):
            if stop.is_set() or abandon.is_set():
                raise PreloadStopped("the load was stopped")
            try:
                if resume and loader.count(database(), lo, hi) >= hi - lo:
                    finished(hi - lo, hi - lo)
                    return
                loader.write(database(), lo, hi)
                finished(hi - lo, 0)
                return
            except Exception as err:
                if attempt == ATTEMPTS:
                    raise RuntimeError(f"preloading rows [{lo}, {hi}) failed {ATTEMPTS} times: {err}") from err
                logger.warning("preloading rows [%d, %d) failed (attempt %d): %s", lo, hi, attempt, err)
                stop.wait(RETRY_BACKOFF_S * attempt)

    def watch(ask: Callable[[], None]) -> None:
        misses = 0
        while not abandon.wait(STALL_PROBE_S):
            with lock:
                rows, last = reached
            if time.monotonic() - last < STALL_PROBE_S:
                misses = 0
                continue
            try:
                ask()
                misses = 0
            except TargetUnreachableError as err:
                misses += 1
                logger.warning("preload stalled at %d of %d rows and the target did not answer: %s", rows, count, err)
                if misses >= UNREACHABLE_PROBES:
                    lost.append(
                        f"{err}; the load stopped with {rows:,} of its {count:,} rows "
                        f"[{start}, {start + count}) written ({misses} probes in a row unanswered)"
                    )
                    abandon.set()

    def settle(pending: set[Future[None]], keep: int) -> set[Future[None]]:
        """Wait until at most ``keep`` batches are in flight; raise the first failure, or at once
        when the target was lost."""
        while len(pending) > keep:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()
            if lost:
                raise RuntimeError(lost[0])
        return pending

    # the pool's threads tag their RPCs with the caller's operation (the preload)
    operation = request_tags.current_operation()
    pool = ThreadPoolExecutor(
        max_workers=max(1, in_flight), thread_name_prefix="preload", initializer=request_tags.use, initargs=(operation,)
    )
    if probe is not None:
        threading.Thread(target=watch, args=(probe,), name="preload-probe", daemon=True).start()
    try:
        pending: set[Future[None]] = set()
        for lo, hi in batches:
            pending = settle(pending, max(1, in_flight) - 1)
            pending.add(pool.submit(one, lo, hi))
        settle(pending, 0)
    finally:
        abandon.set()
        # a lost target: do not wait out the deadlines of the commits in flight
        pool.shutdown(wait=not lost, cancel_futures=True)


class Progress:
    """Counts a load's rows from the pool threads; ``take`` reads them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rows = 0
        self.skipped = 0

    def add(self, rows: int, skipped: int) -> None:
        with self._lock:
            self.rows += rows
            self.skipped += skipped

    def take(self) -> tuple[int, int]:
        with self._lock:
            return self.rows, self.skipped
