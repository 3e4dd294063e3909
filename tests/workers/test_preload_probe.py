"""The load phase tells a target that is down from a slow commit into a busy one: while no batch
finishes it asks the probe; an unanswered probe (twice in a row) ends the load at once with a
sentence naming the target and the rows reached, an answered one leaves the slow commit its time."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from spanload.spanner.client import TargetUnreachableError
from spanload.workers import preload
from spanload.workers.preload import Loader, run_preload

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(autouse=True)
def quick_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preload, "STALL_PROBE_S", 0.05)


def _never(*_: object) -> int:
    raise AssertionError("no count without resume")


def _load(write: preload.WriteRows, rows: int, **options: Any) -> None:
    """``rows`` rows in batches of 10, no resume, nothing to stop it."""
    options.setdefault("on_batch", lambda *_: None)
    run_preload(
        lambda: None,
        Loader(write=write, count=_never, batch_rows=10),
        0,
        rows,
        resume=False,
        stop=threading.Event(),
        **options,
    )


def test_a_slow_commit_into_a_target_that_answers_keeps_its_time() -> None:
    probes: list[int] = []
    done: list[int] = []

    def write(_db: object, lo: int, hi: int) -> None:
        if lo == 10:
            threading.Event().wait(1.0)  # 20 stall periods: the probe is asked many times

    _load(write, 30, on_batch=lambda rows, _skipped: done.append(rows), in_flight=1, probe=lambda: probes.append(1))
    assert sum(done) == 30
    assert len(probes) >= preload.UNREACHABLE_PROBES  # asked, answered, and the load went on


def test_a_target_that_stops_answering_ends_the_load_at_once_naming_it_and_the_rows_reached() -> None:
    release = threading.Event()
    answered = threading.Event()
    returned: list[int] = []

    def write(_db: object, lo: int, hi: int) -> None:
        if lo >= 20:
            release.wait(20)  # a commit whose client keeps retrying a refused connection
            returned.append(lo)

    def probe() -> None:
        answered.set()
        raise TargetUnreachableError("the local target at 127.0.0.1:1 did not answer: UNAVAILABLE: refused")

    try:
        with pytest.raises(RuntimeError) as lost:
            _load(write, 100, in_flight=2, probe=probe)
        assert returned == []  # ended while the commits were still in flight, not by them
    finally:
        release.set()
    assert answered.is_set()
    assert str(lost.value) == (
        "the local target at 127.0.0.1:1 did not answer: UNAVAILABLE: refused; the load stopped with 20 of its "
        "100 rows [0, 100) written (2 probes in a row unanswered)"
    )


def test_without_a_probe_a_failing_batch_is_still_tried_attempts_times(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preload, "RETRY_BACKOFF_S", 0.0)
    tries: list[int] = []

    def write(_db: object, lo: int, hi: int) -> None:
        tries.append(lo)
        raise RuntimeError("504 the operation ran out")

    with pytest.raises(RuntimeError, match=r"preloading rows \[0, 10\) failed 4 times: 504"):
        _load(write, 10)
    assert tries == [0] * preload.ATTEMPTS
