"""Issue 30: serve grew ~80 MB an hour over a long run. Every HdrHistogram of the library is a
reference cycle (histogram -> encoder -> histogram), so each one serve decoded and dropped (several
an interval, ~90 kB of counts each) waited for a full garbage collection, which a process with
serve's many long-lived objects runs rarely. Spanload's histograms must go when they are dropped:
with the collector off, dropping them leaves no histogram and no counts array for it to find (the
library's ctypes leaves a small array *type* per decode; no counts)."""

from __future__ import annotations

import ctypes
import gc
import weakref
from collections.abc import Iterator

import pytest
from hdrh.codec import HdrHistogramEncoder
from hdrh.histogram import HdrHistogram

from spanload.model import metrics
from spanload.store import hdr


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds stays in gc.garbage, to be looked at
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def cyclic_histograms() -> list[str]:
    """The histograms, their encoders and counts arrays that only a collection would have freed."""
    gc.collect()
    found = [type(o).__name__ for o in gc.garbage if isinstance(o, HdrHistogram | HdrHistogramEncoder | ctypes.Array)]
    gc.garbage.clear()
    return found


def _encoded(*values_us: int) -> str:
    histogram = metrics.new_histogram()
    for value in values_us:
        histogram.record_value(value)
    return metrics.encode(histogram)


def test_a_dropped_histogram_is_freed_at_once(collector_off: None) -> None:
    text = _encoded(100, 2_000, 30_000)
    makers = (metrics.new_histogram, lambda: metrics.decode(text), lambda: metrics.merge([text, text]))
    for make in makers:
        histogram = make()
        ref = weakref.ref(histogram)
        del histogram
        assert ref() is None
    assert cyclic_histograms() == []


def test_merging_and_aggregating_leave_no_cycles(collector_off: None) -> None:
    text = _encoded(100, 2_000, 30_000)
    merged = metrics.merge_maps([{"commit": text, "poll": text}, {"commit": text}])
    assert {op: h.get_total_count() for op, h in merged.items()} == {"commit": 6, "poll": 3}
    del merged
    blobs = [hdr.pack_b64({"commit": text}), hdr.pack_b64({"commit": text, "poll": text})]
    rolled = hdr.merge_blobs(blobs)
    assert {op: h.get_total_count() for op, h in rolled.items()} == {"commit": 6, "poll": 3}
    del rolled
    assert cyclic_histograms() == []


def test_the_encoding_still_round_trips() -> None:
    histogram = metrics.decode(_encoded(100, 2_000, 30_000))
    again = metrics.decode(metrics.encode(histogram))
    assert again.get_total_count() == 3
    assert [again.get_value_at_percentile(p) for p in (1, 50, 100)] == [
        histogram.get_value_at_percentile(p) for p in (1, 50, 100)
    ]
    assert histogram.get_value_at_percentile(50) == histogram.get_highest_equivalent_value(2_000)
