"""What is warm-up: the one rule. A run's ``warmup_s`` (model/config.py) covers its first report
intervals: an interval that starts before ``warmup_s`` seconds into the run is warm-up (PGAdapter's
JVM, caches and connections still cold). Its sample is measured, stored and shown on the live chart
(``Sample.warmup``), but left out of the summary's percentiles, rates and breakdown, and so out of
the compare's figures and the thresholds judged on them; the run's totals stay whole-run counts
(the reconciliation and TPC-C's consistency count every operation)."""

from __future__ import annotations


def is_warmup(seq: int, interval_s: float, warmup_s: float) -> bool:
    """Is report interval ``seq`` (0-based, ``interval_s`` long) warm-up?"""
    return warmup_s > 0 and seq * interval_s < warmup_s
