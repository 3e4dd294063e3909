"""Interval samples: stored as they arrive, read back by range, whole-run percentiles exact, and a
1-hour run at 1 s intervals within 5 MB (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from spanload.model import metrics
from spanload.model.config import RunConfig
from spanload.model.samples import Op, Sample
from spanload.model.state import RunState
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store.samples import ROLLUP_INTERVALS
from spanload.store.summaries import recompute_summary
from tests.store.sample_factory import Load, SampleFactory

HOUR_S = 3600
BUDGET_BYTES = 5 * 1024 * 1024


def _start(s: Session, run_id: str) -> None:
    run_store.create_run(s, run_id, RunConfig())
    run_store.set_status(s, run_id, RunState.RUNNING)


def test_samples_read_back_in_order_and_by_elapsed_range(sessions: sessionmaker[Session]) -> None:
    factory = SampleFactory(Load(transactions=5, mutations_per_txn=5, polls=1))
    written = [factory.sample(seq) for seq in range(10)]
    with sessions() as s:
        _start(s, "r1")
        for sample in written:
            sample_store.insert_sample(s, "r1", sample)
    with sessions() as s:
        read = sample_store.list_samples(s, "r1")
        assert read == [w.model_copy(update={"hdr": {}}) for w in written]
        assert [x.seq for x in sample_store.list_samples(s, "r1", from_s=3.0, to_s=5.0)] == [2, 3, 4]
        with_hdr = sample_store.list_samples_with_hdr(s, "r1")
        assert [x.hdr for x in with_hdr] == [w.hdr for w in written]
        row = run_store.get_run(s, "r1")
        assert row is not None and (row.sample_count, row.last_elapsed_s) == (10, 10.0)


def test_whole_run_percentiles_recomputed_exactly_across_rollups(sessions: sessionmaker[Session]) -> None:
    factory = SampleFactory(Load(transactions=20, mutations_per_txn=10, polls=2), templates=6)
    count = 2 * ROLLUP_INTERVALS + 7  # two rolled-up blocks and a partial one
    with sessions() as s:
        _start(s, "r1")
        for seq in range(count):
            sample_store.insert_sample(s, "r1", factory.sample(seq))
        assert len(sample_store.list_rollups(s, "r1")) == 2
        merged = sample_store.whole_run_histograms(s, "r1")
        sample_store.rollup_rest(s, "r1")
        assert len(sample_store.list_rollups(s, "r1")) == 3
        after_rollup = sample_store.whole_run_histograms(s, "r1")
        summary = recompute_summary(s, "r1")
    assert set(merged) == set(factory.reference)
    # the breakdown: each interval's means weighted by its operations
    for op in (Op.UPDATER_TXN, Op.WATCHER_POLL):
        b = summary.breakdown[op]
        assert b.count == factory.reference[op].get_total_count()
        assert sum(p.ms for p in b.parts) == pytest.approx(b.round_trip_ms)
    for op, reference in factory.reference.items():
        expected = metrics.percentiles(reference)
        assert metrics.percentiles(merged[op]) == expected
        assert metrics.percentiles(after_rollup[op]) == expected
        assert summary.latency[op] == expected
        assert expected.count == reference.get_total_count() > 0


@pytest.fixture(scope="module")
def hour_of_samples() -> list[Sample]:
    """3600 intervals of the heaviest Change Watcher preset (very high: 50 tx/s x 200 mutations,
    8 watchers): ~10,000 change notifications a second."""
    factory = SampleFactory(templates=4)
    return [factory.sample(seq) for seq in range(HOUR_S)]


def test_one_hour_run_at_1s_intervals_stores_at_most_5_mb(
    sessions: sessionmaker[Session], store_url: str, hour_of_samples: list[Sample]
) -> None:
    db_file = make_url(store_url).database if store_url.startswith("sqlite") else None
    size_before = Path(db_file).stat().st_size if db_file else 0
    with sessions() as s:
        _start(s, "hour")
        for sample in hour_of_samples:
            sample_store.insert_sample(s, "hour", sample)
        run_store.set_status(s, "hour", RunState.FINISHED)
        sample_store.rollup_rest(s, "hour")
        stored = sample_store.stored_bytes(s, "hour")
        assert len(sample_store.list_samples(s, "hour")) == HOUR_S
    print(f"\n1-hour run, very high preset, {make_url(store_url).get_backend_name()}: {stored / 1e6:.2f} MB stored")
    assert stored <= BUDGET_BYTES
    if db_file:
        grown = Path(db_file).stat().st_size - size_before
        print(f"SQLite file grew by {grown / 1e6:.2f} MB")
        assert grown <= BUDGET_BYTES
