"""Issue 30's "untested" list, faults of the target: a listener that accepts connections but never
answers (the probe ends at its deadline with a sentence, it does not hang), and a target that dies
in the middle of the load phase (the run FAILS within seconds, with a reason naming the preload and
the target: it used to wait out 4 attempts x 60 s of every batch in flight, 241 s)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from spanload.model.config import WorkerRuntime
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.spanner import client as spanner_client
from spanload.spanner.local_server import start_local_spanner
from tests.engine.conftest import LocalTarget
from tests.engine.test_preload import PreloadRecorder, _preload_config, preloading

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """127.0.0.1:port that completes TCP handshakes (the kernel's backlog) and never sends a byte."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"127.0.0.1:{listener.getsockname()[1]}"


def test_the_probe_of_a_target_that_accepts_and_never_answers_ends_at_its_deadline(silent_listener: str) -> None:
    config = LocalTarget(silent_listener).config()
    client = spanner_client.make_client(config.target, silent_listener)
    try:
        with pytest.raises(spanner_client.TargetUnreachableError) as unreachable:
            spanner_client.probe(client, config.target, silent_listener, timeout_s=1.0)
    finally:
        client.close()
    # ended by the probe's own deadline (not UNAVAILABLE: the connection was accepted), named in a sentence
    assert str(unreachable.value).startswith(
        f"the local target at {silent_listener} did not answer: DEADLINE_EXCEEDED"
    ), unreachable.value


@pytest.mark.parametrize("runtime", [WorkerRuntime.PYTHON, WorkerRuntime.GO])
def test_a_target_that_dies_mid_preload_fails_the_run_within_seconds(runtime: WorkerRuntime) -> None:
    # a server of the test's own, stopped by it; a load far too big to finish before it is stopped
    server = start_local_spanner("127.0.0.1", 0, None, Settings().local_spanner_binary)
    config = _preload_config(
        LocalTarget(server.address), "dies-mid-preload", 5_000_000, runtime, duration_s=None
    ).model_copy(update={"processes": 1})

    async def scenario() -> PreloadRecorder:
        supervisor, sink = await preloading("dies", config)
        server.stop()  # the target goes away with the load phase under way
        # the bound of "seconds, not minutes" (one batch's deadline alone is 60 s): not a timing assertion
        await asyncio.wait_for(supervisor.wait_finished("dies"), 45)
        return sink

    try:
        sink = asyncio.run(scenario())
    finally:
        server.stop()
    assert [s for s, _ in sink.states] == [RunState.STARTING, RunState.PRELOADING, RunState.FAILED], sink.states
    reason = sink.states[-1][1]
    # the preload, the target that stopped answering and how far the load got
    assert reason is not None and "preload" in reason, reason
    assert f"the local target at {server.address} did not answer" in reason, reason
    assert "rows" in reason and "written" in reason, reason
    assert sink.samples == [] and not sink.progress[-1].done
