"""The supervisor: starts, steers and stops runs, each in its own worker OS process(es).

It lives in the control plane's event loop (or the headless CLI's) and never blocks it: workers
are ``python -m spanload.workers.process`` processes speaking :mod:`spanload.model.protocol`
lines, reached through a :class:`~spanload.engine.transports.WorkerTransport` (a local child
process on pipes, or a process on a cluster node). Every report interval the
:class:`~spanload.engine.aggregator.Aggregator` merges the workers' HDR deltas into one
:class:`~spanload.model.samples.Sample` for ``sink.on_sample``.

Liveness comes from the process itself: a worker that exits, or closes its output, fails the run
at once, with its index, pid and exit status or signal. Silence alone is not death (a worker whose
load threads hold the GIL can go quiet for seconds): after ``STALL_INTERVALS`` report intervals it
becomes a ``stalled`` timeline event and the ``workers.stalled`` gauge, and it fails the run only
after ``settings.worker_silence_fail_s``. A failed run's other workers are killed and the control
plane carries on.

A stop waits at most ``settings.stop_grace_s`` for the workers to drain and exit; past it they are
killed and the summary's ``stop`` says which.

Life cycle: ``start`` -> STARTING (processes up) [-> PRELOADING (the load phase, when
``config.preload.rows`` is more than the table holds)] -> RUNNING (schema ready, load on) <-> PAUSED
-> ``stop`` -> STOPPING (writers stop, the watcher drains, reconciliation) -> FINISHED. A summary
(``sink.on_summary``) is sent at the end of every run, FAILED ones included.

Beside the life cycle, each in a module of its own: where the workers go, which program they are
and the one pre-start check (:mod:`~spanload.engine.placement`); the load phase
(:mod:`~spanload.engine.preload_phase`); the summary's assembly (:mod:`~spanload.engine.run_summary`)
and TPC-C's verdict (:mod:`~spanload.engine.tpcc_verdict`); the records of a run and its workers
(:mod:`~spanload.engine.run_handles`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Coroutine
from typing import Any

from spanload.engine import pgadapter_run, schema_setup, thresholds, workload_check
from spanload.engine.abort_rules import AbortWatch
from spanload.engine.aggregator import Aggregator
from spanload.engine.capacity import CapacityRunner
from spanload.engine.placement import check_start, emulator_host, launcher_for
from spanload.engine.preload_phase import preload
from spanload.engine.profiles import ProfileRunner, Steering
from spanload.engine.run_handles import RunHandle, WorkerHandle, resolve
from spanload.engine.run_summary import assemble_summary, worker_cpu
from spanload.engine.tpcc_verdict import inconsistent
from spanload.engine.transports import WorkerLauncher, WorkerSpec, WorkerTransport
from spanload.model import protocol, tags
from spanload.model.config import ClientInterface, ConfigPatch, LatencyModel, Placement, RunConfig, TargetKind
from spanload.model.errors import RunConflict, RunError, RunInvalid, RunNotFound
from spanload.model.events import EventKind
from spanload.model.profile import ProfileEdit, ProfileStatus
from spanload.model.samples import Gauge, Sample
from spanload.model.settings import Settings
from spanload.model.state import RunAction, RunSink, RunState, check_action
from spanload.model.workload_file import Positions
from spanload.spanner.local_server import TargetChange

logger = logging.getLogger(__name__)

HELLO_TIMEOUT_S = 60.0  # a worker imports the Spanner client before it says hello
VALIDATE = "validate"  # the operation tag of the check before load
READY_TIMEOUT_S = 300.0  # schema creation on a cloud target can take minutes
EXIT_STATUS_WAIT_S = 2.0  # after a worker's output ends, how long its exit status may take to arrive
EXIT_TIMEOUT_S = 10.0  # a failed run's killed workers must be gone within this
STALL_INTERVALS = 3.0  # silence of this many report intervals makes a worker "stalled"
WATCHDOG_FRACTION = 0.25  # the watchdog looks this often, in intervals


class Supervisor:
    """Runs load tests in worker processes and reports everything they produce to ``sink``.

    All methods are coroutines for the caller's event loop; none blocks it.
    """

    def __init__(
        self,
        settings: Settings,
        sink: RunSink,
        worker_command: list[str] | None = None,
        local_spanner_address: str | None = None,
        launcher: WorkerLauncher | None = None,
    ) -> None:
        """``local_spanner_address``: where local targets without ``emulator_host`` go (default
        ``settings.local_spanner_host:port``); set it, or the attribute, when the local server
        was started on another port (``port=0``). ``worker_command`` replaces the worker program
        (a worker in another language speaking :mod:`spanload.model.protocol`) for every run, whatever
        its ``runtime`` (tests use a fake peer); by default it is the program of the run's runtime
        (:func:`~spanload.engine.runtimes.worker_command`). ``launcher`` starts the worker processes
        (default: local child processes)."""
        self.settings = settings
        self.sink = sink
        self.local_spanner_address = local_spanner_address
        self._runs: dict[str, RunHandle] = {}
        self._worker_command = worker_command
        self._launcher = launcher

    # -- accessors ----------------------------------------------------------------------------------

    def _run(self, run_id: str) -> RunHandle:
        try:
            return self._runs[run_id]
        except KeyError:
            raise RunNotFound(f"no run {run_id!r} is known to this supervisor") from None

    def state(self, run_id: str) -> RunState:
        """The run's current state. Raises :class:`RunNotFound`."""
        return self._run(run_id).state

    def config(self, run_id: str) -> RunConfig:
        """The run's current config, live patches included. Raises :class:`RunNotFound`."""
        return self._run(run_id).config

    def failure_reason(self, run_id: str) -> str | None:
        return self._run(run_id).reason

    def worker_pids(self, run_id: str) -> list[int]:
        """PIDs of the run's worker processes (for operators, and for tests that kill one)."""
        return [w.transport.pid for w in self._run(run_id).workers]

    def worker_nodes(self, run_id: str) -> list[str | None]:
        """The cluster node id of each of the run's workers (None for local processes)."""
        return [w.transport.node for w in self._run(run_id).workers]

    def active_runs(self) -> list[str]:
        return [r.id for r in self._runs.values() if r.state.is_active]

    async def wait_finished(self, run_id: str) -> RunState:
        """Wait until the run is FINISHED or FAILED; returns that state."""
        run = self._run(run_id)
        await run.finished.wait()
        return run.state

    # -- where the workers go ----------------------------------------------------------------------

    def emulator_host(self, config: RunConfig) -> str | None:
        """host:port of the local server or emulator the run talks to (None for cloud)."""
        return emulator_host(config, self.settings, self.local_spanner_address)

    def _launcher_for(self, placement: Placement) -> WorkerLauncher:
        return self._launcher if self._launcher is not None else launcher_for(placement)

    # -- start --------------------------------------------------------------------------------------

    async def start(self, run_id: str, config: RunConfig, source: tuple[Any, Positions] | None = None) -> None:
        """Spawn the run's worker processes; return once every one of them said hello. A definition
        that is no built-in is validated against the target first, as ``spanload validate`` does
        (:class:`DefinitionInvalid` lists its problems, placed on ``source``'s lines when given: the
        file as read).

        The schema is then created and the load started in the background: the sink sees
        STARTING now, then RUNNING (or FAILED with the reason).
        """
        existing = self._runs.get(run_id)
        if existing is not None and existing.state.is_active:
            raise RunConflict(f"run {run_id!r} is already {existing.state.value}")
        plan = check_start(config, self.settings, self._worker_command)
        config = plan.config
        host = self.emulator_host(config)
        await asyncio.to_thread(schema_setup.check_consent, config, host)
        await self._check_definition(run_id, config, host, source)
        config = config.seeded().model_copy(update={"placement": plan.placement})
        run = RunHandle(id=run_id, config=config, state=RunState.STARTING)
        run.abort = AbortWatch(config.abort_on) if config.abort_on else None
        self._runs[run_id] = run
        self.sink.on_state(run_id, RunState.STARTING, None)
        try:
            specs = [
                WorkerSpec(index=index, command=[*plan.command, "--worker", str(index)])
                for index in range(config.processes)
            ]
            for index, transport in enumerate(await self._launcher_for(plan.placement).start(specs)):
                run.workers.append(self._attach(run, index, transport))
            await asyncio.wait_for(asyncio.gather(*(w.hello for w in run.workers)), HELLO_TIMEOUT_S)
        except TimeoutError as err:
            reason = (
                f"could not start the worker processes: they did not say hello within {HELLO_TIMEOUT_S:g} s "
                "(an overloaded machine, or a worker that hangs while it starts)"
            )
            await self._fail(run, reason)
            raise RunError(reason) from err
        except Exception as err:
            reason = f"could not start the worker processes: {str(err) or type(err).__name__}"
            await self._fail(run, reason)
            raise RunError(reason) from err
        run.tasks.append(self._task(self._begin(run), f"begin-{run_id}"))

    async def _check_definition(
        self, run_id: str, config: RunConfig, host: str | None, source: tuple[Any, Positions] | None
    ) -> None:
        settings = self.settings
        scratch = host or self.local_spanner_address or f"{settings.local_spanner_host}:{settings.local_spanner_port}"
        try:
            data, positions = source or (None, None)
            tag = tags.operation_tag(run_id, VALIDATE)
            await asyncio.to_thread(workload_check.check_before_load, config, scratch, host, data, positions, tag)
        except workload_check.TargetUnusable as err:  # worker 0 meets it too and fails the run with it
            logger.info("definition not checked before load: %s", err)

    def _attach(self, run: RunHandle, index: int, transport: WorkerTransport) -> WorkerHandle:
        loop = asyncio.get_running_loop()
        worker = WorkerHandle(
            index=index,
            transport=transport,
            hello=loop.create_future(),
            ready=loop.create_future(),
            writers_stopped=loop.create_future(),
            stopped=loop.create_future(),
            preloaded=loop.create_future(),
        )
        worker.tasks.append(self._task(self._read_stdout(run, worker), f"{run.id}-w{index}-out"))
        worker.tasks.append(self._task(self._read_stderr(worker), f"{run.id}-w{index}-err"))
        return worker

    async def _begin(self, run: RunHandle) -> None:
        host = self.emulator_host(run.config)
        if schema_setup.creates_schema_first(run.config):
            try:
                await asyncio.to_thread(schema_setup.create_schema, run.config, host)
            except Exception as err:
                what = run.config.definition.name if run.config.definition else run.config.workload.value
                await self._fail(run, f"could not create the schema of workload {what!r}: {err}")
                return
        if pgadapter_run.needs_pgadapter(run.config):
            loop = asyncio.get_running_loop()

            def changed(change: TargetChange) -> None:  # from PGAdapter's supervising thread
                kind, changes = pgadapter_run.change_event(change)
                loop.call_soon_threadsafe(self.sink.on_event, run.id, kind, changes)

            try:
                run.pgadapter, run.config = await pgadapter_run.start(run.config, host, self.settings, changed)
                pgadapter_run.register(run.id, run.pgadapter)
            except Exception as err:
                await self._fail(run, f"could not start PGAdapter: {err}")
                return
        try:
            first, *rest = run.workers
            first.send(
                protocol.Start(
                    run_id=run.id,
                    worker=0,
                    workers=len(run.workers),
                    config=run.config,
                    emulator_host=host,
                    setup_schema=True,
                )
            )
            await asyncio.wait_for(first.ready, READY_TIMEOUT_S)
            for worker in rest:
                worker.send(
                    protocol.Start(
                        run_id=run.id,
                        worker=worker.index,
                        workers=len(run.workers),
                        config=run.config,
                        emulator_host=host,
                    )
                )
            await asyncio.wait_for(asyncio.gather(*(w.ready for w in rest)), READY_TIMEOUT_S)
        except TimeoutError:
            await self._fail(run, f"the workers were not ready within {READY_TIMEOUT_S:.0f} s")
            return
        except RunError:
            return  # _fail already ran (a worker reported a fatal error or exited)
        if run.state is not RunState.STARTING:
            return
        try:
            await preload(run, self.sink, self.settings.worker_silence_fail_s, self._set_state, self._fail)
        except RunError:
            return
        if run.state not in (RunState.STARTING, RunState.PRELOADING):
            return
        started_at = time.time()
        run.aggregator = Aggregator(
            started_at,
            run.config.report_interval_s,
            len(run.workers),
            via_pgadapter=run.config.client.interface is ClientInterface.PGADAPTER,
            warmup_s=run.config.warmup_s,
            legacy=thresholds.legacy_names(run.config),
            target=run.config.target.kind,
            watches=run.config.watches(),
        )
        run.begun_monotonic = time.monotonic()
        for worker in run.workers:
            worker.last_heard = time.monotonic()
            worker.send(protocol.Patch(config=run.config))  # patches made while worker 0 set up
            worker.send(protocol.Begin(started_at=started_at))
        self._set_state(run, RunState.RUNNING)
        run.tasks.append(self._task(self._watchdog(run), f"watchdog-{run.id}"))
        if run.config.profile is not None:
            run.profile = ProfileRunner(run.config, self._steering(run, "profile"))
            run.tasks.append(self._task(run.profile.drive(), f"profile-{run.id}"))
        if run.config.capacity is not None:
            # a local Spanner shares this machine with local workers; its latency model's CPU is modeled, not
            # spent, and a synthetic knee is the database's limit by construction
            target = run.config.target
            modeled = target.latency_model is not LatencyModel.NONE or target.commit_knee is not None
            shared = target.kind is TargetKind.LOCAL and not modeled
            cores = os.cpu_count() if shared and run.config.placement in (None, Placement()) else None
            steering = self._steering(run, "capacity")
            run.capacity = CapacityRunner(run.config, steering, lambda: worker_cpu(run), cores)
            run.tasks.append(self._task(run.capacity.begin(), f"capacity-{run.id}"))

    def _steering(self, run: RunHandle, who: str) -> Steering:
        """How the engine's own drivers (a profile, a capacity search) change and stop a run: as a
        user would, the changes on the timeline by ``who``."""
        return Steering(
            state=lambda: run.state,
            patch=lambda patch: self.patch(run.id, patch, who),
            event=lambda kind, changes: self.sink.on_event(run.id, kind, changes),
            stop=lambda: self._stop_soon(run),
        )

    def _stop_soon(self, run: RunHandle) -> None:
        if run.stopping is None and run.state in (RunState.RUNNING, RunState.PAUSED):
            run.stopping = self._task(self._stop(run), f"stop-{run.id}")

    # -- worker streams -----------------------------------------------------------------------------

    async def _read_stdout(self, run: RunHandle, worker: WorkerHandle) -> None:
        while line := await worker.transport.readline():
            worker.last_heard = time.monotonic()
            if worker.stalled_since is not None:
                self._recovered(run, worker)
            try:
                message = protocol.decode_from_worker(line)
            except protocol.ProtocolError as err:
                if not worker.hello.done():  # its first words: it does not speak this protocol
                    await self._fail(
                        run, f"{worker.name} does not speak worker protocol v{protocol.PROTOCOL_VERSION}: {err}"
                    )
                    return
                logger.warning("%s wrote a line that is not protocol: %s (%s)", worker.name, line[:200], err)
                continue
            match message:
                case protocol.Hello() as hello:
                    resolve(worker.hello, hello)
                case protocol.Ready(table_rows=table_rows):
                    worker.table_rows = table_rows
                    resolve(worker.ready, None)
                case protocol.PreloadProgress() as progress:
                    worker.preload_done, worker.preload_skipped = progress.rows_done, progress.rows_skipped
                    worker.preload_cpu_s = progress.cpu_s
                    if progress.done:
                        resolve(worker.preloaded, None)
                case protocol.Report() as report:
                    self._on_report(run, report)
                case protocol.WritersStopped() as ledger:
                    resolve(worker.writers_stopped, ledger)
                case protocol.WatcherLedger() as received:
                    if not run.finished.is_set():  # a late one has no summary left to go into
                        run.watcher_ledger = received
                case protocol.WatchSwitched() as switched:
                    fields = switched.model_dump(mode="json", include={"mode", "previous", "handover", "error"})
                    self.sink.on_event(run.id, EventKind.WATCH_MODE, fields)
                case protocol.TpccChecked() as checked:
                    run.tpcc_checked = checked
                case protocol.Stopped():
                    resolve(worker.stopped, None)
                case protocol.Error(message=text, fatal=True):
                    await self._fail(run, f"{worker.name}: {text}")
                case protocol.Error(message=text):
                    logger.warning("%s: %s", worker.name, text)
                case None:
                    continue
                case _:
                    logger.warning("%s sent an unexpected %s", worker.name, type(message).__name__)
        # Output ended: the worker exited, or closed its stdout (which it never does while it works).
        try:
            code: int | None = await asyncio.wait_for(worker.transport.wait(), EXIT_STATUS_WAIT_S)
        except TimeoutError:
            code = None
        if not worker.stopped.done():
            lost = worker.transport.failure
            await self._fail(
                run, f"{worker.name} {lost}" if lost else f"{worker.name} {describe_exit(code)} before the run ended"
            )

    async def _read_stderr(self, worker: WorkerHandle) -> None:
        while line := await worker.transport.readline_err():
            logger.info("%s: %s", worker.name, line.decode(errors="replace").rstrip())

    def _on_report(self, run: RunHandle, report: protocol.Report) -> None:
        if run.aggregator is None:
            return
        self._publish(run, run.aggregator.add(report))

    def _publish(self, run: RunHandle, samples: list[Sample]) -> None:
        stalled = float(sum(1 for w in run.workers if w.stalled_since is not None))
        for sample in samples:
            sample.gauges[Gauge.WORKERS_STALLED] = stalled
            self.sink.on_sample(run.id, sample)
            if run.capacity is not None:
                run.capacity.observe(sample)
            if run.abort is not None and run.abort_reason is None and (breach := run.abort.observe(sample)):
                self._abort(run, breach)

    def _abort(self, run: RunHandle, breach: dict[str, object]) -> None:
        run.abort_reason = str(breach["reason"])
        logger.warning("run %s: %s", run.id, run.abort_reason)
        self.sink.on_event(run.id, EventKind.ABORTED, breach)
        self._stop_soon(run)

    def _stalled(self, run: RunHandle, worker: WorkerHandle, silent_s: float) -> None:
        worker.stalled_since = worker.last_heard
        logger.warning("run %s: %s stalled: silent for %.1f s", run.id, worker.name, silent_s)
        self.sink.on_event(run.id, EventKind.STALLED, self._worker_event(worker, silent_s))

    def _recovered(self, run: RunHandle, worker: WorkerHandle) -> None:
        assert worker.stalled_since is not None
        silent_s = worker.last_heard - worker.stalled_since
        worker.stalled_since = None
        logger.info("run %s: %s speaks again after %.1f s", run.id, worker.name, silent_s)
        self.sink.on_event(run.id, EventKind.RECOVERED, self._worker_event(worker, silent_s))

    @staticmethod
    def _worker_event(worker: WorkerHandle, silent_s: float) -> dict[str, object]:
        return {"worker": worker.index, "pid": worker.transport.pid, "silent_s": round(silent_s, 1)}

    async def _watchdog(self, run: RunHandle) -> None:
        interval = run.config.report_interval_s
        fail_after = self.settings.worker_silence_fail_s
        while run.state.is_active:
            await asyncio.sleep(interval * WATCHDOG_FRACTION)
            if run.state in (RunState.STOPPING, RunState.FINISHED, RunState.FAILED):
                return
            now = time.monotonic()
            for worker in run.workers:
                silent = now - worker.last_heard
                if silent > fail_after:
                    await self._fail(
                        run,
                        f"{worker.name} sent nothing for {silent:.1f} s "
                        f"(SPANLOAD_WORKER_SILENCE_FAIL_S is {fail_after:g} s)",
                    )
                    return
                if silent > STALL_INTERVALS * interval and worker.stalled_since is None:
                    self._stalled(run, worker, silent)
            if run.aggregator is not None:
                self._publish(run, run.aggregator.flush_overdue(time.time()))
            duration = run.config.duration_s
            if duration is not None and now - run.begun_monotonic >= duration and run.state is RunState.RUNNING:
                self._stop_soon(run)
                return

    # -- control ------------------------------------------------------------------------------------

    async def patch(self, run_id: str, patch: ConfigPatch, who: str) -> RunConfig:
        """Validate ``patch`` against the whole config, apply it live and record it with the sink.

        Raises :class:`RunNotFound`, :class:`RunConflict` (not starting/running/paused)
        or :class:`RunInvalid` naming the field.
        """
        run = self._run(run_id)
        check_action(run_id, run.state, RunAction.CHANGE)
        patch = run.config.in_own_terms(patch)  # updater.transactions_per_second -> knobs.transactions_per_second
        new = run.config.apply(patch)
        new.check_rate_cap(self.settings.max_tps)
        if new.processes != run.config.processes:
            raise RunInvalid("processes cannot change while a run is going", "processes")
        run.config = new
        for worker in run.workers:
            if worker.ready.done():  # the others get it with Start, or with the Patch sent before Begin
                worker.send(protocol.Patch(config=new))
        self.sink.on_config_change(run_id, patch, who)
        return new

    async def edit_profile(self, run_id: str, edit: ProfileEdit) -> ProfileStatus:
        """Skip to the next stage of the run's profile, extend the current one, or abandon it; at
        once. Raises :class:`RunNotFound`, or :class:`RunConflict` when it has no profile under way."""
        run = self._run(run_id)
        check_action(run_id, run.state, RunAction.CHANGE)
        if run.profile is None:
            raise RunConflict(f"run {run_id!r} follows no profile (or has not begun it yet)")
        return await run.profile.edit(edit)

    async def pause(self, run_id: str) -> None:
        """Stop generating load (updater, reader, watcher) until :meth:`resume`."""
        run = self._run(run_id)
        check_action(run_id, run.state, RunAction.PAUSE)
        for worker in run.workers:
            worker.send(protocol.Pause())
        self._set_state(run, RunState.PAUSED)

    async def resume(self, run_id: str) -> None:
        run = self._run(run_id)
        check_action(run_id, run.state, RunAction.RESUME)
        for worker in run.workers:
            worker.send(protocol.Resume())
        self._set_state(run, RunState.RUNNING)

    async def stop(self, run_id: str) -> None:
        """Stop gracefully: writers stop, the watcher drains, the final summary and reconciliation
        go to the sink, then FINISHED (or FAILED, if it failed meanwhile). Returns when it ended."""
        run = self._run(run_id)
        if run.state in (RunState.FINISHED, RunState.FAILED, RunState.INTERRUPTED):
            return
        if run.stopping is None:
            run.stopping = self._task(self._stop(run), f"stop-{run_id}")
        await run.finished.wait()

    async def shutdown(self) -> None:
        """Stop every active run (application shutdown)."""
        await asyncio.gather(*(self.stop(run_id) for run_id in self.active_runs()), return_exceptions=True)

    async def _stop(self, run: RunHandle) -> None:
        """Stop within ``settings.stop_grace_s``: writers stop, the watcher drains, every worker
        sends its last report; past the grace the workers are killed (FINISHED, no reconciliation,
        ``summary.stop`` names them)."""
        grace = self.settings.stop_grace_s
        run.stop_deadline = time.monotonic() + grace
        self._set_state(run, RunState.STOPPING)
        if run.aggregator is None:  # never began: nothing to drain, nothing to wait for
            run.stop_deadline = time.monotonic()
            await self._end(run, RunState.FINISHED, None)
            return
        phase = "stop their writers"
        try:
            for worker in run.workers:
                worker.send(protocol.StopWriters())
            ledgers = await self._within_grace(run, asyncio.gather(*(w.writers_stopped for w in run.workers)))
            phase = "drain and send their last report"
            for worker in run.workers:
                worker.send(protocol.Stop())
            await self._within_grace(run, asyncio.gather(*(w.stopped for w in run.workers)))
        except TimeoutError:
            late = [w.index for w in run.workers if not w.stopped.done()]
            run.stop_detail = f"workers {late} did not {phase} within the stop grace of {grace:g} s"
            logger.warning("run %s: %s; killing them", run.id, run.stop_detail)
            await self._end(run, RunState.FINISHED, None)
            return
        except RunError:
            return
        reason = inconsistent(run.tpcc_checked) or run.abort_reason
        state = RunState.FAILED if reason else RunState.FINISHED
        await self._end(run, state, reason, ledgers=list(ledgers), drained=True)

    async def _within_grace(self, run: RunHandle, waiting: asyncio.Future[Any]) -> Any:
        """Await ``waiting`` until the stop's grace is over; then TimeoutError."""
        assert run.stop_deadline is not None
        done, _ = await asyncio.wait({waiting}, timeout=max(0.0, run.stop_deadline - time.monotonic()))
        if done:
            return waiting.result()
        waiting.cancel()
        raise TimeoutError

    async def _fail(self, run: RunHandle, reason: str) -> None:
        if run.state in (RunState.FINISHED, RunState.FAILED):
            return
        logger.error("run %s failed: %s", run.id, reason)
        await self._end(run, RunState.FAILED, reason)
        for future in (f for w in run.workers for f in w.futures()):
            if not future.done():
                future.set_exception(RunError(reason))
                future.exception()  # retrieved: nobody may be waiting on it any more

    async def _end(
        self,
        run: RunHandle,
        state: RunState,
        reason: str | None,
        ledgers: list[protocol.WritersStopped] | None = None,
        drained: bool = False,
    ) -> None:
        """``ledgers``: every writer's, when they stopped by themselves (the watcher's is reconciled
        against them); ``drained``: every worker stopped by itself (a run that fails only its TPC-C
        consistency check still ends like a finished one)."""
        if run.finished.is_set() or run.state in (RunState.FINISHED, RunState.FAILED):
            return
        run.state = state  # terminal at once, so nothing re-enters
        run.reason = reason
        graceful = state is RunState.FINISHED or drained
        killed = await self._reap(run, graceful=graceful)
        if run.pgadapter is not None:
            pgadapter_run.unregister(run.id)
            await asyncio.to_thread(run.pgadapter.stop)
        if run.aggregator is not None:
            self._publish(run, run.aggregator.flush_all())
        summary = assemble_summary(run, self.settings.stop_grace_s, killed, graceful, ledgers)
        if summary is not None:
            self.sink.on_summary(run.id, summary)
        self.sink.on_state(run.id, state, reason)
        run.release_measurements()
        run.finished.set()

    async def _reap(self, run: RunHandle, graceful: bool) -> list[int]:
        """Make sure every worker process is gone: killed at once when the run failed; after a
        stop, given what is left of the grace to exit by itself. Returns the indexes killed."""
        killed: list[int] = []
        for worker in run.workers:
            if not graceful:
                worker.transport.kill()
            worker.transport.close_input()
        for worker in run.workers:
            left = EXIT_TIMEOUT_S
            if graceful and run.stop_deadline is not None:
                left = max(0.0, run.stop_deadline - time.monotonic())
            try:
                await asyncio.wait_for(worker.transport.wait(), left)
            except TimeoutError:
                logger.warning("%s did not exit; killing it", worker.name)
                killed.append(worker.index)
                worker.transport.kill()
                await asyncio.wait_for(worker.transport.wait(), EXIT_TIMEOUT_S)
        current = asyncio.current_task()
        for task in [*run.tasks, *(t for w in run.workers for t in w.tasks)]:
            if task is not current and not task.done():
                task.cancel()
        return killed

    def _set_state(self, run: RunHandle, state: RunState) -> None:
        run.state = state
        self.sink.on_state(run.id, state, None)

    def _task(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        task.add_done_callback(_log_crash)
        return task


def describe_exit(code: int | None) -> str:
    """``exited with code 1``, ``was killed by signal SIGKILL (exit status -9)``, or, for a
    process still running after closing its output, ``closed its output``."""
    if code is None:
        return "closed its output"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name} (exit status {code})"
    return f"exited with code {code}"


def _log_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("supervisor task %s crashed", task.get_name(), exc_info=task.exception())
