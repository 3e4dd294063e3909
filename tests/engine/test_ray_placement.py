"""Workers placed on a real two-node Ray cluster on this machine (tests/ray_cluster.py), running the
real worker processes against the local Spanner with the official client.

The Proof of issue 13: a light run with two workers puts one on each node, reconciles exactly and
a live patch reaches both; losing the second node mid-run fails the run naming the worker and that
node; an unreachable address fails the start at once, naming the address.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess

import pytest
import ray  # a pinned dependency: a broken install fails here, it is never skipped

from spanload.engine.supervisor import RunError, Supervisor, describe_exit
from spanload.model.builtin_convert import as_definition
from spanload.model.config import ConfigPatch, RunConfig, WorkerRuntime
from spanload.model.op_metrics import OpGauge, name
from spanload.model.presets import get_preset
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly
from tests.engine.test_supervisor import Recorder, _until
from tests.helpers import VENV_BIN, free_port
from tests.ray_cluster import RayCluster

pytestmark = pytest.mark.timeout(300)
RUN_TIMEOUT_S = 180.0


def _on_ray(config: RunConfig, address: str) -> RunConfig:
    return config.model_validate(
        {**config.model_dump(by_alias=True), "placement": {"kind": "ray", "address": address, "cpus_per_worker": 1}}
    )


def _two_writers(local: LocalTarget, address: str, runtime: WorkerRuntime = WorkerRuntime.PYTHON) -> RunConfig:
    """Two workers writing 2 tx/s each, no watcher, on the Ray cluster at ``address``."""
    body = {"processes": 2, "updater": {"transactions_per_second": 4}, "watcher": {"enabled": False}}
    return _on_ray(local.config(body, runtime=runtime), address)


def test_an_unreachable_ray_address_fails_the_start_naming_the_address() -> None:
    address = f"127.0.0.9:{free_port()}"  # a loopback address nothing listens on
    config = _on_ray(RunConfig.model_validate({"target": {"emulator_host": "x:1"}}), address)

    async def scenario() -> tuple[Recorder, str]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        with pytest.raises(RunError) as failed:
            await supervisor.start("unreachable", config)
        return sink, str(failed.value)

    sink, message = asyncio.run(scenario())
    assert address in message and "cannot reach the Ray cluster" in message, message
    assert sink.states[-1][0] is RunState.FAILED
    assert address in (sink.states[-1][1] or "")


def test_a_light_run_puts_one_worker_on_each_node_reconciles_and_a_patch_reaches_both(
    ray_cluster: RayCluster, local_spanner: LocalTarget
) -> None:
    light = get_preset("light").config.merged({"updater": {"key_space": 300}})
    config = _on_ray(
        light.model_copy(update={"target": local_spanner.config().target, "processes": 2, "duration_s": 8.0}),
        ray_cluster.address,
    )
    before_tps = as_definition(config).knob_values()["transactions_per_second"]  # the light load's 5 tx/s
    after_tps = before_tps * 2

    async def scenario() -> tuple[Recorder, list[str | None], list[int], dict[str, dict[str, float]]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("two-nodes", config)
        nodes = supervisor.worker_nodes("two-nodes")
        pids = supervisor.worker_pids("two-nodes")
        await _until(lambda: len(sink.samples) >= 2, "two samples", RUN_TIMEOUT_S)
        await supervisor.patch(
            "two-nodes", ConfigPatch.model_validate({"updater": {"transactions_per_second": after_tps}}), "tester"
        )
        seen = len(sink.samples)
        await _until(lambda: len(sink.samples) >= seen + 2, "two samples after the patch", RUN_TIMEOUT_S)
        patched = sink.samples[seen + 1].by_worker
        await asyncio.wait_for(supervisor.wait_finished("two-nodes"), RUN_TIMEOUT_S)
        return sink, nodes, pids, patched

    sink, nodes, pids, patched = asyncio.run(scenario())
    assert sorted(n or "" for n in nodes) == sorted([ray_cluster.node_id(0), ray_cluster.node_id(1)])
    assert sink.states[-1] == (RunState.FINISHED, None)
    # the updater's rate is split between the workers: each one got the patch
    first = sink.samples[0].by_worker
    target = name(OpGauge.TARGET_PS, "write")  # light's updater is change_watcher.yaml's write
    assert {w: v[target] for w, v in first.items()} == {"0": before_tps / 2, "1": before_tps / 2}
    assert {w: v[target] for w, v in patched.items()} == {"0": after_tps / 2, "1": after_tps / 2}
    summary = sink.summary
    assert_reconciled_exactly(summary)
    assert summary is not None
    # the summary's workers list says where each one ran
    assert [(w.index, w.node, w.pid) for w in summary.workers] == [(i, nodes[i], pids[i]) for i in range(2)]
    # every transaction is some worker's: the per-worker series add up to the run's
    per_worker = sum(
        v.get(name(OpGauge.PS, "write"), 0.0) * s.interval_s for s in sink.samples for v in s.by_worker.values()
    )
    assert round(per_worker) == summary.totals.transactions


def test_a_worker_process_that_exits_on_its_node_fails_the_run_naming_it_and_the_node(
    ray_cluster: RayCluster, local_spanner: LocalTarget
) -> None:
    config = _two_writers(local_spanner, ray_cluster.address)

    async def scenario() -> tuple[Recorder, list[str | None], list[int]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("worker-exits", config)
        nodes, pids = supervisor.worker_nodes("worker-exits"), supervisor.worker_pids("worker-exits")
        await _until(lambda: len(sink.samples) >= 2, "two samples", RUN_TIMEOUT_S)
        os.kill(pids[1], signal.SIGKILL)  # the nodes share this machine: the worker's pid is ours to kill
        await asyncio.wait_for(supervisor.wait_finished("worker-exits"), RUN_TIMEOUT_S)
        return sink, nodes, pids

    sink, nodes, pids = asyncio.run(scenario())
    state, reason = sink.states[-1]
    assert state is RunState.FAILED
    expected = f"worker 1 (pid {pids[1]} on node {nodes[1]}) {describe_exit(-signal.SIGKILL)} before the run ended"
    assert reason == expected, reason


def _cpus_in_use() -> float:
    """The CPUs Ray counts as taken on the cluster (this process is its driver once a run is placed)."""
    return float(ray.cluster_resources().get("CPU", 0.0)) - float(ray.available_resources().get("CPU", 0.0))


async def _until_cpus_in_use(expected: float) -> float:
    """Ray's view of its resources follows a placement within a report period or so: wait for it, then
    return what it says (the caller compares, so a wrong count fails at once with its value)."""
    for _ in range(int(30 / 0.1)):
        if abs(_cpus_in_use() - expected) < 1e-9:
            break
        await asyncio.sleep(0.1)
    return _cpus_in_use()


def test_a_ray_placed_run_takes_its_cpus_per_worker_pauses_resumes_and_stops_releasing_them(
    ray_cluster: RayCluster, local_spanner: LocalTarget
) -> None:
    """``placement.cpus_per_worker`` is what Ray reserves for each worker (2 workers of 0.5 CPU: 1.0
    taken, not the default's 2); a pause stops the writes on both nodes and a resume restarts them;
    a stop finishes the run and gives the CPUs back."""
    config = _two_writers(local_spanner, ray_cluster.address)
    config = config.model_validate(
        {**config.model_dump(by_alias=True), "placement": {**config.placement.model_dump(), "cpus_per_worker": 0.5}}
    )

    async def scenario() -> tuple[Recorder, float, list[int], int, float]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("ray-pause", config)
        in_use = await _until_cpus_in_use(2 * 0.5)
        await _until(lambda: _transactions(sink) > 0, "a first transaction", RUN_TIMEOUT_S)
        await supervisor.pause("ray-pause")
        # in-flight transactions may end in the interval of the pause: count from the next one on
        seen = len(sink.samples)
        await _until(lambda: len(sink.samples) >= seen + 4, "four samples while paused", RUN_TIMEOUT_S)
        paused = [_transactions_at(sink, i) for i in range(seen + 1, seen + 4)]
        await supervisor.resume("ray-pause")
        await _until(lambda: _transactions(sink) > paused[-1], "a transaction after the resume", RUN_TIMEOUT_S)
        await supervisor.stop("ray-pause")
        await asyncio.wait_for(supervisor.wait_finished("ray-pause"), RUN_TIMEOUT_S)
        released = await _until_cpus_in_use(0.0)
        return sink, in_use, paused, _transactions(sink), released

    sink, in_use, paused, total, released = asyncio.run(scenario())
    assert in_use == 1.0, f"Ray holds {in_use} CPUs for 2 workers of 0.5"
    assert paused == [paused[0]] * 3, f"transactions went on while paused: {paused}"
    assert total > paused[-1]
    states = [state for state, _ in sink.states]
    assert states[-1] is RunState.FINISHED and sink.states[-1][1] is None, sink.states
    assert states.index(RunState.PAUSED) < states.index(RunState.RUNNING, states.index(RunState.PAUSED)), states
    assert released == 0.0, f"Ray still holds {released} CPUs after the run"


def _transactions(sink: Recorder) -> int:
    return sink.samples[-1].totals.transactions if sink.samples else 0


def _transactions_at(sink: Recorder, index: int) -> int:
    return sink.samples[index].totals.transactions


def test_losing_the_second_node_mid_run_of_go_workers_fails_the_run_naming_the_worker_and_the_node(
    ray_cluster: RayCluster, local_spanner: LocalTarget
) -> None:
    # the actor starts the run's runtime: here the Go worker, found on the node
    config = _two_writers(local_spanner, ray_cluster.address, WorkerRuntime.GO)

    async def scenario() -> tuple[Recorder, list[str | None], str]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("node-lost", config)
        nodes = supervisor.worker_nodes("node-lost")
        await _until(lambda: len(sink.samples) >= 2, "two samples", RUN_TIMEOUT_S)
        lost = ray_cluster.kill_raylet(1)
        state = await asyncio.wait_for(supervisor.wait_finished("node-lost"), RUN_TIMEOUT_S)
        assert state is RunState.FAILED
        return sink, nodes, lost

    sink, nodes, lost = asyncio.run(scenario())
    assert lost in nodes
    index = nodes.index(lost)
    state, reason = sink.states[-1]
    assert state is RunState.FAILED
    assert reason is not None and f"worker {index} " in reason and f"node {lost}" in reason, reason


def test_spanload_run_with_an_unreachable_ray_address_exits_1_with_a_sentence_naming_it() -> None:
    address = f"127.0.0.9:{free_port()}"
    result = subprocess.run(
        [str(VENV_BIN / "spanload"), "run", "--ray", address, "--target", "emulator", "--emulator-host", "x:1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert f"cannot reach the Ray cluster at {address}" in result.stderr
    assert "Traceback" not in result.stderr
