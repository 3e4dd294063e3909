"""Issue 30's "untested" list, SIGSTOP of the target (test_chaos.py's own local Spanner):

- the Go worker (test_chaos.py does the Python one): the operations caught in it fail with
  DEADLINE_EXCEEDED, counted in those intervals, none before; after SIGCONT the run recovers by
  itself and reconciles;
- a live change of ``client.timeout_ms`` seen in what the workers do: the same stop is waited out
  under a 30 s timeout and times operations out under 1 s."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import ConfigPatch, WorkerRuntime
from spanload.model.samples import Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.spanner.local_server import LocalSpanner
from tests.engine.test_chaos import STOPPED_S, _config, _transactions, own_spanner
from tests.engine.test_supervisor import Recorder, _until

__all__ = ["own_spanner"]  # the fixture, used by name

pytestmark = pytest.mark.timeout(180)


async def stop_for_a_while(sink: Recorder, pid: int, seconds: float) -> tuple[int, list[Sample]]:
    """SIGSTOP the target for ``seconds``, then wait for 20 more transactions: the number of samples
    before the stop, and the samples from the stop to the recovery."""
    before, at = _transactions(sink), len(sink.samples)
    os.kill(pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)
    await _until(lambda: _transactions(sink) >= before + 20, "20 transactions after SIGCONT", 60)
    return at, sink.samples[at:]


def test_a_go_worker_counts_deadline_exceeded_while_the_target_is_stopped_and_recovers(
    own_spanner: LocalSpanner,
) -> None:
    async def scenario() -> tuple[Recorder, int, list[Sample]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("go-sigstop", _config(own_spanner.address, runtime=WorkerRuntime.GO.value))
        await _until(lambda: _transactions(sink) >= 20, "20 transactions before the stop", 60)
        stopped_at, during = await stop_for_a_while(sink, own_spanner.process.pid, STOPPED_S)
        await supervisor.stop("go-sigstop")
        return sink, stopped_at, during

    sink, stopped_at, during = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert set().union(*(s.errors_by_code for s in sink.samples[:stopped_at])) == set()  # none before
    assert sum(s.errors_by_code.get("DEADLINE_EXCEEDED", 0) for s in during) > 0, [s.errors_by_code for s in during]
    assert sink.summary is not None and sink.summary.totals.errors == sum(sink.summary.errors_by_code.values())
    r = sink.summary.reconciliation
    assert r is not None and r.ok, r
    assert (r.final_versions_missing, r.duplicates, r.unexpected) == (0, 0, 0), r


def test_a_live_change_of_client_timeout_ms_decides_whether_a_stopped_target_times_operations_out(
    own_spanner: LocalSpanner,
) -> None:
    """The same 3 s SIGSTOP twice: under a 30 s client timeout the operations wait it out (no error);
    after `client.timeout_ms` is changed live to 1 s, the workers' operations end DEADLINE_EXCEEDED."""
    pid = own_spanner.process.pid
    config = _config(own_spanner.address, client={"timeout_ms": 30_000})

    async def scenario() -> tuple[Recorder, list[Sample], list[Sample]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("timeout-live", config)
        await _until(lambda: _transactions(sink) >= 20, "20 transactions before the stop", 60)
        _, patient = await stop_for_a_while(sink, pid, 3.0)
        await supervisor.patch("timeout-live", ConfigPatch.model_validate({"client": {"timeout_ms": 1000}}), "test")
        seen = len(sink.samples)
        await _until(lambda: len(sink.samples) >= seen + 2, "2 samples after the patch", 60)
        _, impatient = await stop_for_a_while(sink, pid, 3.0)
        await supervisor.stop("timeout-live")
        return sink, patient, impatient

    sink, patient, impatient = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert set().union(*(s.errors_by_code for s in patient)) == set()
    assert sum(s.errors_by_code.get("DEADLINE_EXCEEDED", 0) for s in impatient) > 0, [
        s.errors_by_code for s in impatient
    ]
