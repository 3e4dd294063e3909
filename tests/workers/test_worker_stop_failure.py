"""A worker that fails while stopping says why before it exits.

The supervisor turns a worker's last fatal ``Error`` into the run's failure reason; without it the
run would only say "exit status 1". Here the stop itself raises (as the watcher's final drain does
when the target never comes back): the worker must send one fatal error naming the worker, the step
and the cause, stop its load threads, and exit 1."""

from __future__ import annotations

import datetime as dt
import io

import pytest

from spanload.model.builtin_convert import as_definition
from spanload.model.config import RunConfig
from spanload.model.protocol import Begin, Error, Hello, Ready, Start, Stop, decode_from_worker, encode
from spanload.workers import process
from spanload.workers.interp.poll_loop import DrainError

CAUSE = "watcher-0: the final drain failed for 20 s; last error: NOT_FOUND: Database not found"


def test_a_failure_at_stop_becomes_a_fatal_error_naming_the_worker_and_the_cause(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    abandoned: list[int] = []

    def failing_stop(self: process.Worker) -> None:
        raise DrainError(CAUSE)

    monkeypatch.setattr(process.Worker, "setup", lambda self: None)
    monkeypatch.setattr(process.Worker, "run", lambda self, started_at: None)
    monkeypatch.setattr(process.Worker, "stop", failing_stop)
    monkeypatch.setattr(process.Worker, "abandon", lambda self: abandoned.append(self.index))
    config = as_definition(RunConfig())  # workloads/change_watcher.yaml, as the supervisor sends it
    start = Start(run_id="r1", worker=3, workers=4, config=config, emulator_host="127.0.0.1:1")
    stdin = io.BytesIO(encode(start) + encode(Begin(started_at=1.0)) + encode(Stop()))
    out = io.BytesIO()

    status = process.serve(3, stdin, process.Channel(out))

    sent = [decode_from_worker(line) for line in out.getvalue().splitlines()]
    assert [type(m) for m in sent] == [Hello, Ready, Error]
    assert sent[2] == Error(worker=3, message=f"worker 3 failed at stop: {CAUSE}", fatal=True)
    assert (status, abandoned) == (1, [3])


def test_a_report_workload_that_reached_the_worker_unconverted_is_refused_naming_it() -> None:
    """The hand-written workloads are gone: a config that is neither a definition's run nor TPC-C
    (a supervisor that skipped the start check) gets one fatal error, not a traceback."""
    start = Start(run_id="r1", worker=0, workers=1, config=RunConfig(), emulator_host="127.0.0.1:1")
    out = io.BytesIO()
    status = process.serve(0, io.BytesIO(encode(start)), process.Channel(out))
    sent = [decode_from_worker(line) for line in out.getvalue().splitlines()]
    assert [type(m) for m in sent] == [Hello, Error] and status == 2
    assert isinstance(sent[1], Error) and sent[1].fatal
    assert sent[1].message.startswith("workload 'change_watcher' reached the worker unconverted: it runs workload ")


def test_a_preloaded_runs_watch_starts_at_the_begin_or_the_servers_earlier_time() -> None:
    """The server's time alone, read after Begin, came after other workers' first writes: 3 of 31
    final versions were missed in a sweep."""
    begun = 1_800_000_000.25
    at = dt.datetime.fromtimestamp(begun, dt.UTC)
    assert process.watch_start(at + dt.timedelta(seconds=1), begun) == at
    earlier = at - dt.timedelta(milliseconds=1)
    assert process.watch_start(earlier, begun) == earlier
