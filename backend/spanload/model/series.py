"""Time series views of samples: flattening to named series, and min/max-preserving downsampling."""

from __future__ import annotations

from collections.abc import Sequence

from spanload.model.samples import Percentiles, Sample

PERCENTILE_FIELDS = ("count", "p50", "p90", "p95", "p99", "p999", "max", "mean")


def flatten(sample: Sample) -> dict[str, float]:
    """``{"latency.updater.txn.p99": 12.3, "gauges.updater.tps": 5.0, "totals.transactions": 50, ...}``."""
    out: dict[str, float] = {}
    for op, pct in sorted(sample.latency.items()):
        for field in PERCENTILE_FIELDS:
            value = getattr(pct, field)
            if value is not None:
                out[f"latency.{op}.{field}"] = float(value)
    for gauge, value in sorted(sample.gauges.items()):
        out[f"gauges.{gauge}"] = float(value)
    for field, total in sample.totals.model_dump().items():
        out[f"totals.{field}"] = float(total)
    for code, count in sorted(sample.errors_by_code.items()):
        out[f"errors.{code}"] = float(count)
    return out


def _extremes(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """The bucket's min and max of one series, in the order they occurred."""
    present = [(i, v) for i, v in enumerate(values) if v is not None]
    if not present:
        return None, None
    lo = min(present, key=lambda iv: iv[1])
    hi = max(present, key=lambda iv: iv[1])
    first, second = (lo, hi) if lo[0] <= hi[0] else (hi, lo)
    return first[1], second[1]


def _bucket_pair(bucket: Sequence[Sample]) -> list[Sample]:
    first, last = bucket[0], bucket[-1]
    a = first.model_copy(deep=True, update={"hdr": {}})
    z = last.model_copy(deep=True, update={"hdr": {}})
    ops = {op for s in bucket for op in s.latency}
    for op in ops:
        pa, pz = {}, {}
        for field in PERCENTILE_FIELDS:
            va, vz = _extremes([getattr(s.latency[op], field) if op in s.latency else None for s in bucket])
            pa[field], pz[field] = va, vz
        a.latency[op] = Percentiles.model_validate({k: v for k, v in pa.items() if v is not None} | _count(pa))
        z.latency[op] = Percentiles.model_validate({k: v for k, v in pz.items() if v is not None} | _count(pz))
    for gauge in {g for s in bucket for g in s.gauges}:
        va, vz = _extremes([s.gauges.get(gauge) for s in bucket])
        if va is not None and vz is not None:
            a.gauges[gauge], z.gauges[gauge] = va, vz
    for code in {c for s in bucket for c in s.errors_by_code}:
        ea, ez = _extremes([float(s.errors_by_code.get(code, 0)) for s in bucket])
        a.errors_by_code[code], z.errors_by_code[code] = int(ea or 0), int(ez or 0)
    return [a, z]


def _count(fields: dict[str, float | None]) -> dict[str, int]:
    return {"count": int(fields["count"] or 0)}


def downsample(samples: Sequence[Sample], max_points: int) -> list[Sample]:
    """At most ``max_points`` samples. Each bucket of consecutive samples becomes two points that
    carry, per series, the bucket's minimum and maximum in the order they happened, so peaks and dips
    survive; totals keep the bucket's first and last values."""
    if len(samples) <= max_points:
        return list(samples)
    buckets = max(1, max_points // 2)
    out: list[Sample] = []
    n = len(samples)
    for b in range(buckets):
        bucket = samples[b * n // buckets : (b + 1) * n // buckets]
        if len(bucket) == 1:
            out.append(bucket[0].model_copy(update={"hdr": {}}))
        elif bucket:
            out.extend(_bucket_pair(bucket))
    return out
