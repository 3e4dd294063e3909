"""The supervisor against workers that speak the protocol without Spanner (tests/engine/protocol_peer.py).

These test process supervision and the protocol; Spanner behaviour is tested end to end in
test_e2e_local.py against the local server with the real client.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Collection
from pathlib import Path

import pytest

from spanload.engine.placement import resolve_placement
from spanload.engine.supervisor import Supervisor
from spanload.model.config import ConfigPatch, RunConfig, WorkerRuntime
from spanload.model.errors import RunConflict, RunError, RunInvalid, RunNotFound
from spanload.model.events import EventKind
from spanload.model.samples import Gauge, Sample, StopInfo, Summary
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.protocol_peer import CPU_S_PER_REPORT

PEER = [sys.executable, str(Path(__file__).with_name("protocol_peer.py"))]
FAST = 0.2  # report interval of these tests, seconds
SILENT_FOR_S = 1.5  # the scripted silence of the worker that stalls and recovers
STALL_EVENTS = frozenset({EventKind.STALLED, EventKind.RECOVERED})


def assert_only_passing_stalls(
    events: list[tuple[EventKind, dict[str, object]]], shorter_than_s: float, unended: Collection[object] = ()
) -> None:
    """No event but the watchdog's: a loaded machine may leave a worker silent for an interval or
    two (STALLED, then RECOVERED), which says nothing of the target. Each worker's silences ended
    (but the last one of a worker in ``unended``: it was killed, or the run ended in it), and each
    was shorter than ``shorter_than_s``."""
    assert {kind for kind, _ in events} <= STALL_EVENTS, events
    by_worker: dict[object, list[EventKind]] = {}
    for kind, changes in events:
        by_worker.setdefault(changes["worker"], []).append(kind)
    for worker, kinds in by_worker.items():
        if worker in unended and len(kinds) % 2:
            kinds = kinds[:-1]
        assert kinds == [EventKind.STALLED, EventKind.RECOVERED] * (len(kinds) // 2), (worker, events)
    silences = [float(str(changes["silent_s"])) for kind, changes in events if kind is EventKind.RECOVERED]
    assert all(silent < shorter_than_s for silent in silences), events


class Recorder:
    def __init__(self) -> None:
        self.samples: list[Sample] = []
        self.states: list[tuple[RunState, str | None]] = []
        self.patches: list[tuple[dict[str, object], str]] = []
        self.summary: Summary | None = None
        self.events: list[tuple[EventKind, dict[str, object]]] = []
        self.log: list[str] = []  # states and events, in the order they came
        self.events_before: list[int] = []  # per sample: how many events came before it
        self.event_at: list[int] = []  # per event: its index in the log

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self.samples.append(sample)
        self.events_before.append(len(self.events))

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        self.states.append((state, reason))
        self.log.append(state.value)

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None:
        self.patches.append((patch.changed_fields(), who))

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.summary = summary

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        self.events.append((kind, changes))
        self.event_at.append(len(self.log))
        self.log.append(f"{kind.value} {changes['worker']}" if "worker" in changes else kind.value)

    def on_preload(self, run_id: str, status: object) -> None:
        """A definition with a ``load`` preloads (session_pool's Players): its progress is not these tests'."""

    def log_of(self, worker: int, scripted_s: float, shorter_than_s: float, unended: Collection[int] = ()) -> list[str]:
        """The log without the stalls a pause of a loaded machine adds: every stalled/recovered entry
        of the other workers, which must be only passing stalls (:func:`assert_only_passing_stalls`),
        and those of ``worker`` that recovered after less than ``scripted_s``, its scripted silence
        (which ends later, or never)."""
        others = [i for i, (kind, c) in enumerate(self.events) if kind in STALL_EVENTS and c.get("worker") != worker]
        assert_only_passing_stalls([self.events[i] for i in others], shorter_than_s, unended)
        dropped = {self.event_at[i] for i in [*others, *self._passing_of(worker, scripted_s)]}
        return [entry for n, entry in enumerate(self.log) if n not in dropped]

    def scripted_events(self, worker: int, scripted_s: float) -> list[tuple[EventKind, dict[str, object]]]:
        """``worker``'s events but its passing stalls (see :meth:`log_of`)."""
        passing = self._passing_of(worker, scripted_s)
        return [e for i, e in enumerate(self.events) if e[1].get("worker") == worker and i not in passing]

    def _passing_of(self, worker: int, scripted_s: float) -> set[int]:
        """Indexes of ``worker``'s stalled/recovered pairs that recovered after less than ``scripted_s``."""
        mine = [i for i, (kind, c) in enumerate(self.events) if kind in STALL_EVENTS and c.get("worker") == worker]
        passing: set[int] = set()
        for a, b in zip(mine[::2], mine[1::2], strict=False):
            (first, _), (second, recovered) = self.events[a], self.events[b]
            silent = float(str(recovered["silent_s"]))
            if (first, second) == (EventKind.STALLED, EventKind.RECOVERED) and silent < scripted_s:
                passing |= {a, b}
        return passing

    def stalled_at_samples(self) -> list[set[object]]:
        """Per sample, the workers stalled when it came, by the events before it: what its
        ``workers.stalled`` gauge must count."""
        out: list[set[object]] = []
        for n in self.events_before:
            stalled: set[object] = set()
            for kind, changes in self.events[:n]:
                if kind is EventKind.STALLED:
                    stalled.add(changes["worker"])
                elif kind is EventKind.RECOVERED:
                    stalled.discard(changes["worker"])
            out.append(stalled)
        return out


def _config(processes: int, local: LocalTarget | None = None, interval_s: float = FAST) -> RunConfig:
    """A run of the default workload. Its built-in definition's schema is created by the control
    plane before the (fake) workers start, so a run that gets that far needs a real target:
    ``local``; the others never reach it ("x:1")."""
    target = {"emulator_host": "x:1"} if local is None else local.config().target.model_dump(mode="json")
    return RunConfig.model_validate({"processes": processes, "report_interval_s": interval_s, "target": target})


async def _until(predicate, what: str, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_two_process_run_merges_reports_patches_pauses_and_stops_with_a_summary(local_spanner: LocalTarget) -> None:
    async def scenario() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink, worker_command=PEER)
        await supervisor.start("r1", _config(2, local_spanner))
        assert len(supervisor.worker_pids("r1")) == 2
        await _until(lambda: supervisor.state("r1") is RunState.RUNNING, "RUNNING")
        await _until(lambda: len(sink.samples) >= 3, "three samples")
        new = await supervisor.patch(
            "r1", ConfigPatch.model_validate({"updater": {"transactions_per_second": 20}}), "tester"
        )
        # the run is its built-in definition's: the updater's rate is its knob (model/builtin_knobs.py)
        assert new.knob_values()["transactions_per_second"] == 20
        assert supervisor.config("r1").knob_values()["transactions_per_second"] == 20
        with pytest.raises(RunInvalid) as bad:
            await supervisor.patch(
                "r1", ConfigPatch.model_validate({"watcher": {"shard_filter": "none", "watchers": 3}}), "t"
            )
        assert "watcher.shard_filter" in str(bad.value)
        await supervisor.pause("r1")
        assert supervisor.state("r1") is RunState.PAUSED
        await supervisor.resume("r1")
        await supervisor.stop("r1")
        assert supervisor.state("r1") is RunState.FINISHED
        with pytest.raises(RunConflict):
            await supervisor.patch("r1", ConfigPatch(), "t")
        return sink

    sink = asyncio.run(scenario())
    assert sink.samples[0].totals.transactions == 4  # two processes x 2, merged into one sample
    assert [s.seq for s in sink.samples] == sorted(s.seq for s in sink.samples)
    assert sink.patches == [({"knobs.transactions_per_second": 20.0}, "tester")]
    assert [s for s, _ in sink.states] == [
        RunState.STARTING,
        RunState.RUNNING,
        RunState.PAUSED,
        RunState.RUNNING,
        RunState.STOPPING,
        RunState.FINISHED,
    ]
    assert sink.summary is not None and sink.summary.reconciliation is not None
    assert sink.summary.reconciliation.ok  # peer ledgers: keys 0 and 1 at version 1, both received
    assert sink.summary.stop == StopInfo(graceful=True, grace_s=Settings().stop_grace_s, killed_workers=[])
    assert sink.summary.totals.transactions == sink.samples[-1].totals.transactions


def test_an_ended_run_keeps_neither_its_aggregator_nor_the_watchers_ledger(local_spanner: LocalTarget) -> None:
    """Issue 30: the supervisor keeps a handle of every run it started for as long as serve runs.
    What only the summary needed (the aggregator's whole-run histograms, the watcher's ledger of
    every key it received: megabytes) must go once the summary is sent, or each ended run keeps it."""
    held: dict[str, list[weakref.ref[object]]] = {}

    class Holder(Recorder):
        def on_summary(self, run_id: str, summary: Summary) -> None:
            super().on_summary(run_id, summary)
            run = supervisor._runs[run_id]  # what the handle holds when the summary goes out
            held[run_id] = [weakref.ref(run.aggregator), weakref.ref(run.watcher_ledger)]
            held[run_id] += [weakref.ref(task) for task in [*run.tasks, *(t for w in run.workers for t in w.tasks)]]
            held[run_id] += [weakref.ref(w.writers_stopped.result()) for w in run.workers]  # the writers' ledgers

    sink = Holder()
    supervisor = Supervisor(Settings(), sink, worker_command=PEER)

    async def scenario() -> None:
        for run_id in ("m1", "m2"):
            await supervisor.start(run_id, _config(1, local_spanner))
            await _until(lambda current=run_id: supervisor.state(current) is RunState.RUNNING, "RUNNING")
            await supervisor.stop(run_id)
            assert sink.summary is not None and sink.summary.reconciliation is not None  # the ledger was used

    asyncio.run(scenario())
    gc.collect()
    assert sorted(held) == ["m1", "m2"]
    # the aggregator, the watcher's ledger, the run's tasks (its begin and watchdog, the worker's two
    # readers: a cancelled one keeps the frame of its last await, and its locals, through its
    # CancelledError) and the writer's ledger
    assert {run_id: [ref() is None for ref in refs] for run_id, refs in held.items()} == {
        "m1": [True] * 7,
        "m2": [True] * 7,
    }
    assert supervisor.state("m1") is RunState.FINISHED and supervisor.failure_reason("m2") is None


def test_the_summary_lists_each_worker_with_its_pid_host_operations_and_cpu_per_operation(
    local_spanner: LocalTarget,
) -> None:
    async def scenario() -> tuple[Recorder, list[int]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink, worker_command=PEER)
        await supervisor.start("cost", _config(2, local_spanner))
        await _until(lambda: len(sink.samples) >= 3, "three samples")
        await supervisor.stop("cost")
        return sink, supervisor.worker_pids("cost")

    sink, pids = asyncio.run(scenario())
    assert sink.summary is not None
    workers = sink.summary.workers
    assert [w.index for w in workers] == [0, 1]
    assert [w.pid for w in workers] == pids
    assert [w.host for w in workers] == ["peer-host-0", "peer-host-1"]
    assert [w.runtime for w in workers] == ["test-peer", "test-peer"]
    assert [w.node for w in workers] == [None, None]
    assert sum(w.operations for w in workers) == sink.summary.totals.transactions
    for w in workers:
        reports = w.operations // 2  # the peer counts 2 transactions a report, and 0.01 s CPU
        assert w.operations == 2 * reports and reports >= 3
        assert w.cpu_s == pytest.approx(CPU_S_PER_REPORT * reports)
        assert w.cpu_ms_per_op == pytest.approx(CPU_S_PER_REPORT * 1000 / 2)


def test_the_log_leaves_out_passing_stalls_of_every_worker_but_not_the_scripted_one() -> None:
    """The filter the two stall tests below rely on: a pause of the machine that stalls worker 1
    before its scripted silence (0.8 s) and worker 0 (0.7 s) is left out; the scripted stall, which
    never recovered, stays; a stall of worker 1 that lasted as long as its scripted silence stays."""
    sink = Recorder()
    stall = EventKind.STALLED
    sink.on_state("r", RunState.STARTING, None)
    sink.on_state("r", RunState.RUNNING, None)
    for kind, worker, silent in ((stall, 1, 0.6), (EventKind.RECOVERED, 1, 0.8), (stall, 0, 0.6)):
        sink.on_event("r", kind, {"worker": worker, "silent_s": silent})
    sink.on_event("r", EventKind.RECOVERED, {"worker": 0, "silent_s": 0.7})
    sink.on_event("r", stall, {"worker": 1, "silent_s": 0.6})
    sink.on_state("r", RunState.FAILED, "worker 1 sent nothing")
    assert sink.log_of(1, 5.0, 5.0) == ["starting", "running", "stalled 1", "failed"]
    assert sink.scripted_events(1, 5.0) == [(stall, {"worker": 1, "silent_s": 0.6})]
    assert sink.log_of(1, 0.8, 5.0) == ["starting", "running", "stalled 1", "recovered 1", "stalled 1", "failed"]
    with pytest.raises(AssertionError):  # worker 0's stall was not shorter than 0.7 s
        sink.log_of(1, 5.0, 0.7)


def test_a_silent_worker_is_stalled_first_and_fails_the_run_only_after_the_silence_limit(
    local_spanner: LocalTarget,
) -> None:
    # Issue 18: 3 intervals (0.6 s here) of silence used to fail the run; a GIL-saturated worker
    # on a loaded machine went 3.4 s silent. Now that is a "stalled" event; the limit fails it.
    # Worker 0 is healthy, but a pause of this loaded machine may stall it for a while too: its
    # stalls must be passing ones (its last may be open when the run fails), and are left out.
    settings = Settings(worker_silence_fail_s=5.0)

    async def scenario() -> tuple[Recorder, list[int]]:
        sink = Recorder()
        command = [*PEER, "--silent-after", "2", "--silent-worker", "1"]
        supervisor = Supervisor(settings, sink, worker_command=command)
        await supervisor.start("r2", _config(2, local_spanner))
        state = await asyncio.wait_for(supervisor.wait_finished("r2"), 30)
        assert state is RunState.FAILED
        return sink, supervisor.worker_pids("r2")

    sink, pids = asyncio.run(scenario())
    # worker 1's own passing stalls before its silence, if a pause came then, are left out too
    limit = settings.worker_silence_fail_s
    assert sink.log_of(1, limit, limit, unended={0}) == ["starting", "running", "stalled 1", "failed"]
    ((kind, changes),) = sink.scripted_events(1, limit)
    assert kind is EventKind.STALLED and changes["pid"] == pids[1]
    assert isinstance(changes["silent_s"], float) and changes["silent_s"] >= round(3 * FAST, 1)  # rounded to 0.1 s
    reason = sink.states[-1][1]
    assert reason is not None
    assert reason.startswith(f"worker 1 (pid {pids[1]}) sent nothing for ")
    assert reason.endswith("s (SPANLOAD_WORKER_SILENCE_FAIL_S is 5 s)")
    # the gauge counts the workers stalled when each sample came; worker 0 reported on while worker 1 was
    stalled = sink.stalled_at_samples()
    assert [s.gauges[Gauge.WORKERS_STALLED] for s in sink.samples] == [float(len(w)) for w in stalled]
    assert any(1 in w for w in stalled), stalled


def test_a_worker_silent_for_a_while_is_stalled_then_recovers_and_the_run_finishes(local_spanner: LocalTarget) -> None:
    settings = Settings()

    async def scenario() -> Recorder:
        sink = Recorder()
        command = [*PEER, "--silent-after", "2", "--silent-for", str(SILENT_FOR_S), "--silent-worker", "0"]
        supervisor = Supervisor(settings, sink, worker_command=command)
        await supervisor.start("r5", _config(2, local_spanner))
        await _until(lambda: "recovered 0" in sink.log, "worker 0's stall and recovery")
        await supervisor.stop("r5")
        return sink

    sink = asyncio.run(scenario())
    # passing stalls, if this loaded machine paused a worker (worker 0 outside its 1.5 s), are left out
    log = sink.log_of(0, SILENT_FOR_S, settings.worker_silence_fail_s)
    assert log == ["starting", "running", "stalled 0", "recovered 0", "stopping", "finished"]
    (_, stalled), (_, recovered) = sink.scripted_events(0, SILENT_FOR_S)
    assert isinstance(recovered["silent_s"], float) and recovered["silent_s"] >= SILENT_FOR_S
    assert recovered["silent_s"] >= stalled["silent_s"]  # type: ignore[operator]
    at_samples = sink.stalled_at_samples()
    assert [s.gauges[Gauge.WORKERS_STALLED] for s in sink.samples] == [float(len(w)) for w in at_samples]
    assert any(0 in w for w in at_samples) and at_samples[-1] == set(), at_samples
    assert sink.summary is not None and sink.summary.reconciliation is not None and sink.summary.reconciliation.ok


def test_a_killed_worker_fails_the_run_at_once_naming_it_and_the_signal(local_spanner: LocalTarget) -> None:
    # a 5 s interval: a stall takes 15 s of silence, which no pause of a loaded machine reaches
    # before the exit is seen; the log is exact
    async def scenario() -> tuple[Recorder, list[int]]:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink, worker_command=PEER)
        await supervisor.start("r3", _config(2, local_spanner, interval_s=5.0))
        await _until(lambda: supervisor.state("r3") is RunState.RUNNING, "RUNNING")
        proc = await asyncio.create_subprocess_exec("kill", "-9", str(supervisor.worker_pids("r3")[1]))
        await proc.wait()
        await asyncio.wait_for(supervisor.wait_finished("r3"), 30)
        return sink, supervisor.worker_pids("r3")

    sink, pids = asyncio.run(scenario())
    assert sink.log == ["starting", "running", "failed"]  # no stall first: the exit is seen at once
    assert sink.states[-1] == (
        RunState.FAILED,
        f"worker 1 (pid {pids[1]}) was killed by SIGKILL (exit status -9) before the run ended",
    )
    assert sink.summary is not None  # what was measured before the failure is still summarised
    assert sink.summary.stop is None  # a failure, not a stop


def test_a_stop_kills_workers_that_do_not_drain_within_the_grace_and_says_so(local_spanner: LocalTarget) -> None:
    async def scenario() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(stop_grace_s=1.0), sink, worker_command=[*PEER, "--ignore-stop"])
        await supervisor.start("r6", _config(2, local_spanner))
        await _until(lambda: len(sink.samples) >= 2, "two samples")
        await asyncio.wait_for(supervisor.stop("r6"), 30)
        return sink

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None and sink.summary.reconciliation is None
    assert sink.summary.stop == StopInfo(
        graceful=False,
        grace_s=1.0,
        killed_workers=[0, 1],
        detail="workers [0, 1] did not stop their writers within the stop grace of 1 s",
    )


def test_unknown_runs_are_refused() -> None:
    async def scenario() -> None:
        supervisor = Supervisor(Settings(), Recorder(), worker_command=PEER)
        with pytest.raises(RunNotFound, match="nope"):
            await supervisor.patch("nope", ConfigPatch(), "t")
        with pytest.raises(RunNotFound):
            supervisor.state("nope")
        with pytest.raises(RunNotFound):
            await supervisor.stop("nope")

    asyncio.run(scenario())


def test_a_worker_speaking_another_protocol_version_fails_the_start_with_the_reason(tmp_path: Path) -> None:
    peer = tmp_path / "old_worker.py"
    peer.write_text(
        "import json, sys, time\n"
        'print(json.dumps({"type": "hello", "v": 0, "worker": 0, "pid": 1}), flush=True)\n'
        "time.sleep(30)\n"
    )

    async def scenario() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink, worker_command=[sys.executable, str(peer)])
        with pytest.raises(RunError, match="protocol"):
            await supervisor.start("r4", _config(1))
        return sink

    sink = asyncio.run(scenario())
    state, reason = sink.states[-1]
    assert state is RunState.FAILED
    assert reason is not None and "does not speak worker protocol v1" in reason


def test_a_worker_that_never_says_hello_fails_the_start_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that hangs while it starts (or a machine too loaded to start it) fails the start with
    a sentence, not with the empty text of a TimeoutError."""
    monkeypatch.setattr("spanload.engine.supervisor.HELLO_TIMEOUT_S", 0.5)
    peer = tmp_path / "mute_worker.py"
    peer.write_text("import time\ntime.sleep(30)\n")

    async def scenario() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink, worker_command=[sys.executable, str(peer)])
        with pytest.raises(RunError) as raised:
            await supervisor.start("mute", _config(1))
        assert str(raised.value) == (
            "could not start the worker processes: they did not say hello within 0.5 s "
            "(an overloaded machine, or a worker that hangs while it starts)"
        )
        return sink

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (
        RunState.FAILED,
        "could not start the worker processes: they did not say hello within 0.5 s "
        "(an overloaded machine, or a worker that hangs while it starts)",
    )


def test_a_go_run_without_the_go_worker_is_refused_before_it_starts(tmp_path: Path) -> None:
    missing = tmp_path / "spanload-worker-go"
    sink = Recorder()
    supervisor = Supervisor(Settings(go_worker_binary=missing), sink)
    config = _config(1).model_copy(update={"runtime": WorkerRuntime.GO})
    with pytest.raises(RunInvalid) as refused:
        asyncio.run(supervisor.start("no-go", config))
    assert str(refused.value) == (
        "the Go worker is not installed: run make install (it builds spanload-worker-go); "
        f"{missing} is not an executable"
    )
    assert refused.value.field == "runtime"
    assert sink.states == []  # nothing started, nothing to clean up
    with pytest.raises(RunNotFound):
        supervisor.state("no-go")


def test_a_run_without_a_placement_goes_where_the_server_says_and_ray_takes_its_address() -> None:
    def placed(settings: Settings, placement: dict[str, object] | None) -> tuple[str, str | None, float]:
        config = RunConfig.model_validate({} if placement is None else {"placement": placement})
        p = resolve_placement(config, settings)
        return p.kind.value, p.address, p.cpus_per_worker

    plain, with_ray = Settings(), Settings(ray_address="10.0.0.5:6379")
    assert placed(plain, None) == ("local", None, 1.0)
    assert placed(with_ray, None) == ("ray", "10.0.0.5:6379", 1.0)
    assert placed(with_ray, {"kind": "local"}) == ("local", None, 1.0)
    assert placed(with_ray, {"cpus_per_worker": 2}) == ("ray", "10.0.0.5:6379", 2.0)
    assert placed(plain, {"kind": "ray"}) == ("ray", "auto", 1.0)
    assert placed(plain, {"address": "ray://head:10001"}) == ("ray", "ray://head:10001", 1.0)
