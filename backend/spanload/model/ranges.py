"""Sets of integers kept as sorted half-open ranges ``[lo, hi)``: the reconciliation's bookkeeping of
new keys (``batch_insert`` writes each once, numbered in order), which stays a handful of ranges
however many keys a long run writes."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

Range = tuple[int, int]


class RangeSet:
    """A set of integers as disjoint, non-adjacent sorted ranges."""

    def __init__(self, ranges: Iterable[Range] = ()) -> None:
        self._lo: list[int] = []
        self._hi: list[int] = []
        for lo, hi in ranges:
            self.add_range(lo, hi)

    def __contains__(self, n: int) -> bool:
        i = bisect_right(self._lo, n) - 1
        return i >= 0 and n < self._hi[i]

    def __len__(self) -> int:
        return sum(hi - lo for lo, hi in zip(self._lo, self._hi, strict=True))

    def add(self, n: int) -> bool:
        """Add ``n``; False if it was there already."""
        if n in self:
            return False
        self.add_range(n, n + 1)
        return True

    def add_range(self, lo: int, hi: int) -> None:
        """Add every integer of ``[lo, hi)``, merging with the ranges it touches."""
        if hi <= lo:
            return
        first = bisect_right(self._hi, lo - 1)  # the first range ending at or after lo
        last = bisect_right(self._lo, hi) - 1  # the last range starting at or before hi
        if first <= last:
            lo = min(lo, self._lo[first])
            hi = max(hi, self._hi[last])
        self._lo[first : last + 1] = [lo]
        self._hi[first : last + 1] = [hi]

    def ranges(self) -> list[Range]:
        return list(zip(self._lo, self._hi, strict=True))


def count(ranges: Iterable[Range]) -> int:
    """How many integers disjoint ranges hold."""
    return sum(hi - lo for lo, hi in ranges)


def overlap(a: Iterable[Range], b: Iterable[Range]) -> int:
    """How many integers two lists of disjoint sorted ranges have in common."""
    left, right = sorted(a), sorted(b)
    i = j = total = 0
    while i < len(left) and j < len(right):
        lo = max(left[i][0], right[j][0])
        hi = min(left[i][1], right[j][1])
        total += max(0, hi - lo)
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return total
