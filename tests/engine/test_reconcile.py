"""The reconciliation: written versions per key against what the watcher received."""

from __future__ import annotations

import random

import pytest

from spanload.engine.reconcile import reconcile
from spanload.workers.ledger import KeyBusyError, SeenLedger, WriteLedger


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
    ledger = WriteLedger(1, 2, key_space=100)
    keys = [k for k, v in ledger.reserve(6, fresh=True)]
    assert all(k >= 100 and k % 2 == 1 for k in keys)
