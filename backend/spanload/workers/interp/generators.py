"""Value generators compiled from a definition (workloads/README.md, "Generators").

:func:`compile_generator` turns one parsed generator and the run's knob values into a :class:`Draw`,
whose ``draw(rng, seq)`` returns a Python value the Spanner client takes (int, str, bytes,
``decimal.Decimal``, float, ``datetime.date``, an aware ``datetime``, ``None``) or
:data:`COMMIT_TIMESTAMP`. Draws follow the README exactly, so Go's interpreter draws the same values
from the same seed; :func:`wire` writes a value the way the golden file and Spanner's JSON do.
"""

from __future__ import annotations

import base64
import datetime as dt
import itertools
import math
import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from spanload.model.workload import KnobValue, Number, generator_kind, is_ref, ref_name
from spanload.workers.interp.prng import SplitMix64

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EPOCH_DATE = dt.date(1970, 1, 1)


class _CommitTimestamp:
    def __repr__(self) -> str:
        return "COMMIT_TIMESTAMP"


COMMIT_TIMESTAMP: Any = _CommitTimestamp()
"""Spanner's commit-timestamp placeholder; the executor swaps in the client's own sentinel."""


class Sequence:
    """Where a ``sequence`` generator is: ``row`` set for a load row, else a per-worker counter."""

    def __init__(self, worker: int = 0, workers: int = 1) -> None:
        self.worker = worker
        self.workers = workers
        self._counts: dict[int, itertools.count[int]] = {}
        self._lock = threading.Lock()

    def next_index(self, key: int, row: int | None) -> int:
        if row is not None:
            return row
        with self._lock:
            counter = self._counts.setdefault(key, itertools.count())
        return next(counter) * self.workers + self.worker


Drawer = Callable[[SplitMix64, Sequence, "int | None"], Any]


class Draw:
    """A compiled generator: ``draw(rng, seq, row)``; ``row`` is the load row's number, or None."""

    __slots__ = ("_draw", "kind", "null_fraction")

    def __init__(self, kind: str, draw: Drawer, null_fraction: float) -> None:
        self.kind = kind
        self._draw = draw
        self.null_fraction = null_fraction

    def draw(self, rng: SplitMix64, seq: Sequence, row: int | None = None) -> Any:
        if self.null_fraction > 0 and rng.unit() < self.null_fraction:
            return None
        return self._draw(rng, seq, row)


def number(value: Number, knobs: dict[str, KnobValue]) -> float:
    """A literal number or a ``$knob``'s value."""
    if isinstance(value, str) and is_ref(value):
        knob = knobs[ref_name(value)]
        if isinstance(knob, bool) or not isinstance(knob, int | float):
            raise ValueError(f"{value} is not a number ({knob!r})")
        return float(knob)
    return float(value)


def integer(value: Number, knobs: dict[str, KnobValue], what: str) -> int:
    n = number(value, knobs)
    if not n.is_integer():
        raise ValueError(f"{what} must be a whole number (got {n:g})")
    return int(n)


def _length(spec: Any, knobs: dict[str, KnobValue]) -> Callable[[SplitMix64], int]:
    if isinstance(spec, list):
        lo, hi = integer(spec[0], knobs, "length"), integer(spec[1], knobs, "length")
        if not 0 <= lo <= hi:
            raise ValueError(f"length [{lo}, {hi}] must have 0 <= lo <= hi")
        return lambda rng: rng.between(lo, hi)
    n = integer(spec, knobs, "length")
    if n < 0:
        raise ValueError(f"length {n} is negative")
    return lambda rng: n


class Zipf:
    """Rejection-inversion sampling of Zipf's law on [1, n] (Hörmann and Derflinger 1996)."""

    def __init__(self, n: int, s: float) -> None:
        if n < 1 or s <= 0:
            raise ValueError(f"zipf needs n >= 1 and s > 0 (got n={n}, s={s:g})")
        self.n, self.s = n, s
        self.hx1 = self._hint(1.5) - 1.0
        self.hn = self._hint(n + 0.5)
        self.shift = 2.0 - self._hinv(self._hint(2.5) - self._h(2.0))

    def _h(self, x: float) -> float:
        return math.exp(-self.s * math.log(x))

    def _hint(self, x: float) -> float:
        log_x = math.log(x)
        return _helper2((1.0 - self.s) * log_x) * log_x

    def _hinv(self, x: float) -> float:
        t = max(x * (1.0 - self.s), -1.0)
        return math.exp(_helper1(t) * x)

    def draw(self, rng: SplitMix64) -> int:
        while True:
            u = self.hn + rng.unit() * (self.hx1 - self.hn)
            x = self._hinv(u)
            k = min(max(math.floor(x + 0.5), 1), self.n)
            if k - x <= self.shift or u >= self._hint(k + 0.5) - self._h(k):
                return k


def _helper1(x: float) -> float:
    return math.log1p(x) / x if abs(x) > 1e-8 else 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))


def _helper2(x: float) -> float:
    return math.expm1(x) / x if abs(x) > 1e-8 else 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))


def _parse_date(text: str) -> int:
    return (dt.date.fromisoformat(text) - EPOCH_DATE).days


def _parse_timestamp(text: str) -> int:
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def format_decimal(v: int, scale: int) -> str:
    sign = "-" if v < 0 else ""
    whole, frac = divmod(abs(v), 10**scale)
    return f"{sign}{whole}.{frac:0{scale}d}" if scale else f"{sign}{whole}"


def _uuid(rng: SplitMix64) -> str:
    hi = (rng.u64() & ~0xF000) | 0x4000
    lo = (rng.u64() & ~(0xC << 60)) | (0x8 << 60)
    h = f"{hi:016x}{lo:016x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def compile_generator(gen: Any, knobs: dict[str, KnobValue]) -> Draw:
    """A :class:`Draw` for a parsed generator with the run's knob values. Raises ValueError with a
    sentence when a parameter is out of its domain (e.g. min above max)."""
    kind = generator_kind(gen)
    null_fraction = 0.0 if isinstance(gen, str) else getattr(gen, "null_fraction", 0.0)
    p: Any = None if isinstance(gen, str) else getattr(gen, kind)
    draw: Drawer
    if kind == "uniform":
        lo, hi = integer(p.min, knobs, "uniform.min"), integer(p.max, knobs, "uniform.max")
        if lo > hi:
            raise ValueError(f"uniform min {lo} is above max {hi}")
        draw = lambda rng, seq, row: rng.between(lo, hi)  # noqa: E731
    elif kind == "zipf":
        zipf = Zipf(integer(p.n, knobs, "zipf.n"), number(p.s, knobs))
        draw = lambda rng, seq, row: zipf.draw(rng)  # noqa: E731
    elif kind == "sequence":
        start, step = integer(p.start, knobs, "sequence.start"), integer(p.step, knobs, "sequence.step")
        key = id(gen)
        draw = lambda rng, seq, row: start + step * seq.next_index(key, row)  # noqa: E731
    elif kind == "choice":
        values = list(p.values)
        if p.weights is None:
            draw = lambda rng, seq, row: values[rng.below(len(values))]  # noqa: E731
        else:
            cumulative = list(itertools.accumulate(p.weights))
            total = cumulative[-1]

            def draw(rng: SplitMix64, seq: Sequence, row: int | None) -> Any:
                u = rng.unit() * total
                return next((v for v, c in zip(values, cumulative, strict=True) if u < c), values[-1])

    elif kind == "string":
        length, alphabet = _length(p.length, knobs), list(p.alphabet)
        size = len(alphabet)
        draw = lambda rng, seq, row: "".join(alphabet[rng.below(size)] for _ in range(length(rng)))  # noqa: E731
    elif kind == "bytes":
        blength = _length(p.length, knobs)
        draw = lambda rng, seq, row: bytes(rng.below(256) for _ in range(blength(rng)))  # noqa: E731
    elif kind == "decimal":
        scale = p.scale
        dlo = round(number(p.min, knobs) * 10**scale)
        dhi = round(number(p.max, knobs) * 10**scale)
        if dlo > dhi:
            raise ValueError(f"decimal min is above max ({p.min} > {p.max})")
        draw = lambda rng, seq, row: Decimal(format_decimal(rng.between(dlo, dhi), scale))  # noqa: E731
    elif kind == "float":
        flo, fhi = number(p.min, knobs), number(p.max, knobs)
        if flo > fhi:
            raise ValueError(f"float min {flo:g} is above max {fhi:g}")
        draw = lambda rng, seq, row: flo + rng.unit() * (fhi - flo)  # noqa: E731
    elif kind == "date":
        days_lo, days_hi = _parse_date(p.min), _parse_date(p.max)
        if days_lo > days_hi:
            raise ValueError(f"date min {p.min} is after max {p.max}")
        draw = lambda rng, seq, row: EPOCH_DATE + dt.timedelta(days=rng.between(days_lo, days_hi))  # noqa: E731
    elif kind == "timestamp":
        us_lo, us_hi = _parse_timestamp(p.min), _parse_timestamp(p.max)
        if us_lo > us_hi:
            raise ValueError(f"timestamp min {p.min} is after max {p.max}")
        draw = lambda rng, seq, row: EPOCH + dt.timedelta(microseconds=rng.between(us_lo, us_hi))  # noqa: E731
    elif kind == "uuid":
        draw = lambda rng, seq, row: _uuid(rng)  # noqa: E731
    elif kind == "const":
        const = p
        draw = lambda rng, seq, row: const  # noqa: E731
    elif kind == "now":
        draw = lambda rng, seq, row: dt.datetime.now(dt.UTC)  # noqa: E731
    elif kind == "commit_timestamp":
        draw = lambda rng, seq, row: COMMIT_TIMESTAMP  # noqa: E731
    elif kind == "versioned_key":
        # the operation draws the key from the worker's ledger (interp/ledger.py); this gives its key space
        key_space = integer(p.max, knobs, "versioned_key.max")
        if key_space < 1:
            raise ValueError(f"versioned_key max must be at least 1 (got {key_space})")
        draw = lambda rng, seq, row: key_space  # noqa: E731
    elif kind in ("fresh_key", "version", "writer_id"):
        draw = lambda rng, seq, row: None  # noqa: E731  the operation draws them from its ledger
    else:  # pragma: no cover - the model admits no other kind
        raise ValueError(f"unknown generator {kind!r}")
    return Draw(kind, draw, null_fraction)


def wire(value: Any) -> Any:
    """A drawn value as Spanner's JSON writes it (INT64 and NUMERIC as strings, BYTES base64...):
    the form of the golden file, which Go's interpreter writes the same way."""
    if value is None or isinstance(value, bool | float):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if value is COMMIT_TIMESTAMP:
        return "spanner.commit_timestamp()"
    return value
