"""The hub: the control plane's RunSink. It writes everything a run produces to the store (through
the background writer, so the event loop never waits on the database) and fans it out to every
live viewer, each with a bounded backlog: a viewer that falls behind is dropped with a notice and
never slows the run or the other viewers."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from datetime import UTC, datetime
from functools import partial

from sqlalchemy.orm import Session

from spanload.control.run_metrics import RunMetrics
from spanload.model.config import ConfigPatch, RunConfig, TargetKind
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.live import (
    ConfigChangeMessage,
    DroppedMessage,
    EventMessage,
    EventPublic,
    LiveUpdate,
    PreloadMessage,
    SampleMessage,
    StatusMessage,
    SummaryMessage,
)
from spanload.model.samples import Sample, Summary
from spanload.model.state import TERMINAL_STATES, RunState
from spanload.spanner.local_server import TargetChange
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store.writer import StoreWriter

logger = logging.getLogger(__name__)

METRICS_RETENTION_S = 600.0  # the default of Settings.metrics_retention_s
VIEWER_BACKLOG_MAX = 64  # messages queued for one viewer before it is dropped


class Viewer:
    """One live subscriber: a bounded queue the websocket drains."""

    def __init__(self, run_id: str, backlog: int = VIEWER_BACKLOG_MAX) -> None:
        self.run_id = run_id
        self.queue: asyncio.Queue[LiveUpdate] = asyncio.Queue(maxsize=backlog)
        self.dropped = False

    def offer(self, message: LiveUpdate) -> bool:
        """Queue a message; False (and a dropped notice in place of the backlog) when full."""
        if self.dropped:
            return False
        try:
            self.queue.put_nowait(message)
            return True
        except asyncio.QueueFull:
            backlog = self.queue.qsize()
            while not self.queue.empty():
                self.queue.get_nowait()
            self.dropped = True
            self.queue.put_nowait(
                DroppedMessage(
                    reason=f"this viewer fell {backlog} messages behind; reconnect for a fresh snapshot",
                    backlog=backlog,
                )
            )
            return False


class Hub:
    """Implements :class:`spanload.model.state.RunSink` for the control plane."""

    def __init__(
        self,
        writer: StoreWriter,
        viewer_backlog: int = VIEWER_BACKLOG_MAX,
        metrics_retention_s: float = METRICS_RETENTION_S,
    ) -> None:
        self.writer = writer
        self.metrics = RunMetrics(metrics_retention_s)  # what /metrics exposes of each run
        self.viewer_backlog = viewer_backlog
        self.latest: dict[str, Sample] = {}
        self.states: dict[str, RunState] = {}
        self.configs: dict[str, RunConfig] = {}
        self.preload: dict[str, PreloadStatus] = {}  # the load phase's progress, while it runs
        self._started: dict[str, float] = {}
        self._viewers: dict[str, set[Viewer]] = defaultdict(set)
        self.viewers_dropped = 0

    # --- viewers -------------------------------------------------------------------------------

    def subscribe(self, run_id: str) -> Viewer:
        viewer = Viewer(run_id, self.viewer_backlog)
        self._viewers[run_id].add(viewer)
        return viewer

    def unsubscribe(self, viewer: Viewer) -> None:
        viewers = self._viewers.get(viewer.run_id)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self._viewers[viewer.run_id]

    def viewer_count(self, run_id: str | None = None) -> int:
        if run_id is None:
            return sum(len(v) for v in self._viewers.values())
        return len(self._viewers.get(run_id, ()))

    def _publish(self, run_id: str, message: LiveUpdate) -> None:
        for viewer in list(self._viewers.get(run_id, ())):
            if not viewer.offer(message):
                self.viewers_dropped += 1
                logger.warning("dropped a slow live viewer of run %s", run_id)
                self.unsubscribe(viewer)

    async def flush(self) -> None:
        """Wait until everything received so far is in the store."""
        await self.writer.flush()

    # --- RunSink -------------------------------------------------------------------------------

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self.latest[run_id] = sample
        self.metrics.on_sample(run_id, sample)
        self.writer.submit(partial(sample_store.insert_sample, run_id=run_id, sample=sample))
        self._publish(run_id, SampleMessage(sample=sample.model_copy(update={"hdr": {}}), published_at=time.time()))

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        now = time.time()
        self.states[run_id] = state
        self.metrics.on_state(run_id, state, now)
        if state is RunState.RUNNING:
            self._started.setdefault(run_id, now)
        if state is not RunState.PRELOADING:
            self.preload.pop(run_id, None)
        self.writer.submit(partial(_write_state, run_id=run_id, state=state, reason=reason, now=now))
        event = self._event(run_id, now, EventKind.STATUS, None, {"status": state.value, "reason": reason})
        self._publish(run_id, StatusMessage(status=state, reason=reason, event=event))
        if state in TERMINAL_STATES:
            self.latest.pop(run_id, None)
            self._started.pop(run_id, None)
            self.configs.pop(run_id, None)

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None:
        now = time.time()
        changes = patch.changed_fields()
        config = self.configs.get(run_id)
        if config is not None:
            config = config.apply(patch)
            self.configs[run_id] = config
        self.writer.submit(
            partial(_write_config_change, run_id=run_id, changes=changes, who=who, config=config, now=now)
        )
        event = self._event(run_id, now, EventKind.CONFIG_CHANGE, who, changes)
        config_json = config.model_dump(mode="json", by_alias=True) if config else None
        self._publish(run_id, ConfigChangeMessage(event=event, config=config_json))

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.writer.submit(partial(_write_summary, run_id=run_id, summary=summary))
        self._publish(run_id, SummaryMessage(summary=summary))

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        self.preload[run_id] = status
        self._publish(run_id, PreloadMessage(preload=status))

    # --- the local Spanner ---------------------------------------------------------------------

    def on_target_change(self, change: TargetChange) -> None:
        """The local Spanner went down or came back: a point on the timeline of every active run
        that talks to it."""
        now = time.time()
        kind = EventKind.TARGET_UP if change.up else EventKind.TARGET_DOWN
        changes = change.fields()
        for run_id, config in list(self.configs.items()):
            state = self.states.get(run_id)
            targets_it = config.target.kind is TargetKind.LOCAL and config.target.emulator_host in (
                None,
                change.address,
            )
            if not targets_it or state is None or not state.is_active:
                continue
            self.writer.submit(partial(_write_event, run_id=run_id, kind=kind, changes=changes, now=now))
            self._publish(run_id, EventMessage(event=self._event(run_id, now, kind, None, changes)))

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        now = time.time()
        self.writer.submit(partial(_write_event, run_id=run_id, kind=kind, changes=changes, now=now))
        self._publish(run_id, EventMessage(event=self._event(run_id, now, kind, None, changes)))

    # --- helpers -------------------------------------------------------------------------------

    def track(self, run_id: str, config: RunConfig) -> None:
        """Remember a run's config so that live changes can be applied to the stored copy."""
        self.configs[run_id] = config

    def _event(
        self, run_id: str, now: float, kind: EventKind, who: str | None, changes: dict[str, object]
    ) -> EventPublic:
        started = self._started.get(run_id)
        elapsed = now - started if started is not None else 0.0
        clean = {k: v for k, v in changes.items() if v is not None}
        return EventPublic(t=datetime.fromtimestamp(now, UTC), elapsed_s=elapsed, kind=kind, who=who, changes=clean)


def _write_state(session: Session, *, run_id: str, state: RunState, reason: str | None, now: float) -> None:
    run_store.set_status(session, run_id, state, reason, now)
    if state in TERMINAL_STATES:
        sample_store.rollup_rest(session, run_id)


def _write_config_change(
    session: Session, *, run_id: str, changes: dict[str, object], who: str, config: RunConfig | None, now: float
) -> None:
    run_store.add_config_change(session, run_id, changes, who, config, now)


def _write_event(session: Session, *, run_id: str, kind: EventKind, changes: dict[str, object], now: float) -> None:
    run_store.add_event(session, run_id, kind, changes, now)


def _write_summary(session: Session, *, run_id: str, summary: Summary) -> None:
    run_store.set_summary(session, run_id, summary)
