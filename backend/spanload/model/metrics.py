"""Latency histograms (HdrHistogram, 3 significant digits, microseconds) and their wire encoding.

Workers record into a :class:`Recorder` and ship interval deltas as base64 of HdrHistogram's
standard compressed encoding, which the Python, Go and Java HdrHistogram libraries all read.
The aggregator adds deltas together; percentiles are only ever computed from merged counts.
"""

from __future__ import annotations

import bisect
import itertools
import threading
import weakref
from collections.abc import Iterable, Mapping

from hdrh.histogram import HdrHistogram

from spanload.model.samples import Percentiles

LOWEST_US = 1
HIGHEST_US = 3_600_000_000  # one hour
SIGNIFICANT_DIGITS = 3
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)
US_PER_MS = 1000.0


def new_histogram() -> HdrHistogram:
    """An empty histogram with Spanload's range (1 us .. 1 h) and precision (3 digits)."""
    return _acyclic(HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS))


def _acyclic(histogram: HdrHistogram) -> HdrHistogram:
    """The histogram with its encoder's reference back to it made weak. The library makes each
    histogram a reference cycle (histogram -> encoder -> histogram), so a dropped one (its ~90 kB of
    counts) waited for a full garbage collection; serve decodes several an interval, and between
    its rare full collections that grew by ~80 MB an hour (issue 30). Now they go when dropped."""
    histogram.encoder.histogram = weakref.proxy(histogram)
    return histogram


def clamp_us(value_us: float) -> int:
    """A latency in microseconds, clamped into the histogram's trackable range."""
    return min(max(int(value_us), LOWEST_US), HIGHEST_US)


def encode(histogram: HdrHistogram) -> str:
    """Base64 of the standard compressed encoding (``HISTFAAA...``)."""
    encoded: bytes = histogram.encode()
    return encoded.decode("ascii")


def decode(text: str) -> HdrHistogram:
    """Inverse of :func:`encode`. Raises ``ValueError`` on text that is not an encoded histogram."""
    histogram = new_histogram()
    try:
        add_encoded(histogram, text.encode("ascii"))
    except Exception as err:  # the library raises several types on corrupt input
        raise ValueError(f"not a base64 compressed HdrHistogram: {err}") from err
    return histogram


def add_encoded(histogram: HdrHistogram, encoded: bytes) -> None:
    """Add an encoded histogram's counts to ``histogram`` (the library's ``decode_and_add``, without
    leaving the decoded copy as a reference cycle)."""
    histogram.add(_acyclic(HdrHistogram.decode(encoded)))


def merge(encoded: Iterable[str]) -> HdrHistogram:
    """One histogram holding every count of every encoded histogram given."""
    total = new_histogram()
    for text in encoded:
        total.add(decode(text))
    return total


def percentiles(histogram: HdrHistogram) -> Percentiles:
    """p50..p99.9, max and mean in milliseconds; all None when the histogram is empty.

    Same values as the library's ``get_percentile_to_value_dict`` and ``get_mean_value``, which
    walk every one of the ~47k buckets in Python method calls (~30 ms a histogram, too slow for
    an event loop merging several per interval); this accumulates the counts in C and bisects.
    """
    count = int(histogram.get_total_count())
    if count == 0:
        return Percentiles(count=0)
    last = histogram.get_counts_array_index(histogram.max_value) + 1
    counts = histogram.counts[:last]
    cumulative = list(itertools.accumulate(counts))
    values: dict[float, float] = {}
    for p in PERCENTILES:
        index = bisect.bisect_left(cumulative, histogram.get_target_count_at_percentile(p))
        value_us = histogram.get_highest_equivalent_value(histogram.get_value_from_index(index))
        values[p] = value_us / US_PER_MS
    total_us = sum(
        c * histogram._hdr_median_equiv_value(histogram.get_value_from_index(i)) for i, c in enumerate(counts) if c
    )
    return Percentiles(
        count=count,
        p50=values[50.0],
        p90=values[90.0],
        p95=values[95.0],
        p99=values[99.0],
        p999=values[99.9],
        max=histogram.get_max_value() / US_PER_MS,
        mean=total_us / count / US_PER_MS,
    )


class Recorder:
    """Thread-safe per-operation histograms that hand out and reset their interval deltas."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._histograms: dict[str, HdrHistogram] = {}

    def record(self, op: str, value_us: float) -> None:
        with self._lock:
            histogram = self._histograms.get(op)
            if histogram is None:
                histogram = self._histograms[op] = new_histogram()
            histogram.record_value(clamp_us(value_us))

    def record_many(self, op: str, values_us: Iterable[float]) -> None:
        with self._lock:
            histogram = self._histograms.get(op)
            if histogram is None:
                histogram = self._histograms[op] = new_histogram()
            for value in values_us:
                histogram.record_value(clamp_us(value))

    def take(self) -> dict[str, str]:
        """Encoded deltas since the previous call, for every op that recorded something."""
        with self._lock:
            taken, self._histograms = self._histograms, {}
        return {op: encode(h) for op, h in taken.items() if h.get_total_count() > 0}


def merge_maps(deltas: Iterable[Mapping[str, str]]) -> dict[str, HdrHistogram]:
    """Merge several ``{op: encoded}`` maps into one ``{op: histogram}`` map."""
    merged: dict[str, HdrHistogram] = {}
    for delta in deltas:
        for op, text in delta.items():
            if op not in merged:
                merged[op] = new_histogram()
            merged[op].add(decode(text))
    return merged
