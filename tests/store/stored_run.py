"""A finished run written straight into a run store (no load, no Spanner): realistic samples with
real HdrHistograms (sample_factory.py), rolled up as the hub does, with events and a summary
recomputed from the store. For the tests of exports, reports and `spanload runs`."""

from __future__ import annotations

from pathlib import Path

from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.presets import make_config
from spanload.model.samples import Gauge, Sample
from spanload.model.state import RunState
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store import summaries
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from tests.store.sample_factory import SampleFactory

STARTED_AT = 1_800_000_000.0


def store_url(data_dir: Path) -> str:
    """The run store `spanload serve` and `spanload run` use under ``SPANLOAD_DATA_DIR``."""
    return f"sqlite:///{data_dir / 'spanload.db'}"


def store_finished_run(
    data_dir: Path,
    run_id: str,
    intervals: int = 75,
    seed: int = 7,
    config: RunConfig | None = None,
    ended: RunState = RunState.FINISHED,
    reason: str | None = None,
) -> list[Sample]:
    """A run of ``intervals`` 1 s samples (with a live change at 10 s) that ended ``ended`` (with
    ``reason``), in the store of ``data_dir``; returns the samples as written (with their histograms)."""
    url = store_url(data_dir)
    upgrade_to_head(url)
    engine = make_engine(url)
    try:
        sessions = make_sessionmaker(engine)
        factory = SampleFactory(seed=seed, started_at=STARTED_AT, templates=4)
        samples = [factory.sample(seq) for seq in range(intervals)]
        for sample in samples:  # a gauge in seconds, as the local Spanner's counters give it
            sample.gauges[Gauge.SERVER_COMMIT_LATENCY_S.value] = 0.002 + sample.seq * 1.25e-5
        with sessions() as session:
            config = config or make_config("light", {"name": f"stored {run_id}"})
            run_store.create_run(session, run_id, config, now=STARTED_AT - 1)
            run_store.set_status(session, run_id, RunState.RUNNING, now=STARTED_AT)
            for sample in samples:
                sample_store.insert_sample(session, run_id, sample.model_copy(deep=True))
                if sample.seq == 9:
                    run_store.add_config_change(
                        session, run_id, {"updater.transactions_per_second": 9.0}, "test", now=sample.t
                    )
            run_store.add_event(
                session, run_id, EventKind.STALLED, {"worker": 0, "pid": 1, "silent_s": 3}, now=STARTED_AT + 20
            )
            run_store.update_run_meta(session, run_id, notes=f"notes of {run_id}: the <b>baseline</b>")
            run_store.set_status(session, run_id, ended, reason, now=STARTED_AT + intervals)
            sample_store.rollup_rest(session, run_id)
            run_store.set_summary(session, run_id, summaries.recompute_summary(session, run_id))
        return samples
    finally:
        engine.dispose()
