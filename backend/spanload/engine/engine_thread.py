"""The load engine on a thread of its own: the Supervisor runs in its own event loop, so that the
CPU it spends merging histograms every interval never holds up the API's event loop (REST requests
and websocket fan-out) for longer than one GIL switch interval.

Calls into the engine are coroutines scheduled on its loop; what the engine tells its sink is relayed
to the API's loop in the order it was said (``call_soon_threadsafe`` is FIFO), so the hub sees
exactly the sequence the Supervisor produced, and a control call returns only after every sink call
it caused has been queued on the API's loop ahead of it."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.profile import ProfileEdit, ProfileStatus
from spanload.model.samples import Sample, Summary
from spanload.model.settings import Settings
from spanload.model.state import RunEngine, RunSink, RunState

logger = logging.getLogger(__name__)

T = TypeVar("T")
THREAD_JOIN_TIMEOUT_S = 30.0


class _Relay:
    """A RunSink for the engine's loop that forwards every call to the real sink on the API's loop."""

    def __init__(self, sink: RunSink, loop: asyncio.AbstractEventLoop) -> None:
        self._sink = sink
        self._loop = loop

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self._loop.call_soon_threadsafe(self._sink.on_sample, run_id, sample)

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        self._loop.call_soon_threadsafe(self._sink.on_state, run_id, state, reason)

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None:
        self._loop.call_soon_threadsafe(self._sink.on_config_change, run_id, patch, who)

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self._loop.call_soon_threadsafe(self._sink.on_summary, run_id, summary)

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        self._loop.call_soon_threadsafe(self._sink.on_event, run_id, kind, changes)

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        self._loop.call_soon_threadsafe(self._sink.on_preload, run_id, status)


class EngineThread:
    """Implements RunEngine by running ``make_engine(settings, relay)`` on a dedicated thread.
    Construct it from the API's running event loop."""

    def __init__(
        self, settings: Settings, sink: RunSink, make_engine: Callable[[Settings, RunSink], RunEngine]
    ) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="load-engine", daemon=True)
        self._thread.start()
        self._engine = make_engine(settings, _Relay(sink, asyncio.get_running_loop()))

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()
        self._loop.close()

    async def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def start(self, run_id: str, config: RunConfig) -> None:
        await self._call(self._engine.start(run_id, config))

    async def patch(self, run_id: str, patch: ConfigPatch, who: str) -> RunConfig:
        return await self._call(self._engine.patch(run_id, patch, who))

    async def edit_profile(self, run_id: str, edit: ProfileEdit) -> ProfileStatus:
        return await self._call(self._engine.edit_profile(run_id, edit))

    async def pause(self, run_id: str) -> None:
        await self._call(self._engine.pause(run_id))

    async def resume(self, run_id: str) -> None:
        await self._call(self._engine.resume(run_id))

    async def stop(self, run_id: str) -> object:
        return await self._call(self._engine.stop(run_id))

    async def shutdown(self) -> None:
        try:
            await self._call(self._engine.shutdown())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.to_thread(self._thread.join, THREAD_JOIN_TIMEOUT_S)
            if self._thread.is_alive():
                logger.error("the load engine's thread did not stop within %.0f s", THREAD_JOIN_TIMEOUT_S)
