"""Chaos against a real run: real Supervisor, real Python workers, a local Spanner of the test's own
(a free port, stopped by its PID). Each test is bounded by its run's duration plus the stop grace.

- SIGSTOP the local Spanner for 5 s: the operations caught in it fail with DEADLINE_EXCEEDED within
  ``client.timeout_ms``, counted in that interval's ``errors_by_code``; after SIGCONT the run
  recovers by itself and finishes with its reconciliation intact.
- SIGKILL a worker: the run fails at once, naming the worker, its pid and the signal.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.samples import Op, Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.spanner.local_server import LocalSpanner, LocalSpannerError, start_local_spanner
from tests.engine.test_supervisor import Recorder, _until, assert_only_passing_stalls

STOPPED_S = 5.0
TIMEOUT_MS = 1000


@pytest.fixture
def own_spanner() -> Iterator[LocalSpanner]:
    """A local Spanner for one chaos test only: what it does to the server touches nobody else."""
    try:
        server = start_local_spanner("127.0.0.1", 0, None, Settings().local_spanner_binary)
    except LocalSpannerError as err:
        pytest.fail(f"no local Spanner ({err}); `make install` builds it")
    try:
        yield server
    finally:
        os.kill(server.process.pid, signal.SIGCONT)  # never leave it stopped, whatever failed
        server.stop()


def _config(address: str, **extra: object) -> RunConfig:
    return RunConfig.model_validate(
        {
            "target": {"kind": "local", "emulator_host": address, "database": "chaos"},
            "updater": {"transactions_per_second": 20},
            "watcher": {"poll_interval_ms": 200},
            "client": {"timeout_ms": TIMEOUT_MS},
            **extra,
        }
    )


def _transactions(sink: Recorder) -> int:
    return sink.samples[-1].totals.transactions if sink.samples else 0


def test_a_stopped_server_counts_deadline_exceeded_and_the_run_recovers_after_sigcont(
    own_spanner: LocalSpanner,
) -> None:
    pid = own_spanner.process.pid

    async def scenario() -> tuple[Recorder, int, list[Sample], int]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("sigstop", _config(own_spanner.address))
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
        await supervisor.stop("sigstop")
        return sink, resumed, during, stopped_at

    started = time.monotonic()
    sink, resumed, during, stopped_at = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    # the workers kept reporting while the server was stopped: no silence as long as the stop
    assert_only_passing_stalls(sink.events, STOPPED_S)
    deadline_exceeded = sum(s.errors_by_code.get("DEADLINE_EXCEEDED", 0) for s in during)
    assert deadline_exceeded > 0, [s.errors_by_code for s in during]
    assert set().union(*(s.errors_by_code for s in sink.samples[:stopped_at])) == set()  # none before
    assert sink.samples[-1].totals.transactions >= resumed + 20  # it recovered by itself
    summary = sink.summary
    assert summary is not None and summary.reconciliation is not None
    assert summary.reconciliation.ok, summary.reconciliation.detail
    assert summary.totals.errors == sum(summary.errors_by_code.values())
    failed = sum(
        summary.latency[op].count for op in (Op.UPDATER_TXN_FAILED, Op.WATCHER_POLL_FAILED) if op in summary.latency
    )
    assert failed == summary.totals.errors  # every failure timed in its own histogram
    assert summary.latency[Op.UPDATER_TXN].count == summary.totals.transactions  # successes only
    print(f"\nSIGSTOP {STOPPED_S:.0f} s: {deadline_exceeded} DEADLINE_EXCEEDED, run {time.monotonic() - started:.1f} s")


def test_a_killed_worker_fails_the_run_at_once_naming_it_its_pid_and_the_signal(own_spanner: LocalSpanner) -> None:
    async def scenario() -> tuple[Recorder, list[int], float]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("sigkill-worker", _config(own_spanner.address, processes=2))
        await _until(lambda: _transactions(sink) >= 5, "5 transactions", 60)
        pids = supervisor.worker_pids("sigkill-worker")
        killed_at = time.monotonic()
        os.kill(pids[1], signal.SIGKILL)
        await asyncio.wait_for(supervisor.wait_finished("sigkill-worker"), 60)
        return sink, pids, time.monotonic() - killed_at

    sink, pids, took = asyncio.run(scenario())
    assert sink.states[-1] == (
        RunState.FAILED,
        f"worker 1 (pid {pids[1]}) was killed by SIGKILL (exit status -9) before the run ended",
    )
    # failed from the exit itself (the reason above), not after a silence: none lasted until the
    # watchdog's verdict, and none was still open
    assert_only_passing_stalls(sink.events, Settings().worker_silence_fail_s, unended={1})
    print(f"\nworker SIGKILL to FAILED: {took * 1000:.0f} ms")
