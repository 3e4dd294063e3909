"""Issue 30's "untested" list: the Go worker under SIGSTOP of the target (test_chaos.py does it for
the Python worker): the operations caught in it fail with DEADLINE_EXCEEDED, counted in those
intervals, none before; after SIGCONT the run recovers by itself and reconciles exactly."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import WorkerRuntime
from spanload.model.samples import Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.spanner.local_server import LocalSpanner
from tests.engine.test_chaos import STOPPED_S, _config, _transactions, own_spanner
from tests.engine.test_supervisor import Recorder, _until

__all__ = ["own_spanner"]  # the fixture, used by name

pytestmark = pytest.mark.timeout(180)


def test_a_go_worker_counts_deadline_exceeded_while_the_target_is_stopped_and_recovers(
    own_spanner: LocalSpanner,
) -> None:
    pid = own_spanner.process.pid

    async def scenario() -> tuple[Recorder, int, list[Sample], int]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("go-sigstop", _config(own_spanner.address, runtime=WorkerRuntime.GO.value))
        await _until(lambda: _transactions(sink) >= 20, "20 transactions before the stop", 60)
        os.kill(pid, signal.SIGSTOP)
        try:
            stopped_at = len(sink.samples)
            await asyncio.sleep(STOPPED_S)
        finally:
            os.kill(pid, signal.SIGCONT)
        during = sink.samples[stopped_at:]
        resumed = _transactions(sink)
        await _until(lambda: _transactions(sink) >= resumed + 20, "20 transactions after SIGCONT", 60)
        await supervisor.stop("go-sigstop")
        return sink, resumed, during, stopped_at

    sink, resumed, during, stopped_at = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert set().union(*(s.errors_by_code for s in sink.samples[:stopped_at])) == set()  # none before
    assert sum(s.errors_by_code.get("DEADLINE_EXCEEDED", 0) for s in during) > 0, [s.errors_by_code for s in during]
    assert sink.samples[-1].totals.transactions >= resumed + 20  # it recovered by itself
    assert sink.summary is not None and sink.summary.totals.errors == sum(sink.summary.errors_by_code.values())
    r = sink.summary.reconciliation
    assert r is not None and r.ok, r
    assert (r.final_versions_missing, r.duplicates, r.unexpected) == (0, 0, 0), r
