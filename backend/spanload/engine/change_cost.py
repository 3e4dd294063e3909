"""What a delivered change costs the server: its CPU per change the watchers received, as the
target gives it: the local Spanner's counters (the server's whole CPU, :class:`ChangeCost`), or
SPANNER_SYS's query statistics (the watcher's own statements, :class:`MinuteChangeCost`).

Where the target counts its CPU (the local Spanner's ``SPANNER_SYS.SPANLOAD_COUNTERS``: process CPU
plus what its latency model charged, read every report interval as ``server.cpu_fraction``), an
interval's server CPU seconds are that fraction times the interval's length. The figure is the
server's whole CPU, the writes' included: two runs on the same load (polling, a change stream)
commit the same, so their difference is what each way of watching costs, a change stream's work at
commit time as well as its reads.

- Each interval: its CPU over the changes it received (none when it received none).
- The whole run: the CPU of every measured interval that had the gauge over the changes received in
  those intervals, so an idle interval's CPU (polls that found nothing, heartbeats) still counts
  against the changes, and a quiet interval weighs no more than its CPU. Not a mean of the ratios.
"""

from __future__ import annotations

from spanload.model.samples import Gauge

MS_PER_S = 1000.0
MINUTE_S = 60.0  # SPANNER_SYS's *_TOP_MINUTE intervals


def per_change_ms(cpu_s: float, changes: int) -> float | None:
    """Milliseconds of server CPU per change; None when nothing was received."""
    return cpu_s / changes * MS_PER_S if changes > 0 else None


def interval_cpu_s(gauges: dict[str, float], interval_s: float) -> float | None:
    """The server CPU seconds of one interval, from its ``server.cpu_fraction``; None without it."""
    fraction = gauges.get(Gauge.SERVER_CPU_FRACTION)
    return None if fraction is None else fraction * interval_s


class ChangeCost:
    """The whole run's server CPU per change, summed over the measured intervals."""

    def __init__(self) -> None:
        self.cpu_s = 0.0
        self.changes = 0

    def add(self, gauges: dict[str, float], changes: int, interval_s: float) -> float | None:
        """Count one measured interval; returns its own CPU per change (None without one)."""
        cpu = interval_cpu_s(gauges, interval_s)
        if cpu is None:
            return None
        self.cpu_s += cpu
        self.changes += changes
        return per_change_ms(cpu, changes)

    def whole_ms(self) -> float | None:
        return per_change_ms(self.cpu_s, self.changes)


class MinuteChangeCost:
    """The watcher's own server CPU per change, where the target has SPANNER_SYS: the CPU its
    statements (the poll query, or the change stream's read function) used in a closed minute of
    ``QUERY_STATS_TOP_MINUTE`` (``server.poll_cpu_fraction`` x 60 s, the minute the aggregator kept
    as the run's: model/server_minute.py) over the changes received in the intervals that ended in
    that minute. A minute is counted once however many reports repeat it, when the first interval
    ending at or after it is emitted (every interval inside it is then in)."""

    def __init__(self) -> None:
        self._pending: dict[float, float] = {}  # minute end (unix s) -> its CPU seconds
        self._seen: set[float] = set()
        self._intervals: list[tuple[float, int]] = []  # (end, changes) of the intervals emitted
        self.cpu_s = 0.0
        self.changes = 0

    def note_minute(self, end: float | None, gauges: dict[str, float]) -> None:
        """A report's minute figures (already judged the run's); a minute seen before is ignored."""
        fraction = gauges.get(Gauge.SERVER_POLL_CPU_FRACTION)
        if end is None or fraction is None or end in self._seen:
            return
        self._seen.add(end)
        self._pending[end] = fraction * MINUTE_S

    def add_interval(self, t: float, changes: int, measured_from: float) -> float | None:
        """One emitted interval (ending at ``t``); returns the CPU per change of the newest minute it
        closes, if any. Minutes that start before ``measured_from`` (the warm-up) stay out of the
        whole run's figure."""
        self._intervals.append((t, changes))
        closed = sorted(end for end in self._pending if end <= t)
        out: float | None = None
        for end in closed:
            cpu = self._pending.pop(end)
            n = sum(c for at, c in self._intervals if end - MINUTE_S < at <= end)
            if end - MINUTE_S >= measured_from:
                self.cpu_s += cpu
                self.changes += n
            out = per_change_ms(cpu, n)
        oldest = min(self._pending, default=t) - 3 * MINUTE_S  # a minute may be read a while after it closed
        self._intervals = [(at, c) for at, c in self._intervals if at > oldest]
        return out

    def whole_ms(self) -> float | None:
        return per_change_ms(self.cpu_s, self.changes)
