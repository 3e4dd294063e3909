"""What /metrics keeps of a run (control/run_metrics.py): histogram keys to (quantity, operation),
buckets summed over samples since the run began, a finished run dropped after the retention; and the
store writer's lag."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy.orm import Session

from spanload.control.run_metrics import LATENCY_BUCKETS_S, Quantity, RunMetrics, classify
from spanload.model import metrics as hdr
from spanload.model.samples import Sample
from spanload.model.state import RunState
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from spanload.store.writer import StoreWriter
from tests.helpers import wait_for


def test_histogram_keys_name_a_quantity_and_an_operation() -> None:
    assert classify("updater.txn") == (Quantity.LATENCY, "updater.txn")
    assert classify("updater.txn_intended") == (Quantity.INTENDED, "updater.txn")
    assert classify("reader.read_server") == (Quantity.SERVER, "reader.read")
    assert classify("watcher.poll.failed") == (Quantity.FAILED, "watcher.poll")
    assert classify("watcher.notify") == (Quantity.NOTIFY, "watcher.notify")
    assert classify("op.place_order") == (Quantity.LATENCY, "place_order")
    assert classify("op.place_order_intended") == (Quantity.INTENDED, "place_order")
    assert classify("op.place_order_server") == (Quantity.SERVER, "place_order")
    assert classify("op.place_order.failed") == (Quantity.FAILED, "place_order")


def sample(seq: int, values_us: list[int], errors: dict[str, int]) -> Sample:
    histogram = hdr.new_histogram()
    for value in values_us:
        histogram.record_value(value)
    return Sample(
        seq=seq,
        t=float(seq),
        elapsed_s=float(seq),
        interval_s=1.0,
        latency={"op.buy": hdr.percentiles(histogram)},
        errors_by_code=errors,
        gauges={"retries_ps": 2.0},
        hdr={"op.buy": hdr.encode(histogram)},
    )


def test_buckets_and_counters_add_up_over_samples_and_a_finished_run_goes_after_the_retention() -> None:
    metrics = RunMetrics(retention_s=60.0)
    metrics.on_state("r1", RunState.RUNNING, now=0.0)
    metrics.on_sample("r1", sample(0, [500, 3_000, 3_000], {"ABORTED": 1}))
    metrics.on_sample("r1", sample(1, [1_000, 40_000], {"ABORTED": 2, "UNAVAILABLE": 1}))
    series = metrics.runs["r1"]
    buckets = series.histograms[(Quantity.LATENCY, "buy")]
    by_bound = dict(zip(LATENCY_BUCKETS_S, buckets.cumulative, strict=True))
    assert (by_bound[0.0005], by_bound[0.001], by_bound[0.005], by_bound[0.05], buckets.count) == (1, 2, 4, 5, 5)
    # a value on a bound counts in it (le: less or equal)
    assert abs(buckets.sum_s - 0.0475) < 0.0475 * 0.001
    assert series.errors_by_code == {"ABORTED": 3, "UNAVAILABLE": 1}
    assert series.retries == 4
    assert series.latest is not None and series.latest.seq == 1

    metrics.on_state("r1", RunState.FINISHED, now=100.0)
    metrics.on_state("r2", RunState.RUNNING, now=100.0)
    metrics.prune(now=160.0)
    assert set(metrics.runs) == {"r1", "r2"}  # within the retention: its final figures stay
    metrics.prune(now=160.5)
    assert set(metrics.runs) == {"r2"}  # a live run is never dropped


def test_without_a_scrape_the_ended_runs_kept_are_those_within_the_retention() -> None:
    # Issue 30: pruning only at a scrape kept every run's series (its last sample, histograms and all)
    # for as long as serve ran when nothing scraped /metrics. 100 runs of 10 s back to back, one
    # starting every 30 s, retention 60 s: at each start the runs that ended within the last 60 s stay.
    metrics = RunMetrics(retention_s=60.0)
    kept = []
    for n in range(100):
        began = 30.0 * n
        metrics.on_state(f"r{n}", RunState.RUNNING, now=began)
        metrics.on_sample(f"r{n}", sample(n, [1_000], {}))
        metrics.on_state(f"r{n}", RunState.FINISHED, now=began + 10.0)
        kept.append(len(metrics.runs))
    # r(n) ends at 30n + 10, when r(n-1) and r(n-2) ended 30 and 60 s before (60 is within), r(n-3) 90
    assert kept[:2] == [1, 2] and set(kept[2:]) == {3}
    assert sorted(metrics.runs) == ["r97", "r98", "r99"]


def test_store_writer_lag_is_the_oldest_unapplied_write_and_zero_when_idle(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'writer.db'}"
    upgrade_to_head(url)
    writer = StoreWriter(make_sessionmaker(make_engine(url)))
    started, release = threading.Event(), threading.Event()

    def blocked(_: Session) -> None:
        started.set()
        release.wait()

    try:
        assert (writer.pending(), writer.lag_s()) == (0, 0.0)
        writer.submit(blocked)
        writer.submit(lambda _: None)
        assert started.wait(30)
        first = writer.lag_s()
        assert writer.pending() == 2 and first > 0
        assert writer.lag_s() >= first  # it grows while the write is stuck
        release.set()
        wait_for(lambda: True if writer.pending() == 0 else None, 30, "the writer to apply both writes")
        assert writer.lag_s() == 0.0
    finally:
        release.set()
        writer.close()
