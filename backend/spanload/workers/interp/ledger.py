"""Bookkeeping for the reconciliation: versions the updater wrote, and versions the watcher saw."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable

from spanload.model.protocol import SEEN_WINDOW, WatcherLedger, WritersStopped
from spanload.model.ranges import RangeSet

MAX_PICK_TRIES = 1000
_WINDOW_BITS = (1 << SEEN_WINDOW) - 1

# New keys (batch_insert) live above every key of the key space: 2^62 + a 61-bit number.
FRESH_KEY_BASE = 1 << 62
_FRESH_MASK = (1 << 61) - 1
_FRESH_MULTIPLIER = 0x9E3779B97F4A7C15 & _FRESH_MASK  # odd: multiplying by it is a bijection mod 2^61
_FRESH_INVERSE = pow(_FRESH_MULTIPLIER, -1, 1 << 61)


def writer_id(run_id: str, worker: int) -> str:
    """What a worker's writes carry as their writer (Go: worker.WriterID)."""
    return f"{run_id}/{worker}"[:64]


class FreshKeys:
    """The new keys of a run's ``batch_insert`` writes: the ``n``-th of worker ``w`` is a bijection of
    ``(w, n)``, so that a key tells whose and which it was. The ledgers then keep ranges of ``n``
    (a handful, however many keys a long run writes) instead of one row per key. Multiplying by a
    large odd number spreads consecutive keys over the key range (no hot spot at the end of a
    table); the run id shifts the sequence, so runs do not write each other's keys."""

    def __init__(self, run_id: str, workers: int) -> None:
        self.workers = workers
        self.offset = int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:8], "big") & _FRESH_MASK

    def key(self, worker: int, n: int) -> int:
        index = (self.offset + n * self.workers + worker) & _FRESH_MASK
        return FRESH_KEY_BASE + (index * _FRESH_MULTIPLIER & _FRESH_MASK)

    def decode(self, key: int) -> tuple[int, int] | None:
        """``(worker, n)`` of a new key of this run; None for a key outside the new keys' range."""
        if not FRESH_KEY_BASE <= key <= FRESH_KEY_BASE + _FRESH_MASK:
            return None
        index = ((key - FRESH_KEY_BASE) * _FRESH_INVERSE - self.offset) & _FRESH_MASK
        worker, n = index % self.workers, index // self.workers
        return worker, n


class KeyBusyError(RuntimeError):
    """No free key could be found: the key space is too small for the writes in flight."""


class WriteLedger:
    """Per key: the next version to write, the last committed one and how many committed.

    A key is never written by two transactions at once (:meth:`reserve` skips keys in flight),
    so a key's versions commit in increasing order and the last committed one is its final value.
    Keys are split between worker processes: worker ``i`` of ``n`` owns the keys ``k % n == i``.

    New keys (``reserve(fresh=True)``, for batch_insert) are written once each, numbered in order
    (:class:`FreshKeys`): they are kept as ranges of numbers committed or of unknown outcome, so the
    ledger stays small on a long run.
    """

    def __init__(
        self,
        worker: int,
        workers: int,
        key_space: int,
        rng: random.Random | None = None,
        fresh_keys: FreshKeys | None = None,
    ) -> None:
        self.worker = worker
        self.workers = workers
        self.key_space = key_space
        self.fresh_keys = fresh_keys or FreshKeys("", workers)
        self._fresh_next = 0
        self._fresh_committed = RangeSet()
        self._fresh_uncertain = RangeSet()
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._next: dict[int, int] = {}
        self._committed: dict[int, tuple[int, int]] = {}
        self._in_flight: set[int] = set()
        self._uncertain: set[int] = set()

    def _owned_slots(self) -> int:
        return max(1, (self.key_space - self.worker + self.workers - 1) // self.workers)

    def set_key_space(self, key_space: int) -> None:
        with self._lock:
            self.key_space = key_space

    def reserve(self, count: int, fresh: bool = False) -> list[tuple[int, int]]:
        """``count`` distinct keys not in flight, with the version each will get.

        ``fresh`` gives the next new keys (new rows, version 1), above the key space.
        """
        if fresh:
            with self._lock:
                first, self._fresh_next = self._fresh_next, self._fresh_next + count
            return [(self.fresh_keys.key(self.worker, n), 1) for n in range(first, first + count)]
        with self._lock:
            picked = self._pick_locked(count, self._owned_slots(), self._rng.randrange)
        return list(picked.items())

    def reserve_owned(self, key_space: int, below: Callable[[int], int]) -> tuple[int, int]:
        """One key of ``[0, key_space)`` this worker owns and no execution of it is writing, with its
        next version: a definition's ``versioned_key``, whose slot is ``below(slots)`` (a uniform draw
        in ``[0, slots)`` from the execution's stream)."""
        slots = max(1, (key_space - self.worker + self.workers - 1) // self.workers)
        with self._lock:
            ((key, version),) = self._pick_locked(1, slots, below).items()
        return key, version

    def _pick_locked(self, count: int, slots: int, below: Callable[[int], int]) -> dict[int, int]:
        picked: dict[int, int] = {}
        tries = 0
        while len(picked) < count:
            tries += 1
            if tries > MAX_PICK_TRIES + count:
                raise KeyBusyError(
                    f"no free key among {slots} owned keys: raise updater.key_space or lower parallelism"
                )
            key = below(slots) * self.workers + self.worker
            if key in picked or key in self._in_flight:
                continue
            version = self._next.get(key, 1)
            self._next[key] = version + 1
            picked[key] = version
        self._in_flight.update(picked)
        return picked

    def _fresh(self, key: int) -> int | None:
        """The number of one of this worker's new keys; None for a key of the key space."""
        found = self.fresh_keys.decode(key)
        return found[1] if found is not None and found[0] == self.worker else None

    def committed(self, writes: list[tuple[int, int]]) -> None:
        with self._lock:
            for key, version in writes:
                if (n := self._fresh(key)) is not None:
                    self._fresh_committed.add(n)
                    continue
                _, count = self._committed.get(key, (0, 0))
                self._committed[key] = (version, count + 1)
                self._in_flight.discard(key)

    def failed(self, writes: list[tuple[int, int]], outcome_unknown: bool) -> None:
        """The transaction failed. If it may have committed anyway, its keys leave the proof."""
        with self._lock:
            for key, _ in writes:
                if (n := self._fresh(key)) is not None:
                    if outcome_unknown:
                        self._fresh_uncertain.add(n)
                    continue
                self._in_flight.discard(key)
                if outcome_unknown:
                    self._uncertain.add(key)

    def message(self, writer_id: str) -> WritersStopped:
        with self._lock:
            rows = [(k, v, c) for k, (v, c) in self._committed.items()]
            return WritersStopped(
                worker=self.worker,
                writer_id=writer_id,
                ledger=rows,
                uncertain_keys=sorted(self._uncertain),
                fresh_committed=self._fresh_committed.ranges(),
                fresh_uncertain=self._fresh_uncertain.ranges(),
            )


class SeenLedger:
    """Per key of this run's writers: the highest version seen and how many distinct versions.

    A key's versions commit in increasing order, and one poller (or stream reader) receives them in
    that order, but pollers of different shards do not: a key whose shard column changed between two
    versions can have the lower one received after the higher. So the ledger also keeps which of the
    key's ``SEEN_WINDOW`` versions up to the highest were received (bit ``i``: version ``highest - i``),
    and a version counts as a duplicate when it was received before, or lies below that window.
    """

    def __init__(self, writer_ids: set[str], fresh_keys: FreshKeys | None = None) -> None:
        self._writer_ids = writer_ids
        self._fresh_keys = fresh_keys
        self._lock = threading.Lock()
        self._seen: dict[int, tuple[int, int, int]] = {}  # key -> (highest, distinct, window bits)
        self._fresh_seen: dict[int, RangeSet] = {}  # worker -> numbers of its new keys seen
        self.duplicates = 0
        self.foreign = 0

    def saw(self, key: int, version: int | None, writer_id: str | None) -> None:
        with self._lock:
            if writer_id not in self._writer_ids or version is None:
                self.foreign += 1
                return
            fresh = self._fresh_keys.decode(key) if self._fresh_keys is not None else None
            if fresh is not None:
                worker, n = fresh
                if not self._fresh_seen.setdefault(worker, RangeSet()).add(n):
                    self.duplicates += 1
                return
            highest, distinct, bits = self._seen.get(key, (0, 0, 0))
            if version > highest:
                above = version - highest
                bits = (bits << above | 1) & _WINDOW_BITS if above < SEEN_WINDOW else 1
                self._seen[key] = (version, distinct + 1, bits)
                return
            below = highest - version
            if below < SEEN_WINDOW and not bits >> below & 1:
                self._seen[key] = (highest, distinct + 1, bits | 1 << below)  # late, from another shard
            else:
                self.duplicates += 1

    def message(self, worker: int) -> WatcherLedger:
        with self._lock:
            rows = [(k, v, d) for k, (v, d, _) in self._seen.items()]
            fresh = {w: seen.ranges() for w, seen in self._fresh_seen.items()}
            return WatcherLedger(
                worker=worker, received=rows, duplicates=self.duplicates, foreign=self.foreign, fresh_received=fresh
            )
