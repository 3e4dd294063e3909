"""Every gauge has the unit its meaning asks for: a new gauge whose name carries no known unit
falls through to ``count``, and this list of the gauges that are counts must then name it."""

from __future__ import annotations

from spanload.model import op_metrics
from spanload.model.samples import Gauge
from spanload.model.units import COUNT, MS, PER_S, gauge_unit, series_unit

COUNTS = {
    Gauge.UPDATER_BEHIND,
    Gauge.READER_BEHIND,
    Gauge.WATCHER_ROWS_PER_POLL,
    Gauge.SESSIONS_IN_USE,
    Gauge.SESSIONS_IDLE,
    Gauge.SESSIONS_WAITING,
    Gauge.SERVER_TXN_AVG_PARTICIPANTS,
    Gauge.SERVER_COMMIT_PARTICIPANTS,
    Gauge.SERVER_SPLITS,
    Gauge.WORKERS_STALLED,
    Gauge.TPCC_TERMINALS,
}


def test_only_the_gauges_that_count_things_are_counts() -> None:
    counted = {g for g in Gauge if gauge_unit(g.value).unit == COUNT}
    assert counted == COUNTS


def test_durations_are_milliseconds_and_rates_per_second() -> None:
    assert gauge_unit(Gauge.SERVER_COMMIT_LATENCY_S).header == "server.commit_latency [ms]"
    assert gauge_unit(Gauge.SERVER_COMMIT_LATENCY_S).of(0.25) == 250.0
    assert gauge_unit(Gauge.WATCHER_LAG_MS).header == "watcher.lag [ms]"
    assert gauge_unit(Gauge.ERRORS_PS).unit == PER_S and gauge_unit(Gauge.UPDATER_TPS).unit == PER_S
    assert gauge_unit(op_metrics.name(op_metrics.OpGauge.PS, "place_order")).unit == PER_S
    assert gauge_unit(op_metrics.name(op_metrics.OpGauge.IN_FLIGHT, "place_order")).unit == COUNT
    assert series_unit("latency.op.place_order.p99").unit == MS
    assert series_unit("latency.op.place_order.count").unit == COUNT
    assert series_unit("gauges.server.poll_avg_latency_s").header == "gauges.server.poll_avg_latency [ms]"
