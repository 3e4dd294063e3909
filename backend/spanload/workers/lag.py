"""Watcher lag: how long a change can have waited, committed but not yet received, by a report's time.

A poll whose page is not full returns every change committed before it started (a strong read),
so after it a shard group has received everything up to that poll's start: its *caught-up time*.
A change committed just after it waits until the next such poll ends. One *cycle* is that wait:
from the start of a poll that emptied the backlog to the end of the next one. A full page does not
end a cycle: more changes wait behind it.

The lag of a report interval is the longest cycle that ended in it (or, if none did, the last one
that ended before), or the current cycle's age at the interval's end if that is longer. With a
poll every ``p`` that keeps up it is ``p`` plus one poll's duration, whatever the moment the
interval ends; it grows second by second while the watcher falls behind. The age of the newest
change seen, sampled at the interval's end (the lag before), was a sawtooth between the two: it
showed the phase between the polls and the reports and moved whenever that phase did.

Time spent paused (the run, or the watcher) does not count: nothing is written then. All times
are ``time.monotonic()`` seconds, the worker's own clock: no commit timestamps, no clock skew.
"""

from __future__ import annotations

import threading


class LagMeter:
    """The lag of one shard group. Polls report through :meth:`polled`; the reporter calls :meth:`take`."""

    def __init__(self, now: float) -> None:
        self._lock = threading.Lock()
        self._caught_up = now  # every change committed before this has been received
        self._peak: float | None = None  # the longest cycle that ended in this interval
        self._last = 0.0  # the last cycle that ended
        self._paused_at: float | None = None

    @property
    def caught_up(self) -> float:
        with self._lock:
            return self._caught_up

    def polled(self, started: float, ended: float, full: bool) -> None:
        """A poll that started and ended at these times succeeded; ``full``: its page was full."""
        if full:
            return
        with self._lock:
            self._last = ended - self._caught_up
            self._peak = self._last if self._peak is None else max(self._peak, self._last)
            self._caught_up = max(self._caught_up, started)

    def pause(self, now: float) -> None:
        with self._lock:
            if self._paused_at is None:
                self._paused_at = now

    def resume(self, now: float) -> None:
        with self._lock:
            if self._paused_at is not None:
                self._caught_up += now - self._paused_at
                self._paused_at = None

    def take(self, now: float) -> float | None:
        """The lag (seconds) of the interval ending ``now``, and a new interval begins; None while paused."""
        with self._lock:
            peak = self._last if self._peak is None else self._peak
            self._peak = None
            if self._paused_at is not None:
                return None
            return max(peak, now - self._caught_up)
