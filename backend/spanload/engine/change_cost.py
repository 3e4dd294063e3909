"""What a delivered change costs the server: its CPU per change the watchers received.

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
