"""A worker process: ``python -m spanload.workers.process --worker N``.

It reads control messages (NDJSON, :mod:`spanload.model.protocol`) on stdin and writes reports on
stdout; logs go to stderr. It says ``hello`` as soon as it is up, waits for ``start``, connects,
(worker 0) creates the schema and fixes the watcher's starting timestamp, says ``ready``, and
reports every interval until ``stop``. If stdin closes (its supervisor died) it stops at once.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import resource
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from spanload.model import tags
from spanload.model.breakdown import SysLatencies
from spanload.model.config import PG_INTERFACES, ClientInterface, RunConfig, Workload
from spanload.model.protocol import (
    PRELOAD_PROGRESS_EVERY_S,
    Begin,
    Counter,
    Error,
    Hello,
    Patch,
    Pause,
    Preload,
    PreloadProgress,
    Ready,
    Report,
    Resume,
    Start,
    Stop,
    Stopped,
    StopWriters,
    ToWorker,
    TpccChecked,
    WatchSwitched,
    WritersStopped,
    decode_to_worker,
    encode,
)
from spanload.model.samples import Gauge
from spanload.model.tpcc import preload_rows
from spanload.model.workload import Dialect, KnobValue, WatchMode, WorkloadDefinition
from spanload.spanner import client as spanner_client
from spanload.spanner import deadline, request_tags, schemas, tpcc_schema
from spanload.spanner.stats import SAMPLE_EVERY_S, StatsReader
from spanload.workers import preload as preloading
from spanload.workers import tracing
from spanload.workers.interp.ledger import writer_id
from spanload.workers.interp.operation import DefinitionError
from spanload.workers.interp.pg_driver import PgDatabase
from spanload.workers.interp.runner import Interpreter
from spanload.workers.interp.watch import DefinitionWatcher
from spanload.workers.interp.watch_base import seen_ledger
from spanload.workers.interp.watch_stream import ChangeStreamWatcher
from spanload.workers.interp.watch_switch import SwitchingWatch
from spanload.workers.stats import WorkerStats
from spanload.workers.tpcc import consistency
from spanload.workers.tpcc.driver import TpccLoad
from spanload.workers.tpcc.statements import GOOGLESQL, POSTGRESQL

logger = logging.getLogger("spanload.worker")

CLIENT_NAME = "google-cloud-spanner"
CONSISTENCY_TIMEOUT_S = 20.0  # the TPC-C check's aggregate queries, inside the stop grace
NO_POLL_QUERY = "\0"  # the poll-query prefix of a definition without a watcher: no statement starts so


class UnconvertedWorkload(ValueError):
    """A start message whose config is neither a workload definition's run nor TPC-C."""


class Channel:
    """Writes protocol lines to stdout from any thread."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._lock = threading.Lock()

    def send(self, message: Any) -> None:
        data = encode(message)
        with self._lock:
            self._out.write(data)
            self._out.flush()


def cpu_seconds() -> float:
    """CPU time (user + system, every thread) this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def start_timestamp(database: Any, pg: bool = False) -> dt.datetime:
    """The server's current time (a strong read), so the watcher starts exactly at the run's start
    (``pg``: a PostgreSQL database's)."""
    try:
        with deadline.operation(), database.snapshot() as snapshot:
            rows = list(snapshot.execute_sql("SELECT now()" if pg else "SELECT CURRENT_TIMESTAMP()"))
        value = rows[0][0]
        if isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    except Exception as err:
        logger.warning("could not read the server's time (%s); using this machine's clock", err)
    return dt.datetime.now(dt.UTC)


def watch_start(server_now: dt.datetime, begun: float) -> dt.datetime:
    """Where a preloaded run's watch starts: the Begin's time (every loaded row committed before it
    was sent), or the server's time if earlier. The server's time alone came after the other
    workers' first writes, which Begin reached at once: their changes were missed (3 of 31 final
    versions in a sweep)."""
    return min(server_now, dt.datetime.fromtimestamp(begun, dt.UTC))


class Worker:
    def __init__(self, start: Start, channel: Channel) -> None:
        self.start_msg = start
        self.index = start.worker
        request_tags.configure(start.run_tag, start.tags)
        self.config: RunConfig = start.config
        self.channel = channel
        self.stats = WorkerStats()
        self.definition = self.config.definition  # the start message's, kept for the whole run
        if self.config.workload is not Workload.TPCC and self.definition is None:
            raise UnconvertedWorkload(
                f"workload {self.config.workload.value!r} reached the worker unconverted: it runs workload "
                "definitions and TPC-C (the supervisor's start check turns a report workload into its "
                "built-in definition)"
            )
        self.tpcc: TpccLoad | None = None
        self.interp: Interpreter | None = None
        self.pg_database: PgDatabase | None = None  # the pgadapter interface's connections
        self.definition_watcher: DefinitionWatcher | ChangeStreamWatcher | SwitchingWatch | None = None
        self.conn: spanner_client.Connection | None = None
        self.stats_reader: StatsReader | None = None
        self.started_at = 0.0
        self.cpu_at_begin = 0.0
        # the stats loop's latest server gauges, the end of the SPANNER_SYS minute its minute gauges
        # come from and that minute's latencies: replaced whole, so a report never pairs one
        # minute's figures with another's end
        self.server_reading: tuple[dict[str, float], float | None, SysLatencies | None] = ({}, None, None)
        self.sys_error: str | None = None  # why the last read of SPANNER_SYS failed
        self.done = threading.Event()
        self.seq = 0
        self._report_lock = threading.Lock()
        self.table_rows: int | None = None  # counted at setup when the config asks for a preload
        self.preloaded = False
        self.preload_stop = threading.Event()

    def database(self) -> Any:
        assert self.conn is not None
        return self.conn.database

    # -- setup ------------------------------------------------------------------------------------

    def setup(self) -> None:
        """Reach the target (fail fast, naming address and status), create the schema (worker 0)
        and connect. Raises on any failure; ``serve`` turns it into a fatal ``error``."""
        start = self.start_msg
        spanner_client.apply_client_environment(self.config.client)
        deadline.configure(self.config.client.timeout_ms)
        admin = spanner_client.make_client(self.config.target, start.emulator_host)
        try:
            spanner_client.probe(admin, self.config.target, start.emulator_host, deadline.timeout_s())
            if self.definition is not None:  # the control plane runs its ddl before the workers start
                if start.setup_schema:
                    schemas.apply_database_options(admin, self.config.target)
            elif start.setup_schema:
                pg = self.config.client.interface in PG_INTERFACES
                tpcc_schema.ensure_tpcc_schema(admin, self.config.target, postgresql=pg)
        finally:
            admin.close()
        self.conn = spanner_client.connect(self.config.target, self.config.client, start.emulator_host)
        if start.setup_schema and preload_rows(self.config) > 0:
            self.table_rows = preloading.loader_for(self.config).count(self.database(), 0, None)
        if self.definition is not None:
            self._setup_definition(self.definition)
            return
        statements = POSTGRESQL if self.config.client.interface in PG_INTERFACES else GOOGLESQL
        self.tpcc = TpccLoad(self._operations(), self.config.tpcc, self.stats, self.index, start.workers, statements)

    def _operations(self) -> Callable[[], Any]:
        """What the measured operations run on: the official client's database, or on the pgadapter
        interface psycopg's connections through PGAdapter."""
        if self.config.client.interface is not ClientInterface.PGADAPTER:
            return self.database
        address = self.config.client.pgadapter_host
        if not address:
            raise ValueError("client.interface 'pgadapter' needs client.pgadapter_host (the engine sets it)")
        self.pg_database = PgDatabase(address, self.config.target.database)
        self.pg_database.warm()
        pg_database = self.pg_database
        return lambda: pg_database

    def _setup_definition(self, definition: WorkloadDefinition) -> None:
        """The interpreter's operations on this worker; worker 0 also watches, if the definition says so.
        On the pgadapter interface both speak psycopg through PGAdapter; the load phase, the server's
        statistics and the watcher's start time keep the official client."""
        start = self.start_msg
        operations = self._operations()
        self.interp = Interpreter(
            operations, definition, self.config, self.stats, self.index, start.workers, start.run_id
        )
        if self.index != 0:
            return
        prefix = NO_POLL_QUERY
        if definition.watch is not None:
            pg = definition.dialect is Dialect.POSTGRESQL
            knobs = self.config.knob_values()
            start_ts = start_timestamp(self.database(), pg)

            def make(mode: WatchMode, knobs: dict[str, KnobValue], start_ts: dt.datetime) -> Any:
                if mode is WatchMode.CHANGE_STREAM:  # the read function: the official client
                    return ChangeStreamWatcher(self.database, definition, knobs, self.stats, start_ts)
                return DefinitionWatcher(operations, definition, knobs, self.stats, start_ts)

            if definition.watch.mode_knob is not None:  # the mode follows a knob: switched live
                self.definition_watcher = SwitchingWatch(
                    make, self.database, definition, knobs, start_ts, self._watch_switched, self.index
                )
            else:
                self.definition_watcher = make(definition.watch.mode_in(knobs, definition.knobs), knobs, start_ts)
            if definition.watch.versions is not None:
                self.definition_watcher.seen = seen_ledger(start.run_id, start.workers)
            prefix = self.definition_watcher.next_sql[:60]
        self.stats_reader = StatsReader(self.database(), prefix, start.run_tag)

    def _watch_switched(self, switched: WatchSwitched) -> None:
        """A switch of the watch's mode ended: the server statistics follow the new watcher's query."""
        if self.stats_reader is not None and self.definition_watcher is not None:
            self.stats_reader.poll_sql_prefix = self.definition_watcher.next_sql[:60]
        self.channel.send(switched)

    # -- the load phase ----------------------------------------------------------------------------

    def preload(self, message: Preload) -> None:
        """Load this worker's share on a thread of its own (stdin stays read, so a stop is heard),
        sending progress every ``PRELOAD_PROGRESS_EVERY_S`` and ``done`` at the end."""
        self.preloaded = True
        threading.Thread(target=self._preload, args=(message,), name="preload", daemon=True).start()

    def _preload(self, message: Preload) -> None:
        request_tags.use(tags.PRELOAD)
        progress = preloading.Progress()
        finished = threading.Event()
        cpu_at_start = cpu_seconds()

        def send(done: bool) -> None:
            rows, skipped = progress.take()
            cpu = cpu_seconds() - cpu_at_start
            self.channel.send(
                PreloadProgress(worker=self.index, rows_done=rows, rows_skipped=skipped, done=done, cpu_s=cpu)
            )

        def report() -> None:
            while not finished.wait(PRELOAD_PROGRESS_EVERY_S):
                send(False)

        threading.Thread(target=report, name="preload-progress", daemon=True).start()
        # a client of its own for the probe a stalled load asks (does the target still answer?)
        target, emulator_host = self.config.target, self.start_msg.emulator_host
        admin = spanner_client.make_client(target, emulator_host)
        try:
            preloading.run_preload(
                self.database,
                preloading.loader_for(self.config),
                message.start,
                message.count,
                resume=message.resume,
                on_batch=progress.add,
                stop=self.preload_stop,
                probe=lambda: spanner_client.probe(admin, target, emulator_host, deadline.timeout_s()),
            )
        except preloading.PreloadStopped:
            finished.set()
            return
        except Exception as err:
            finished.set()
            logger.exception("worker %d: preload failed", self.index)
            self.channel.send(Error(worker=self.index, message=f"worker {self.index} preload: {err}", fatal=True))
            return
        finally:
            admin.close()
        finished.set()
        send(True)

    def run(self, started_at: float) -> None:
        self.started_at = started_at
        self.cpu_at_begin = cpu_seconds()
        if self.tpcc is not None:
            self.tpcc.start()
            threading.Thread(target=self._report_loop, name="reporter", daemon=True).start()
            return
        assert self.interp is not None
        if self.definition_watcher is not None:
            if self.preloaded:  # the loaded rows are not changes: watch from the run's begin
                self.definition_watcher.set_start(watch_start(start_timestamp(self.database()), started_at))
            self.definition_watcher.start()
        threading.Thread(target=self._stats_loop, name="server-stats", daemon=True).start()
        self.interp.start()
        threading.Thread(target=self._report_loop, name="reporter", daemon=True).start()

    # -- reports ----------------------------------------------------------------------------------

    def _report_loop(self) -> None:
        """Send a report at the end of every interval. Under load this thread competes for the GIL
        with the load threads, so it may wake late: how late goes out as ``worker.report_lag_ms``
        (measured, not prevented; the supervisor tolerates silence up to its stall limits)."""
        interval = self.config.report_interval_s
        while not self.done.is_set():
            end = self.started_at + (self.seq + 1) * interval
            wait = end - time.time()
            if wait > 0 and self.done.wait(wait):
                return
            self.send_report(final=False, due=end)

    def send_report(self, final: bool, due: float | None = None) -> None:
        """Send this interval's deltas; ``due``: when the report should have gone (unix seconds)."""
        with self._report_lock:
            counters, errors, hdr = self.stats.take()
            gauges: dict[str, float] = {}
            if self.tpcc is not None:
                gauges.update(self.tpcc.gauges())
                scheduled, dropped = self.tpcc.take_counts()
                if scheduled:
                    counters[Counter.SCHEDULED] = scheduled
                if dropped:
                    counters[Counter.DROPPED] = counters.get(Counter.DROPPED, 0) + dropped
            if self.interp is not None:
                gauges.update(self.interp.gauges())
                scheduled_by_op, dropped = self.interp.take_counts()
                counters.update(scheduled_by_op)
                if dropped:
                    counters[Counter.DROPPED] = counters.get(Counter.DROPPED, 0) + dropped
            if self.definition_watcher is not None:
                gauges.update(self.definition_watcher.gauges())
            server_gauges, sys_interval_end, sys_latencies = self.server_reading
            gauges.update(server_gauges)
            sessions = self.conn.session_gauges() if self.conn is not None else None
            if sessions is not None:
                gauges[Gauge.SESSIONS_IN_USE], gauges[Gauge.SESSIONS_IDLE], gauges[Gauge.SESSIONS_WAITING] = (
                    float(v) for v in sessions
                )
            interval = self.config.report_interval_s
            now = time.time()
            if due is not None:
                gauges[Gauge.REPORT_LAG_MS] = max(0.0, now - due) * 1000
            begin = self.started_at + self.seq * interval
            self.channel.send(
                Report(
                    worker=self.index,
                    seq=self.seq,
                    t=now,
                    interval_s=max(now - begin, 1e-3) if final else interval,
                    counters=counters,
                    gauges=gauges,
                    errors_by_code=errors,
                    hdr=hdr,
                    final=final,
                    cpu_s=cpu_seconds() - self.cpu_at_begin,
                    timings=self.stats.take_timings(),
                    sys_latencies=sys_latencies,
                    sys_interval_end=sys_interval_end,
                    sys_error=self.sys_error,
                )
            )
            self.seq += 1

    def _stats_loop(self) -> None:
        """Every report interval the running totals (a gauge per interval where the target has them),
        every SAMPLE_EVERY_S the minute tables."""
        minute: dict[str, float] = {}
        minute_end: float | None = None
        minute_latencies: SysLatencies | None = None
        minute_due = 0.0
        request_tags.use(tags.STATS)
        while not self.done.wait(self.config.report_interval_s):
            if self.stats_reader is None:
                return
            try:
                with deadline.operation():
                    if (now := time.monotonic()) >= minute_due:
                        minute, minute_due = self.stats_reader.read(), now + SAMPLE_EVERY_S
                        minute_end, minute_latencies = self.stats_reader.interval_end, self.stats_reader.latencies
                    counters = self.stats_reader.read_counters()
                self.server_reading = ({**minute, **counters}, minute_end, minute_latencies)
                self.sys_error = None
            except Exception as err:
                logger.warning("reading SPANNER_SYS statistics failed: %s", err)
                self.sys_error = spanner_client.status_text(err)

    # -- control ----------------------------------------------------------------------------------

    def apply(self, config: RunConfig) -> None:
        old = self.config
        self.config = config
        deadline.configure(config.client.timeout_ms)
        if config.client != old.client:
            spanner_client.apply_client_environment(config.client)
            if config.client.session_pool_size != old.client.session_pool_size or (
                config.client.multiplexed_sessions != old.client.multiplexed_sessions
            ):
                self.conn = spanner_client.connect(config.target, config.client, self.start_msg.emulator_host)
                if self.stats_reader is not None:
                    self.stats_reader = StatsReader(
                        self.conn.database, self.stats_reader.poll_sql_prefix, self.stats_reader.run_tag
                    )
        if self.tpcc is not None:
            self.tpcc.apply(config.tpcc)
        if self.interp is not None:
            try:
                self.interp.apply(config)
            except DefinitionError as err:  # e.g. a knob that puts a generator's min above its max
                logger.error("worker %d keeps its operations as they were: %s", self.index, err)
                self.channel.send(Error(worker=self.index, message=f"the patch cannot apply: {err}", fatal=False))
        if self.definition_watcher is not None:
            self.definition_watcher.apply(config.knob_values())
            if self.stats_reader is not None:  # the hint may have changed the poll's text
                self.stats_reader.poll_sql_prefix = self.definition_watcher.next_sql[:60]

    def set_paused(self, paused: bool) -> None:
        for part in (self.tpcc, self.interp, self.definition_watcher):
            if part is not None:
                part.set_paused(paused)

    def stop_writers(self) -> None:
        if self.tpcc is not None:
            self.tpcc.stop()
            self.channel.send(WritersStopped(worker=self.index, writer_id=writer_id(self.start_msg.run_id, self.index)))
            return
        assert self.interp is not None
        self.interp.stop()
        if self.interp.versioned:  # the versions it wrote, for the watcher's reconciliation
            self.channel.send(self.interp.ledger.message(self.interp.writer_id))
        else:
            self.channel.send(WritersStopped(worker=self.index, writer_id=writer_id(self.start_msg.run_id, self.index)))

    def stop(self) -> None:
        self.preload_stop.set()
        if self.tpcc is not None:
            self.tpcc.stop()
            if self.index == 0:
                self.channel.send(self._tpcc_checked())
        if self.interp is not None:
            self.interp.stop()
        if self.definition_watcher is not None:
            self.definition_watcher.stop_and_drain()
            if self.definition_watcher.seen is not None:
                self.channel.send(self.definition_watcher.seen.message(self.index))
        if self.pg_database is not None:
            self.pg_database.close()
        self.done.set()
        self.send_report(final=True)
        self.channel.send(Stopped(worker=self.index))

    def _tpcc_checked(self) -> TpccChecked:
        """TPC-C's consistency conditions 1-4, now that every worker's transactions have ended."""
        try:
            with deadline.operation(CONSISTENCY_TIMEOUT_S):
                verdicts = consistency.check(consistency.read_aggregates(self.database()))
        except Exception as err:
            logger.exception("the TPC-C consistency check failed to run")
            return TpccChecked(worker=self.index, error=spanner_client.status_text(err))
        return TpccChecked(worker=self.index, consistency=verdicts)

    def abandon(self) -> None:
        """The supervisor is gone: stop generating load at once, report nothing."""
        self.done.set()
        self.preload_stop.set()
        for part in (self.tpcc, self.interp, self.definition_watcher):
            if part is not None:
                part.stop()


def serve(index: int, stdin: IO[bytes], channel: Channel) -> int:
    channel.send(
        Hello(worker=index, pid=os.getpid(), host=socket.gethostname(), client=f"{CLIENT_NAME} {_client_version()}")
    )
    first = stdin.readline()
    if not first:
        return 0
    start = decode_to_worker(first)
    if not isinstance(start, Start):
        channel.send(Error(worker=index, message=f"expected a start message, got {first[:80]!r}", fatal=True))
        return 2
    tracing.start(start.run_id, index)
    try:
        worker = Worker(start, channel)
    except UnconvertedWorkload as err:
        channel.send(Error(worker=index, message=str(err), fatal=True))
        return 2
    try:
        worker.setup()
    except spanner_client.TargetUnreachableError as err:
        logger.error("worker %d: %s", index, err)
        channel.send(Error(worker=index, message=str(err), fatal=True))
        return 1
    except Exception as err:
        logger.exception("worker %d could not start", index)
        address = spanner_client.target_address(start.config.target, start.emulator_host)
        reason = f"could not start against {address}: {spanner_client.status_text(err)}"
        channel.send(Error(worker=index, message=reason, fatal=True))
        return 1
    channel.send(Ready(worker=index, table_rows=worker.table_rows))
    for line in stdin:
        try:
            message = decode_to_worker(line)
        except ValueError as err:
            logger.error("bad control message: %s", err)
            continue
        try:
            if _handle(worker, message):
                return 0
        except Exception as err:
            # Say why before dying, so the run's reason names the cause and not only an exit code.
            logger.exception("worker %d failed handling %s", index, type(message).__name__)
            what = type(message).__name__.lower()
            channel.send(Error(worker=index, message=f"worker {index} failed at {what}: {err}", fatal=True))
            worker.abandon()
            return 1
    worker.abandon()
    return 0


def _handle(worker: Worker, message: ToWorker | None) -> bool:
    """Apply one control message; True once the worker has stopped."""
    match message:
        case Preload() as preload:
            worker.preload(preload)
        case Begin(started_at=started_at):
            worker.run(started_at)
        case Patch(config=config):
            worker.apply(config)
        case Pause():
            worker.set_paused(True)
        case Resume():
            worker.set_paused(False)
        case StopWriters():
            worker.stop_writers()
        case Stop():
            worker.stop()
            return True
        case None:
            pass
        case _:
            logger.warning("worker %d ignores a %s message", worker.index, type(message).__name__)
    return False


def _client_version() -> str:
    from google.cloud.spanner_v1 import gapic_version

    return str(gapic_version.__version__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spanload-worker")
    parser.add_argument("--worker", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    os.environ["SPANNER_DISABLE_BUILTIN_METRICS"] = "true"
    return serve(args.worker, sys.stdin.buffer, Channel(sys.stdout.buffer))


if __name__ == "__main__":
    sys.exit(main())
