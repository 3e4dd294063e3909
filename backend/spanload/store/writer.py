"""The background writer: one thread that applies store writes in the order they were submitted,
so that the event loop that receives samples never waits on the database."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable

from sqlalchemy.orm import Session, sessionmaker

logger = logging.getLogger(__name__)

WRITE_QUEUE_MAX = 10_000
CLOSE_TIMEOUT_S = 30.0

Job = Callable[[Session], None]
Queued = tuple[float, Job]  # (time.monotonic() at submit, the job)


class StoreWriter:
    """Applies jobs on its own thread, each in a fresh session. ``submit`` never blocks: when the
    queue is full (the database has stalled for minutes) the job is dropped and logged."""

    def __init__(self, sessions: sessionmaker[Session], max_queue: int = WRITE_QUEUE_MAX) -> None:
        self._sessions = sessions
        self._queue: queue.Queue[Queued | None] = queue.Queue(maxsize=max_queue)
        self._applying_since: float | None = None  # submit time of the job being applied
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self.dropped = 0
        self.failed = 0
        self._thread.start()

    def submit(self, job: Job) -> bool:
        try:
            self._queue.put_nowait((time.monotonic(), job))
        except queue.Full:
            self.dropped += 1
            logger.error("store writer queue is full (%d jobs); dropped a write", self._queue.qsize())
            return False
        return True

    async def flush(self) -> None:
        """Wait until every job submitted before this call has been applied."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def release() -> None:
            if not done.done():
                done.set_result(None)

        def barrier(_: Session) -> None:
            loop.call_soon_threadsafe(release)

        self._queue.put((time.monotonic(), barrier))
        await done

    def pending(self) -> int:
        """Jobs submitted and not applied yet."""
        return self._queue.qsize() + (self._applying_since is not None)

    def lag_s(self) -> float:
        """How long the oldest job not applied yet has waited (0 when the writer is idle)."""
        with self._queue.mutex:
            head = self._queue.queue[0] if self._queue.queue else None
        oldest = [t for t in (self._applying_since, head[0] if head else None) if t is not None]
        return time.monotonic() - min(oldest) if oldest else 0.0

    def close(self) -> None:
        """Apply what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join(CLOSE_TIMEOUT_S)
        if self._thread.is_alive():
            logger.error("store writer did not finish within %.0f s", CLOSE_TIMEOUT_S)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            self._applying_since, job = item
            with self._sessions() as session:
                try:
                    job(session)
                except Exception:
                    self.failed += 1
                    session.rollback()
                    logger.exception("a store write failed")
            self._applying_since = None
