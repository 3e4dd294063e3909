"""Issue 29: a worker that cannot read SPANNER_SYS (Cloud Spanner without the right to) says why in
its reports (``sys_error``), and the summary gives that as the reason its change costs are n/a
(tests/engine/test_change_cost_reasons.py); a read that succeeds again clears it."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from google.api_core import exceptions as gexc

from spanload.workers.process import Worker

DENIED = "Caller is missing IAM permission spanner.databases.select on resource db"


class _Reader:
    """SPANNER_SYS denied on the first read, readable on the next ones."""

    poll_sql_prefix = ""
    interval_end = None
    latencies = None

    def __init__(self) -> None:
        self.reads = 0

    def read(self) -> dict[str, float]:
        self.reads += 1
        if self.reads == 1:
            raise gexc.PermissionDenied(DENIED)
        return {}

    def read_counters(self) -> dict[str, float]:
        return {}


def test_a_denied_spanner_sys_read_is_the_reports_sys_error_until_a_read_succeeds() -> None:
    worker = Worker.__new__(Worker)
    worker.config = SimpleNamespace(report_interval_s=0.01)  # type: ignore[assignment]
    worker.stats_reader = _Reader()  # type: ignore[assignment]
    worker.done = threading.Event()
    worker.sys_error = None
    worker.server_reading = ({}, None, None)
    seen: list[str | None] = []
    loop = threading.Thread(target=worker._stats_loop, daemon=True)
    loop.start()
    give_up = time.monotonic() + 10
    while len(seen) < 2 and time.monotonic() < give_up:  # the values it takes, once each, in order
        now = worker.sys_error
        if (seen and now != seen[-1]) or (not seen and now is not None):
            seen.append(now)
        time.sleep(0.001)
    worker.done.set()
    loop.join(5)
    assert seen == [f"PERMISSION_DENIED: {DENIED}", None]
