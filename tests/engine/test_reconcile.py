"""The reconciliation: written versions per key against what the watcher received."""

from __future__ import annotations

import itertools
import random

import pytest

from spanload.engine.reconcile import reconcile
from spanload.model.protocol import SEEN_WINDOW
from spanload.workers.interp.ledger import FRESH_KEY_BASE, FreshKeys, KeyBusyError, SeenLedger, WriteLedger


def _write(ledger: WriteLedger, count: int) -> list[tuple[int, int]]:
    writes = ledger.reserve(count)
    ledger.committed(writes)
    return writes


def test_everything_seen_reconciles() -> None:
    writer = WriteLedger(0, 1, key_space=50, rng=random.Random(3))
    seen = SeenLedger({"run/0"})
    for _ in range(40):
        for key, version in _write(writer, 3):
            seen.saw(key, version, "run/0")
    result = reconcile([writer.message("run/0")], seen.message(0))
    assert result.ok, result.detail
    assert result.final_versions_missing == 0 and result.duplicates == 0
    assert result.versions_written == 120 == result.versions_received
    assert result.superseded_unseen == 0


def test_superseded_versions_are_counted_apart_and_do_not_fail() -> None:
    writer = WriteLedger(0, 1, key_space=1)
    seen = SeenLedger({"run/0"})
    _write(writer, 1)  # version 1, overwritten before any poll
    _write(writer, 1)  # version 2
    [(key, version)] = _write(writer, 1)  # version 3: the only one the poll sees
    seen.saw(key, version, "run/0")
    result = reconcile([writer.message("run/0")], seen.message(0))
    assert result.ok
    assert result.superseded_unseen == 2
    assert result.final_versions_received == 1


def test_a_missing_final_version_and_a_duplicate_fail() -> None:
    writer = WriteLedger(0, 1, key_space=2)
    seen = SeenLedger({"run/0"})
    writes = _write(writer, 2)
    seen.saw(*writes[0], "run/0")
    seen.saw(*writes[0], "run/0")  # received twice
    result = reconcile([writer.message("run/0")], seen.message(0))
    assert not result.ok
    assert result.duplicates == 1
    assert result.final_versions_missing == 1
    # the key whose final version went missing is named, for the user to look its row up
    missed = writes[1][0]
    assert result.missing_keys == [missed]
    assert result.detail.endswith(f"; final version missing for keys {missed}"), result.detail


def test_a_version_received_after_a_higher_one_from_another_shard_is_not_a_duplicate() -> None:
    """Pollers of different shards race: a key whose shard column changed between versions 1 and 2
    can have version 1 received after 2. It counts as received; a repeat of either is a duplicate."""
    writer = WriteLedger(0, 1, key_space=1)
    [(key, first)] = _write(writer, 1)
    [(_, second)] = _write(writer, 1)
    seen = SeenLedger({"run/0"})
    seen.saw(key, second, "run/0")
    seen.saw(key, first, "run/0")  # late: the other shard's poller
    result = reconcile([writer.message("run/0")], seen.message(0))
    assert result.ok, result.detail
    assert (result.duplicates, result.versions_received, result.superseded_unseen) == (0, 2, 0)
    seen.saw(key, first, "run/0")
    seen.saw(key, second, "run/0")
    assert seen.message(0).duplicates == 2


def test_late_versions_are_told_from_repeats_within_the_window_only() -> None:
    """The ledger keeps the SEEN_WINDOW newest versions of a key up to its highest; a jump past
    them forgets the older ones, and a version further below counts as a duplicate."""
    seen = SeenLedger({"run/0"})
    oldest = 100 - SEEN_WINDOW + 1
    for version in (1, 100, oldest, oldest - 1, 99, 1, 99, 100):
        seen.saw(9, version, "run/0")
    # received once each: 1, 100, oldest, 99; duplicates: oldest - 1 and 1 (below), 99, 100
    message = seen.message(0)
    assert (message.received, message.duplicates) == ([(9, 100, 4)], 4)


def test_other_runs_changes_are_foreign_and_unknown_outcomes_leave_the_proof() -> None:
    writer = WriteLedger(0, 1, key_space=10, rng=random.Random(1))
    seen = SeenLedger({"run/0"})
    seen.saw(5, 1, "another-run/0")
    writes = writer.reserve(1)
    writer.failed(writes, outcome_unknown=True)
    seen.saw(writes[0][0], writes[0][1], "run/0")  # it did commit after all
    certain = _write(writer, 1)
    assert certain[0][0] != writes[0][0], "the seed must give the certain write another key"
    for key, version in certain:
        seen.saw(key, version, "run/0")
    result = reconcile([writer.message("run/0")], seen.message(0))
    assert result.foreign_changes == 1
    assert result.uncertain_keys == 1
    assert result.ok and result.keys_written == 1


def test_a_run_that_wrote_nothing_proves_nothing() -> None:
    result = reconcile([WriteLedger(0, 1, key_space=5).message("run/0")], SeenLedger({"run/0"}).message(0))
    assert not result.ok and "nothing was written" in result.detail


def test_keys_are_split_between_processes_and_never_in_flight_twice() -> None:
    ledgers = [WriteLedger(i, 3, key_space=30) for i in range(3)]
    for i, ledger in enumerate(ledgers):
        keys = [k for k, _ in ledger.reserve(10)]
        assert all(k % 3 == i for k in keys)
        assert len(set(keys)) == 10
        with pytest.raises(KeyBusyError, match="key_space"):
            ledger.reserve(1)  # all ten owned keys are in flight


def test_fresh_keys_for_batch_inserts_lie_outside_the_update_key_space() -> None:
    fresh = FreshKeys("run", 2)
    ledgers = [WriteLedger(w, 2, key_space=1_000_000_000, fresh_keys=fresh) for w in (0, 1)]
    writes = [ledger.reserve(6, fresh=True) for ledger in ledgers]
    keys = [k for batch in writes for k, _ in batch]
    assert len(set(keys)) == 12
    assert all(FRESH_KEY_BASE <= k < 1 << 63 for k in keys)  # above any key space, in INT64
    assert [v for batch in writes for _, v in batch] == [1] * 12  # each written once
    assert [fresh.decode(k) for k, _ in writes[1]] == [(1, n) for n in range(6)]
    assert fresh.decode(999) is None
    # consecutive new keys are spread over the range (no hot spot), and another run's differ
    ordered = sorted(keys)
    assert min(b - a for a, b in itertools.pairwise(ordered)) > 1 << 40
    assert not set(keys) & {FreshKeys("other run", 2).key(w, n) for w in (0, 1) for n in range(6)}


def _batch_insert_run(batches: int, rows: int) -> tuple[list[WriteLedger], SeenLedger, FreshKeys]:
    """Two workers inserting ``batches`` batches of ``rows`` new keys each; every batch commits."""
    fresh = FreshKeys("long run", 2)
    writers = [WriteLedger(w, 2, key_space=100, fresh_keys=fresh) for w in (0, 1)]
    seen = SeenLedger({"long run/0", "long run/1"}, fresh)
    for _ in range(batches):
        for w, writer in enumerate(writers):
            writes = writer.reserve(rows, fresh=True)
            writer.committed(writes)
            for key, version in writes:
                seen.saw(key, version, f"long run/{w}")
    return writers, seen, fresh


def test_a_long_batch_insert_run_keeps_a_few_ranges_and_reconciles_exactly() -> None:
    writers, seen, _ = _batch_insert_run(batches=200, rows=1000)  # 400,000 new rows
    # a failed batch (never committed) and one of unknown outcome, of which the watcher saw 10 rows
    failed = writers[0].reserve(1000, fresh=True)
    writers[0].failed(failed, outcome_unknown=False)
    unknown = writers[1].reserve(1000, fresh=True)
    writers[1].failed(unknown, outcome_unknown=True)
    for key, version in unknown[:10]:
        seen.saw(key, version, "long run/1")
    writers[0].committed(writers[0].reserve(5, fresh=True))  # committed after the failed batch
    stopped = [writer.message(f"long run/{w}") for w, writer in enumerate(writers)]
    received = seen.message(0)

    assert [s.ledger for s in stopped] == [[], []]  # no row per key
    assert [s.fresh_committed for s in stopped] == [[(0, 200_000), (201_000, 201_005)], [(0, 200_000)]]
    assert [s.fresh_uncertain for s in stopped] == [[], [(200_000, 201_000)]]
    assert received.received == [] and received.fresh_received == {0: [(0, 200_000)], 1: [(0, 200_010)]}

    result = reconcile(stopped, received)
    assert (result.keys_written, result.versions_written, result.uncertain_keys) == (400_005, 400_005, 1000)
    assert (result.final_versions_received, result.final_versions_missing) == (400_000, 5)  # 5 not polled yet
    assert (result.duplicates, result.unexpected, result.ok) == (0, 0, False)


def test_new_keys_received_twice_missed_or_never_committed_fail_the_proof() -> None:
    writers, seen, fresh = _batch_insert_run(batches=3, rows=10)
    failed = writers[0].reserve(4, fresh=True)
    writers[0].failed(failed, outcome_unknown=False)
    seen.saw(failed[0][0], 1, "long run/0")  # a row of a batch that did not commit
    seen.saw(fresh.key(1, 7), 1, "long run/1")  # received again
    missing = writers[1].reserve(1, fresh=True)
    writers[1].committed(missing)  # committed, never received
    result = reconcile([w.message(f"long run/{i}") for i, w in enumerate(writers)], seen.message(0))
    assert (result.keys_written, result.final_versions_received, result.final_versions_missing) == (61, 60, 1)
    assert (result.duplicates, result.unexpected, result.uncertain_keys, result.ok) == (1, 1, 0, False)

    clean_writers, clean, _ = _batch_insert_run(batches=3, rows=10)
    ok = reconcile([w.message(f"long run/{i}") for i, w in enumerate(clean_writers)], clean.message(0))
    assert (ok.keys_written, ok.final_versions_received, ok.ok) == (60, 60, True)
