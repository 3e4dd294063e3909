"""Bookkeeping for the reconciliation: versions the updater wrote, and versions the watcher saw."""

from __future__ import annotations

import random
import threading

from spanload.model.protocol import WatcherLedger, WritersStopped

MAX_PICK_TRIES = 1000


class KeyBusyError(RuntimeError):
    """No free key could be found: the key space is too small for the writes in flight."""


class WriteLedger:
    """Per key: the next version to write, the last committed one and how many committed.

    A key is never written by two transactions at once (:meth:`reserve` skips keys in flight),
    so a key's versions commit in increasing order and the last committed one is its final value.
    Keys are split between worker processes: worker ``i`` of ``n`` owns the keys ``k % n == i``.
    """

    def __init__(self, worker: int, workers: int, key_space: int, rng: random.Random | None = None) -> None:
        self.worker = worker
        self.workers = workers
        self.key_space = key_space
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

        ``fresh`` picks keys from the whole INT64 range above the key space (new rows).
        """
        picked: dict[int, int] = {}
        with self._lock:
            slots = self._owned_slots()
            tries = 0
            while len(picked) < count:
                tries += 1
                if tries > MAX_PICK_TRIES + count:
                    raise KeyBusyError(
                        f"no free key among {slots} owned keys: raise updater.key_space or lower parallelism"
                    )
                high = (1 << 62) // self.workers
                slot = self._rng.randrange(slots, high) if fresh else self._rng.randrange(slots)
                key = slot * self.workers + self.worker
                if key in picked or key in self._in_flight:
                    continue
                version = self._next.get(key, 1)
                self._next[key] = version + 1
                picked[key] = version
            self._in_flight.update(picked)
        return list(picked.items())

    def committed(self, writes: list[tuple[int, int]]) -> None:
        with self._lock:
            for key, version in writes:
                _, count = self._committed.get(key, (0, 0))
                self._committed[key] = (version, count + 1)
                self._in_flight.discard(key)

    def failed(self, writes: list[tuple[int, int]], outcome_unknown: bool) -> None:
        """The transaction failed. If it may have committed anyway, its keys leave the proof."""
        with self._lock:
            for key, _ in writes:
                self._in_flight.discard(key)
                if outcome_unknown:
                    self._uncertain.add(key)

    def message(self, writer_id: str) -> WritersStopped:
        with self._lock:
            rows = [(k, v, c) for k, (v, c) in self._committed.items()]
            return WritersStopped(
                worker=self.worker, writer_id=writer_id, ledger=rows, uncertain_keys=sorted(self._uncertain)
            )


class SeenLedger:
    """Per key of this run's writers: the highest version seen and how many distinct versions.

    The watcher reads changes in (commit timestamp, key) order and a key's versions commit in
    increasing order, so a version not above the last one seen for its key is a duplicate.
    """

    def __init__(self, writer_ids: set[str]) -> None:
        self._writer_ids = writer_ids
        self._lock = threading.Lock()
        self._seen: dict[int, tuple[int, int]] = {}
        self.duplicates = 0
        self.foreign = 0

    def saw(self, key: int, version: int | None, writer_id: str | None) -> None:
        with self._lock:
            if writer_id not in self._writer_ids or version is None:
                self.foreign += 1
                return
            highest, distinct = self._seen.get(key, (0, 0))
            if version <= highest:
                self.duplicates += 1
            else:
                self._seen[key] = (version, distinct + 1)

    def message(self, worker: int) -> WatcherLedger:
        with self._lock:
            rows = [(k, v, d) for k, (v, d) in self._seen.items()]
            return WatcherLedger(worker=worker, received=rows, duplicates=self.duplicates, foreign=self.foreign)
