"""The run store from the command line: a headless run is saved in it (through the hub, as
`spanload serve` saves its runs), so that `serve` lists it and compare and report can use it; and
`spanload runs` opens it directly when no ``--server`` is given."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy.orm import Session, sessionmaker

from spanload.control.hub import Hub
from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.samples import Sample, Summary
from spanload.model.settings import Settings
from spanload.model.state import RunSink, RunState
from spanload.store import runs as run_store
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from spanload.store.writer import StoreWriter


@contextlib.contextmanager
def open_store(settings: Settings) -> Iterator[sessionmaker[Session]]:
    """The run store of ``settings`` (SQLite under the data dir, or its database URL), migrated."""
    upgrade_to_head(settings.store_url)
    engine = make_engine(settings.store_url)
    try:
        yield make_sessionmaker(engine)
    finally:
        engine.dispose()


class TeeSink:
    """A RunSink that hands everything to each of its sinks in turn."""

    def __init__(self, *sinks: RunSink) -> None:
        self.sinks = sinks

    def on_sample(self, run_id: str, sample: Sample) -> None:
        for sink in self.sinks:
            sink.on_sample(run_id, sample)

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        for sink in self.sinks:
            sink.on_state(run_id, state, reason)

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None:
        for sink in self.sinks:
            sink.on_config_change(run_id, patch, who)

    def on_summary(self, run_id: str, summary: Summary) -> None:
        for sink in self.sinks:
            sink.on_summary(run_id, summary)

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        for sink in self.sinks:
            sink.on_event(run_id, kind, changes)

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        for sink in self.sinks:
            sink.on_preload(run_id, status)


@contextlib.contextmanager
def saving(settings: Settings, run_id: str, config: RunConfig, printer: RunSink) -> Iterator[RunSink]:
    """A sink that prints through ``printer`` and saves the run ``run_id`` in the store; the row
    exists before the run starts and every write is applied when the block ends. The row names this
    process as its owner, so that a serve starting on the same store meanwhile leaves it running."""
    with open_store(settings) as sessions:
        with sessions() as session:
            run_store.create_run(session, run_id, config, owner=run_store.this_process())
        writer = StoreWriter(sessions)
        hub = Hub(writer)
        hub.track(run_id, config)
        try:
            yield TeeSink(printer, hub)
        finally:
            writer.close()
