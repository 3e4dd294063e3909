"""The suite's own helpers: a polled probe's assertion reaches the test at once (issue 30)."""

from __future__ import annotations

import threading

import pytest

from tests.helpers import Poller, wait_for


def test_an_assertion_in_a_probe_fails_at_once_and_only_transient_errors_are_retried() -> None:
    calls: list[int] = []

    def failing() -> None:
        calls.append(1)
        raise AssertionError("the run failed")

    with pytest.raises(AssertionError, match="the run failed"):
        wait_for(failing, 3600, "something")  # an hour: only an immediate failure ends this test
    assert len(calls) == 1

    refused: list[int] = []

    def up_on_the_third_try() -> str | None:
        refused.append(1)
        if len(refused) < 3:
            raise ConnectionRefusedError
        return "up"

    assert wait_for(up_on_the_third_try, 3600, "up", every_s=0) == "up"
    assert len(refused) == 3


def test_a_pollers_failure_is_raised_in_the_test() -> None:
    failed = threading.Event()

    def poll() -> None:
        failed.set()
        raise KeyError("local_spanner")

    poller = Poller(poll, 0.0, "probe")
    poller.start()
    assert failed.wait(3600)
    with pytest.raises(AssertionError, match="probe failed: KeyError"):
        poller.stop()
