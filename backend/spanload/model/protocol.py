"""The worker protocol: typed, versioned, newline-delimited JSON between supervisor and workers.

Language-neutral on purpose: every message is one JSON object on one line with a ``type`` and the
protocol version ``v``; histograms travel as base64 of HdrHistogram's standard compressed encoding.
A worker written in Go, or on another machine, joins a run by speaking exactly this.

Supervisor -> worker: ``start``, ``preload``, ``begin``, ``patch``, ``pause``, ``resume``,
``stop_writers``, ``stop``.
Worker -> supervisor: ``hello``, ``ready``, ``preload_progress``, ``report``, ``writers_stopped``,
``watcher_ledger``, ``stopped``, ``error``.

A worker program is started as ``PROGRAM --worker N`` (N its 0-based index): ``python -m
spanload.workers.process`` for the ``python`` runtime, ``spanload-worker-go`` for ``go``. It writes
protocol lines to stdout only and logs to stderr.

Stop is two-phase so the watcher can prove it missed nothing: first every writer stops and sends
its ledger (last version written per key), then the watcher drains every change and sends what it
received, then each worker sends its last report and ``stopped``.

The load phase (``config.preload.rows`` = N > 0), between ``ready`` and ``begin``:

- Worker 0, which creates the schema, counts the rows of the run's table and says how many in
  ``ready.table_rows``. If that is at least N the supervisor skips the phase (a ``preload_skipped``
  timeline event) and sends ``begin``.
- Otherwise it sends every worker a ``preload`` with its share ``[start, start + count)`` of the
  row numbers ``[0, N)``. The worker writes those rows, shaped like the workload's own (same key,
  shard and commit-timestamp columns as the updater writes), in big batches with several commits
  in flight, and sends ``preload_progress`` (cumulative ``rows_done`` of its share) about every
  ``PRELOAD_PROGRESS_EVERY_S`` and once with ``done: true`` at the end. With ``resume: true`` it
  first counts each chunk of its share and skips the chunks already full.
- A worker that cannot load sends a fatal ``error``. The phase sends no ``report``: measured
  figures start with ``begin``. The watcher's starting timestamp is taken at ``begin`` after a
  load, so the loaded rows are not changes.

Deadlines and failures (every worker runtime, Python or Go, does the same):

- Every operation (one updater transaction, one read, one watcher poll) has a deadline of
  ``config.client.timeout_ms`` that covers every RPC of it and every retry the client makes
  (UNAVAILABLE / RESOURCE_EXHAUSTED retried with backoff, an ABORTED transaction run again). A
  ``patch`` changes it from the next operation on.
- A failed operation, or one whose deadline ran out, counts once in the report's
  ``errors_by_code`` under a gRPC status code name (:class:`ErrorCode`) and in the ``errors``
  counter (and ``aborts`` for ABORTED); the run goes on. An operation that ran out of time while
  retrying a failure counts as that failure's code (UNAVAILABLE from a target that is down); one
  whose RPC ran out of time counts as DEADLINE_EXCEEDED.
- Its latency, from its actual start to the failure, goes into the histogram named after the
  operation plus :data:`FAILED_SUFFIX`: ``updater.txn.failed``, ``reader.read.failed``,
  ``watcher.poll.failed``. ``updater.txn``, ``reader.read``, ``watcher.poll`` (and their
  ``_intended`` / ``_server`` companions) keep successful operations only.
- ``timings``: per operation kind, the sums of its successful operations' parts (queue behind the
  pacer, session wait, server-timing, statements run, commits), which the aggregator turns into
  the breakdown of :mod:`spanload.model.breakdown`. Optional: a worker that sends none gets none.
- Gauge ``worker.report_lag_ms``: how long after its interval's end the report was sent.
- Before ``ready``, a worker that cannot reach the target or create the schema sends ``error``
  with ``fatal: true`` and a message naming the address and the gRPC status, within about
  ``min(timeout_ms, 10 s)`` of ``start``.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from spanload.model import tags
from spanload.model.breakdown import OpTiming, SysLatencies
from spanload.model.config import RunConfig
from spanload.model.tpcc import TxType
from spanload.model.workload import WatchMode

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    v: int = PROTOCOL_VERSION


# -- supervisor -> worker ---------------------------------------------------------------------


class Start(_Message):
    """Everything a worker needs: its index among ``workers``, the run and where Spanner is."""

    type: Literal["start"] = "start"
    run_id: str
    worker: int = Field(ge=0)
    workers: int = Field(ge=1)
    config: RunConfig
    emulator_host: str | None = Field(None, description="host:port for local/emulator targets")
    setup_schema: bool = Field(False, description="create the schema before reporting ready")
    run_tag: str = Field("", description="Spanner request/transaction tag of requests that name no operation")
    tags: dict[str, str] = Field(
        default_factory=dict, description="Spanner request/transaction tag of each operation (model/tags.py)"
    )
    watch_stream_ddl: str = Field(
        "",
        description="a watch that reads a change stream, or may switch to one: the DDL creating its stream when "
        "missing (Watch.stream_ddl)",
    )

    @model_validator(mode="after")
    def _tags_of_the_run(self) -> Start:
        """Filled from the run id and config where the sender left them out: one format for every runtime."""
        if not self.run_tag:
            self.run_tag = tags.run_tag(self.run_id)
        definition = self.config.definition
        if not self.tags:
            ops = list(definition.operations) if definition is not None else []
            self.tags = tags.operation_tags(self.run_id, [*ops, *(t.value for t in TxType)])
        watch = definition.watch if definition is not None else None
        if not self.watch_stream_ddl and watch is not None and watch.may_stream():
            assert definition is not None
            self.watch_stream_ddl = watch.stream_ddl(definition.dialect)
        return self


PRELOAD_PROGRESS_EVERY_S = 0.5


class Preload(_Message):
    """Load rows ``[start, start + count)`` of the ``rows`` the run's table is to hold."""

    type: Literal["preload"] = "preload"
    rows: int = Field(ge=0, description="the table's target row count (config.preload.rows)")
    start: int = Field(ge=0, description="first row number of this worker's share")
    count: int = Field(ge=0, description="rows in this worker's share")
    resume: bool = Field(False, description="the table is not empty: skip the chunks already full")


class Begin(_Message):
    """Every worker is ready: start the load now. Report intervals align to ``started_at``."""

    type: Literal["begin"] = "begin"
    started_at: float = Field(description="unix seconds")


class Patch(_Message):
    """The whole new (already validated) config; the worker applies what changed."""

    type: Literal["patch"] = "patch"
    config: RunConfig


class Pause(_Message):
    type: Literal["pause"] = "pause"


class Resume(_Message):
    type: Literal["resume"] = "resume"


class StopWriters(_Message):
    type: Literal["stop_writers"] = "stop_writers"


class Stop(_Message):
    type: Literal["stop"] = "stop"


# -- worker -> supervisor ---------------------------------------------------------------------


class Hello(_Message):
    """A worker's first line, sent as soon as it is up, before ``start``.

    ``pid`` is the worker process's own pid and ``host`` the name of the machine it runs on
    (Python ``socket.gethostname()``, Go ``os.Hostname()``); both go into the run summary's
    ``workers`` list. ``language`` is the runtime's name: ``"python"`` or ``"go"``.
    """

    type: Literal["hello"] = "hello"
    worker: int
    pid: int
    language: str = "python"
    client: str = Field("", description="Spanner client library and version")
    host: str = Field("", description="hostname of the machine the worker runs on")


class Ready(_Message):
    type: Literal["ready"] = "ready"
    worker: int
    table_rows: int | None = Field(
        None, description="rows the run's table holds (worker 0, when the config asks for a preload)"
    )


class PreloadProgress(_Message):
    """How far a worker is in its share of the load phase; cumulative, not deltas."""

    type: Literal["preload_progress"] = "preload_progress"
    worker: int
    rows_done: int = Field(ge=0, description="rows of its share written or found present so far")
    rows_skipped: int = Field(0, ge=0, description="of rows_done, rows already present (resume)")
    done: bool = False
    cpu_s: float | None = Field(None, ge=0, description="CPU seconds the process used since the preload arrived")


class Report(_Message):
    """Deltas of one report interval of one worker.

    ``cpu_s`` is not a delta: it is the CPU time (user + system, every thread) the worker process has
    used since it received ``begin``, as of the end of this interval; Python reads it with
    ``resource.getrusage(RUSAGE_SELF)``, Go with ``syscall.Getrusage(RUSAGE_SELF)``, each minus the
    same reading taken when ``begin`` arrived. The run summary's ``workers`` list divides the last
    value by the worker's operations (transactions + polls + reads) for client CPU per operation.
    ``None``: the worker does not measure it.
    """

    type: Literal["report"] = "report"
    worker: int
    seq: int = Field(ge=0)
    t: float = Field(description="end of the interval, unix seconds")
    interval_s: float
    counters: dict[str, int] = Field(default_factory=dict, description="deltas, see Counter")
    gauges: dict[str, float] = Field(default_factory=dict, description="values at the end, keyed by Gauge")
    errors_by_code: dict[str, int] = Field(default_factory=dict)
    hdr: dict[str, str] = Field(default_factory=dict, description="Op -> base64 compressed HdrHistogram (us)")
    final: bool = False
    cpu_s: float | None = Field(None, ge=0, description="cumulative CPU seconds of the process since begin")
    timings: dict[str, OpTiming] = Field(
        default_factory=dict, description="Op -> sums of its successful operations' parts (model.breakdown)"
    )
    sys_latencies: SysLatencies | None = Field(
        None, description="SPANNER_SYS statement and commit latencies, when the worker read them anew"
    )
    sys_interval_end: float | None = Field(
        None,
        description="INTERVAL_END (unix seconds) of the SPANNER_SYS minute that the minute gauges and "
        "sys_latencies come from; the aggregator keeps them only if that minute lies inside the run "
        "(model.server_minute)",
    )
    sys_error: str | None = Field(
        None,
        description="why the worker's last read of SPANNER_SYS failed (e.g. PERMISSION_DENIED: no access to "
        "it); None when it read, or reads none. The summary gives it as the reason of the figures it lacks",
    )


class WritersStopped(_Message):
    """A worker's updater has stopped; ``ledger`` rows are ``[key, last_version, versions_committed]``."""

    type: Literal["writers_stopped"] = "writers_stopped"
    worker: int
    writer_id: str
    ledger: list[tuple[int, int, int]] = Field(default_factory=list)
    uncertain_keys: list[int] = Field(default_factory=list, description="keys with a commit of unknown outcome")
    fresh_committed: list[tuple[int, int]] = Field(
        default_factory=list, description="new keys (batch_insert) committed: ranges [lo, hi) of their numbers"
    )
    fresh_uncertain: list[tuple[int, int]] = Field(
        default_factory=list, description="new keys whose commit's outcome is unknown: ranges of their numbers"
    )


# How far below a key's highest version seen the watcher's ledger still tells a late version (received
# after a higher one, from another poller's shard: a key's shard column may change between its
# versions) from a repeated one; further below, a version counts as a duplicate. Go's ledger keeps
# these as the bits of a uint64, so it is at most 64.
SEEN_WINDOW = 64


class WatcherLedger(_Message):
    """What the watcher received of this run's writes: rows ``[key, highest_version, distinct_versions]``."""

    type: Literal["watcher_ledger"] = "watcher_ledger"
    worker: int
    received: list[tuple[int, int, int]] = Field(default_factory=list)
    duplicates: int = Field(0, description="versions received again (see SEEN_WINDOW)")
    foreign: int = Field(0, description="changes by writers of other runs")
    fresh_received: dict[int, list[tuple[int, int]]] = Field(
        default_factory=dict, description="worker -> ranges [lo, hi) of the numbers of its new keys received"
    )


class WatchSwitched(_Message):
    """The definition's watch switched mode live (its mode knob changed): the old way was drained and
    the new one reads on from ``handover``, so each change came from one of the two (workloads/README.md,
    "Watch"). ``error``: the switch failed and the watch goes on the old way."""

    type: Literal["watch_switched"] = "watch_switched"
    worker: int
    mode: WatchMode = Field(description="the mode the watch runs in now")
    previous: WatchMode = Field(description="the mode it ran in before")
    handover: str = Field("", description="RFC 3339: the old way received the changes committed up to it")
    error: str | None = None


class TpccChecked(_Message):
    """``workload: tpcc``: worker 0's check of TPC-C's consistency conditions 1-4 after every
    writer stopped, sent before its last report. ``consistency`` maps ``condition_1``..
    ``condition_4`` to ``ok`` or ``failed: <detail>``; ``error`` says why the check could not run."""

    type: Literal["tpcc_checked"] = "tpcc_checked"
    worker: int
    consistency: dict[str, str] = Field(default_factory=dict)
    error: str | None = None


class Stopped(_Message):
    type: Literal["stopped"] = "stopped"
    worker: int


class Error(_Message):
    type: Literal["error"] = "error"
    worker: int
    message: str
    fatal: bool = False


class Counter:
    """Names of the counters in a :class:`Report`."""

    TRANSACTIONS = "transactions"
    MUTATIONS = "mutations"
    RECEIVED_CHANGES = "received_changes"
    POLLS = "polls"
    ROWS_POLLED = "rows_polled"
    READS = "reads"
    ERRORS = "errors"
    ABORTS = "aborts"
    RETRIES = "retries"
    DROPPED = "dropped"  # arrivals dropped because the backlog was full
    SCHEDULED = "scheduled"  # updater arrivals the Poisson schedule produced
    READS_SCHEDULED = "reads_scheduled"


OPERATION_COUNTERS = (Counter.TRANSACTIONS, Counter.POLLS, Counter.READS)
"""The counters whose sum is a worker's operations, for client CPU per operation."""

FAILED_SUFFIX = ".failed"  # histogram of an operation's failures: "updater.txn" + FAILED_SUFFIX


class ErrorCode:
    """Keys of ``errors_by_code``: gRPC status code names, plus a few client-side conditions."""

    CANCELLED = "CANCELLED"
    UNKNOWN = "UNKNOWN"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    ABORTED = "ABORTED"
    OUT_OF_RANGE = "OUT_OF_RANGE"
    UNIMPLEMENTED = "UNIMPLEMENTED"
    INTERNAL = "INTERNAL"
    UNAVAILABLE = "UNAVAILABLE"
    DATA_LOSS = "DATA_LOSS"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    SESSION_POOL_TIMEOUT = "SESSION_POOL_TIMEOUT"  # no pooled session within the pool's timeout
    # any other client-side exception counts under its type name


# A PostgreSQL driver's error (the pgadapter interface) counts under the gRPC code PGAdapter turned
# into that SQLSTATE (its PGExceptionFactory), so errors_by_code reads the same on every interface
# and in both runtimes: an exact SQLSTATE first, then its two-letter class; any other is UNKNOWN.
PG_SQLSTATE_CODES: dict[str, str] = {
    "40001": ErrorCode.ABORTED,  # serialization_failure: Spanner aborted the transaction
    "23505": ErrorCode.ALREADY_EXISTS,  # unique_violation: the row (key) exists
    "57014": ErrorCode.DEADLINE_EXCEEDED,  # query_canceled: the statement ran past its deadline
    "42P01": ErrorCode.NOT_FOUND,  # undefined_table
    "53300": ErrorCode.RESOURCE_EXHAUSTED,  # too_many_connections
    "08": ErrorCode.UNAVAILABLE,  # connection_exception: PGAdapter or Spanner unreachable
    "22": ErrorCode.INVALID_ARGUMENT,  # data_exception
    "23": ErrorCode.FAILED_PRECONDITION,  # integrity_constraint_violation (foreign key, not null...)
    "25": ErrorCode.FAILED_PRECONDITION,  # invalid_transaction_state
    "42": ErrorCode.INVALID_ARGUMENT,  # syntax_error_or_access_rule_violation
    "0A": ErrorCode.UNIMPLEMENTED,  # feature_not_supported
    "XX": ErrorCode.INTERNAL,  # internal_error
}


def pg_error_code(sqlstate: str) -> str:
    """The errors_by_code key of a PostgreSQL error with ``sqlstate`` (PG_SQLSTATE_CODES)."""
    return PG_SQLSTATE_CODES.get(sqlstate) or PG_SQLSTATE_CODES.get(sqlstate[:2]) or ErrorCode.UNKNOWN


ToWorker = Annotated[Start | Preload | Begin | Patch | Pause | Resume | StopWriters | Stop, Field(discriminator="type")]
FromWorker = Annotated[
    Hello
    | Ready
    | PreloadProgress
    | Report
    | WritersStopped
    | WatcherLedger
    | WatchSwitched
    | TpccChecked
    | Stopped
    | Error,
    Field(discriminator="type"),
]
_to_worker: TypeAdapter[ToWorker] = TypeAdapter(ToWorker)
_from_worker: TypeAdapter[FromWorker] = TypeAdapter(FromWorker)


class ProtocolError(ValueError):
    """A line that is not a message of this protocol version."""


def encode(message: _Message) -> bytes:
    """One NDJSON line."""
    return message.model_dump_json(by_alias=True).encode() + b"\n"


def _parse(line: bytes | str, adapter: TypeAdapter[Any]) -> Any | None:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as err:
        raise ProtocolError(f"not JSON: {err}") from err
    if not isinstance(raw, dict):
        raise ProtocolError("a message must be a JSON object")
    version = raw.get("v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {version!r} is not {PROTOCOL_VERSION}")
    try:
        return adapter.validate_python(raw)
    except ValidationError as err:
        kind = raw.get("type")
        if err.errors()[0]["type"] == "union_tag_invalid":
            logger.warning("ignoring a message of unknown type %r", kind)
            return None
        raise ProtocolError(f"bad {kind!r} message: {err}") from err


def decode_from_worker(line: bytes | str) -> FromWorker | None:
    """Parse a worker's line; ``None`` (logged) for a well-formed message of an unknown type."""
    result: FromWorker | None = _parse(line, _from_worker)
    return result


def decode_to_worker(line: bytes | str) -> ToWorker | None:
    """Parse a supervisor's line; ``None`` (logged) for a well-formed message of an unknown type."""
    result: ToWorker | None = _parse(line, _to_worker)
    return result
