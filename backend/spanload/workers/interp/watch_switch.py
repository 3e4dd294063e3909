"""A definition's watch whose ``mode`` follows a knob (workloads/README.md, "Watch"): one watcher
at a time, polling (watch.py) or reading the change stream (watch_stream.py), switched live.

A switch runs on a thread of its own (the control messages stay heard): the new watcher is made
first (a change stream is created if missing, while the old one still watches), then the old one
stops and hands over at a timestamp H, having received every change committed up to H; the new
one receives those after H. Poll -> stream: H is the newest commit the pollers received once
drained (every commit up to it is then visible), and the stream is read from just after it.
Stream -> poll: H is the server's time, to which every partition is read (the read function
answers a window only once every commit in it is in), and the pollers read the rows after it. So
no change is received twice or lost, and the reconciliation stays exact. Each switch is told to
the supervisor (``watch_switched``), whose run timeline marks it.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from typing import Any

from spanload.model.protocol import WatchSwitched
from spanload.model.workload import KnobValue, WatchMode, WorkloadDefinition
from spanload.spanner import client as spanner_client
from spanload.workers.interp.ledger import SeenLedger
from spanload.workers.interp.watch_stream import ONE_US, server_now

logger = logging.getLogger(__name__)


MakeWatcher = Callable[[WatchMode, dict[str, KnobValue], dt.datetime], Any]
"""A watcher of the mode (interp/watch.py DefinitionWatcher, interp/watch_stream.py ChangeStreamWatcher)."""


class SwitchingWatch:
    """The run's watcher in the mode its knob says, switched (with a hand-over) when it changes."""

    def __init__(
        self,
        make: MakeWatcher,
        database: Callable[[], Any],
        definition: WorkloadDefinition,
        knobs: dict[str, KnobValue],
        start_ts: dt.datetime,
        switched: Callable[[WatchSwitched], None],
        worker: int = 0,
    ) -> None:
        assert definition.watch is not None
        self._make = make
        self._database = database
        self._definition = definition
        self._switched = switched
        self._worker = worker
        self.mode = definition.watch.mode_in(knobs, definition.knobs)
        self.current: Any = make(self.mode, knobs, start_ts)
        self._knobs = knobs
        self._failed: WatchMode | None = None  # a switch to it failed: not tried again until the knob moves
        self._lock = threading.Lock()  # the fields below
        self._thread: threading.Thread | None = None
        self._started = False
        self._stopped = False

    # -- what a worker asks of its watcher -----------------------------------------------------------

    @property
    def seen(self) -> SeenLedger | None:
        seen: SeenLedger | None = self.current.seen
        return seen

    @seen.setter
    def seen(self, seen: SeenLedger | None) -> None:
        self.current.seen = seen

    @property
    def next_sql(self) -> str:
        sql: str = self.current.next_sql
        return sql

    def set_paused(self, paused: bool) -> None:
        self.current.set_paused(paused)

    def set_start(self, start_ts: dt.datetime) -> None:
        self.current.set_start(start_ts)

    def start(self) -> None:
        with self._lock:
            self._started = True
            self.current.start()

    def gauges(self) -> dict[str, float]:
        gauges: dict[str, float] = self.current.gauges()
        return gauges

    def apply(self, knobs: dict[str, KnobValue]) -> None:
        """New knob values: the current watcher's, or a switch when the mode's knob changed."""
        assert self._definition.watch is not None
        wanted = self._definition.watch.mode_in(knobs, self._definition.knobs)
        with self._lock:
            self._knobs = knobs
            if wanted != self._failed:
                self._failed = None
            if self._thread is not None or self._stopped:
                return  # the switch under way applies the latest knobs when it ends
            if wanted == self.mode or wanted == self._failed:
                self.current.apply(knobs)
                return
            if not self._started:  # before the run begins: nothing to hand over
                try:
                    self._replace(self._make(wanted, knobs, self.current.start_ts), wanted)
                except Exception as err:
                    self._refused(wanted, err)
                    self.current.apply(knobs)
                return
            self._thread = threading.Thread(target=self._switch_loop, name="watch-switch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._end_switching()
        self.current.stop()

    def stop_and_drain(self) -> None:
        self._end_switching()
        self.current.stop_and_drain()

    # -- switching --------------------------------------------------------------------------------------

    def _end_switching(self) -> None:
        with self._lock:
            self._stopped = True
            thread = self._thread
        if thread is not None:
            thread.join()

    def _replace(self, new: Any, mode: WatchMode) -> None:
        new.seen = self.current.seen
        new.set_paused(self.current.paused)
        self.current, self.mode = new, mode

    def _refused(self, wanted: WatchMode, err: Exception) -> None:
        """The watcher of ``wanted`` could not be made: the current one goes on, and the switch is not
        tried again until the knob moves (called with the lock held)."""
        self._failed = wanted
        reason = f"the {wanted.value} watcher could not start: {spanner_client.status_text(err)}"
        logger.warning("worker %d keeps watching by %s: %s", self._worker, self.mode.value, reason)
        self._switched(
            WatchSwitched(worker=self._worker, mode=self.mode, previous=self.mode, handover="", error=reason)
        )

    def _switch_loop(self) -> None:
        """Switch until the mode is the knob's (it may have moved again meanwhile), then apply the
        latest knobs."""
        assert self._definition.watch is not None
        while True:
            with self._lock:
                knobs = self._knobs
                wanted = self._definition.watch.mode_in(knobs, self._definition.knobs)
                if wanted in (self.mode, self._failed) or self._stopped:
                    self.current.apply(knobs)
                    self._thread = None
                    return
            self._switch(wanted, knobs)

    def _switch(self, wanted: WatchMode, knobs: dict[str, KnobValue]) -> None:
        previous, old = self.mode, self.current
        try:
            new = self._make(wanted, knobs, old.start_ts)  # e.g. creates the stream: the old one still watches
        except Exception as err:
            with self._lock:
                self._refused(wanted, err)
            return
        error = None
        try:
            if wanted is WatchMode.CHANGE_STREAM:
                handover = old.hand_over(getattr(new, "created_at", None))
                new.set_start(handover + ONE_US)
            else:
                handover = old.hand_over(server_now(self._database()))
                new.set_start(handover)
        except Exception as err:  # the drain gave up: the new watcher starts from now, and may miss some
            handover = dt.datetime.now(dt.UTC)
            new.set_start(handover)
            error = f"the hand-over failed ({spanner_client.status_text(err)}): changes may be missing"
            logger.error("worker %d: %s", self._worker, error)
        with self._lock:
            self._replace(new, wanted)
            new.start()
        self._switched(
            WatchSwitched(
                worker=self._worker, mode=wanted, previous=previous, handover=handover.isoformat(), error=error
            )
        )
