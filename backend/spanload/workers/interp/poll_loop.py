"""A poller's loop, shared by the definition's watch (interp/watch.py) and its change-stream drain
(interp/watch_stream.py): poll on an interval, at once again after a full page, back off on error,
and the final drain that polls until a page is not full."""

from __future__ import annotations

import datetime as dt
import threading
import time

from spanload.workers.lag import LagMeter

US_PER_S = 1_000_000
ERROR_BACKOFF_S = 0.2
# The final drain retries failed polls this long: a target that comes back within the supervisor's
# stop grace (30 s by default) is still drained, and one that does not fails the stop with its cause.
DRAIN_GIVE_UP_S = 20.0
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def to_unix(value: dt.datetime) -> float:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return (value - EPOCH).total_seconds()


class DrainError(RuntimeError):
    """The final drain could not poll the target: the watcher's proof cannot be completed."""


class PollLoop(threading.Thread):
    """A poller's thread: polls every ``interval_s()`` until stopped, at once again after a full
    page, after a short pause on error, idle while ``paused()``; :meth:`drain` polls until a page is
    not full. Subclasses say what one poll is (:meth:`poll_once`)."""

    def __init__(self, name: str, lag: LagMeter) -> None:
        super().__init__(name=name, daemon=True)
        self.lag = lag
        self.last_error: str | None = None
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        # one poll at a time: a drain's polls wait for a poll the stopped thread still has in flight
        # (its join timed out), so no two polls move the position at once
        self.polling = threading.Lock()

    def poll_one(self) -> bool | None:
        with self.polling:
            return self.poll_once()

    def paused(self) -> bool:
        raise NotImplementedError

    def interval_s(self) -> float:
        raise NotImplementedError

    def poll_once(self) -> bool | None:
        """One poll; True if the page was full, None on error (``last_error`` says which)."""
        raise NotImplementedError

    def run(self) -> None:
        while not self.stop_event.is_set():
            if self.paused():
                self.lag.pause(time.monotonic())
                self.wake.wait(0.05)
                self.wake.clear()
                continue
            self.lag.resume(time.monotonic())
            started = time.monotonic()
            full = self.poll_one()
            if full is None:
                self.stop_event.wait(ERROR_BACKOFF_S)
                continue
            if full:
                continue
            wait = self.interval_s() - (time.monotonic() - started)
            if wait > 0:
                self.wake.wait(wait)
                self.wake.clear()

    def drain(self) -> None:
        """Poll until a page is not full: called after every writer stopped, it sees every change."""
        give_up = time.monotonic() + DRAIN_GIVE_UP_S
        while True:
            full = self.poll_one()
            if full is False:
                return
            if full is None:
                if time.monotonic() > give_up:
                    failed_for = f"the final drain failed for {DRAIN_GIVE_UP_S:.0f} s"
                    raise DrainError(f"{self.name}: {failed_for}; last error: {self.last_error}")
                time.sleep(ERROR_BACKOFF_S)
