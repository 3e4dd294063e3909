"""The load phase: before the measured phase, every worker fills its share of the run's table with
rows ``[0, preload.rows)``, with progress to the sink between two timeline events; skipped, with an
event that says so, when the table holds that many rows already."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from spanload.engine.run_handles import RunHandle, retrieve
from spanload.model import protocol
from spanload.model.errors import RunError
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.state import RunSink, RunState
from spanload.model.tpcc import preload_rows

logger = logging.getLogger(__name__)

PRELOAD_PUBLISH_S = 0.5  # the load phase's progress goes to the sink this often


async def preload(
    run: RunHandle,
    sink: RunSink,
    fail_after_s: float,
    set_state: Callable[[RunHandle, RunState], None],
    fail: Callable[[RunHandle, str], Awaitable[None]],
) -> None:
    """Load the run's table, or skip it. A worker's fatal error, or one silent for ``fail_after_s``,
    fails the run (through ``fail``) and raises :class:`RunError`."""
    rows = preload_rows(run.config)
    table_rows = run.workers[0].table_rows
    if rows <= 0 or table_rows is None:
        return
    if table_rows >= rows:
        message = f"preload skipped: table holds {table_rows:,} rows"
        logger.info("run %s: %s (wanted %d)", run.id, message, rows)
        sink.on_event(run.id, EventKind.PRELOAD_SKIPPED, {"rows": rows, "table_rows": table_rows, "message": message})
        return
    set_state(run, RunState.PRELOADING)
    sink.on_event(run.id, EventKind.PRELOAD_STARTED, {"rows": rows, "table_rows": table_rows})
    began = time.monotonic()
    count = len(run.workers)
    for worker in run.workers:
        start, end = rows * worker.index // count, rows * (worker.index + 1) // count
        worker.last_heard = time.monotonic()
        worker.send(protocol.Preload(rows=rows, start=start, count=end - start, resume=table_rows > 0))
    everyone = asyncio.gather(*(w.preloaded for w in run.workers))
    everyone.add_done_callback(retrieve)  # a failed run's gather may have nobody left to await it
    while True:
        done, _ = await asyncio.wait({everyone}, timeout=PRELOAD_PUBLISH_S)
        if done:
            everyone.result()  # a worker's fatal error: RunError
            break
        sink.on_preload(run.id, preload_status(run, began))
        now = time.monotonic()
        for worker in run.workers:
            if now - worker.last_heard > fail_after_s and not worker.preloaded.done():
                everyone.cancel()
                reason = f"{worker.name} sent nothing for {now - worker.last_heard:.1f} s while preloading"
                await fail(run, reason)
                raise RunError(reason)
    status = preload_status(run, began, done=True)
    sink.on_preload(run.id, status)
    skipped = sum(w.preload_skipped for w in run.workers)
    cpu = [w.preload_cpu_s for w in run.workers]
    sink.on_event(
        run.id,
        EventKind.PRELOAD_FINISHED,
        {
            "rows": rows,
            "loaded": status.rows_done - skipped,
            "skipped": skipped,
            "seconds": round(status.elapsed_s, 3),
            "rows_per_s": round(status.rows_per_s, 1),
            "worker_cpu_s": None if None in cpu else round(sum(c or 0.0 for c in cpu), 3),
        },
    )


def preload_status(run: RunHandle, began: float, done: bool = False) -> PreloadStatus:
    """The load phase's progress over every worker: rows/s counts rows written, not found present."""
    rows = preload_rows(run.config)
    rows_done = sum(w.preload_done for w in run.workers)
    written = rows_done - sum(w.preload_skipped for w in run.workers)
    elapsed = max(time.monotonic() - began, 1e-6)
    rate = written / elapsed
    eta = (rows - rows_done) / rate if rate > 0 else None
    return PreloadStatus(
        rows=rows,
        rows_done=rows_done,
        rows_per_s=rate,
        percent=100.0 * rows_done / rows if rows else 100.0,
        eta_s=0.0 if done else eta,
        elapsed_s=elapsed,
        done=done,
    )
