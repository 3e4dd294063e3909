"""A stand-in for the load engine in tests of the HTTP surface alone (fuzzing, defaults), where real
runs would put arbitrary load on this machine. It goes through the Supervisor's life cycle (starting,
running, paused, stopping, finished) and validates patches the same way, but runs no workers and
produces no samples. Tests of runs and Spanner behaviour use the real Supervisor."""

from __future__ import annotations

from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.samples import Summary
from spanload.model.settings import Settings
from spanload.model.state import RunSink, RunState


class LoadlessEngine:
    """Not the load engine: a stand-in with the Supervisor's interface and state rules, no workers."""

    def __init__(self, _settings: Settings, sink: RunSink) -> None:
        self.sink = sink
        self.runs: dict[str, tuple[RunConfig, RunState]] = {}

    def _get(self, run_id: str, allowed: set[RunState]) -> RunConfig:
        if run_id not in self.runs:
            raise LookupError(f"no run {run_id!r} is known to this engine")
        config, state = self.runs[run_id]
        if state not in allowed:
            raise RuntimeError(f"run {run_id!r} is {state.value}")
        return config

    def _set(self, run_id: str, config: RunConfig, state: RunState) -> None:
        self.runs[run_id] = (config, state)
        self.sink.on_state(run_id, state, None)

    async def start(self, run_id: str, config: RunConfig) -> None:
        self._set(run_id, config, RunState.STARTING)
        self._set(run_id, config, RunState.RUNNING)

    async def patch(self, run_id: str, patch: ConfigPatch, who: str) -> RunConfig:
        new = self._get(run_id, {RunState.RUNNING, RunState.PAUSED}).apply(patch)
        self.runs[run_id] = (new, self.runs[run_id][1])
        self.sink.on_config_change(run_id, patch, who)
        return new

    async def pause(self, run_id: str) -> None:
        self._set(run_id, self._get(run_id, {RunState.RUNNING}), RunState.PAUSED)

    async def resume(self, run_id: str) -> None:
        self._set(run_id, self._get(run_id, {RunState.PAUSED}), RunState.RUNNING)

    async def stop(self, run_id: str) -> RunState:
        config = self._get(run_id, {RunState.RUNNING, RunState.PAUSED})
        self._set(run_id, config, RunState.STOPPING)
        self.sink.on_summary(run_id, Summary())
        self._set(run_id, config, RunState.FINISHED)
        return RunState.FINISHED

    async def shutdown(self) -> None:
        for run_id, (_, state) in list(self.runs.items()):
            if state in (RunState.RUNNING, RunState.PAUSED):
                await self.stop(run_id)
