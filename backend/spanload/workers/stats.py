"""What one worker process counts during a report interval: counters, errors by gRPC code, histograms."""

from __future__ import annotations

import queue
import threading
import time

from google.api_core import exceptions as gexc

from spanload.model.breakdown import MAX_STATEMENT_CHARS, MAX_STATEMENTS, OpTiming, SessionWait
from spanload.model.metrics import Recorder
from spanload.model.protocol import Counter, ErrorCode, pg_error_code
from spanload.model.samples import INTENDED_SUFFIX, SERVER_SUFFIX
from spanload.spanner import timing
from spanload.spanner.deadline import OperationDeadlineExceeded

US_PER_S = 1_000_000
US_PER_MS = 1000


def error_code(err: BaseException) -> str:
    """The gRPC status code name of a client error (``ABORTED``...; a PostgreSQL driver's, by its
    SQLSTATE), else the exception's type.

    An operation whose deadline ran out while it retried a failure counts as that failure's code
    (UNAVAILABLE from a target that is down); one whose RPC ran out of time, as DEADLINE_EXCEEDED.
    """
    if isinstance(err, (OperationDeadlineExceeded, gexc.RetryError)) and err.cause is not None:
        return error_code(err.cause)
    code = getattr(err, "grpc_status_code", None)
    if code is not None:
        return str(code.name)
    if isinstance(err, queue.Empty):
        return SESSION_POOL_TIMEOUT
    if type(err).__module__.startswith("psycopg"):  # the pgadapter interface: by the SQLSTATE
        sqlstate = getattr(err, "sqlstate", None)
        if sqlstate:
            return pg_error_code(sqlstate)
        if any(c.__name__ == "OperationalError" for c in type(err).__mro__):  # no connection to PGAdapter
            return ErrorCode.UNAVAILABLE
    return type(err).__name__


SESSION_POOL_TIMEOUT = ErrorCode.SESSION_POOL_TIMEOUT

# Commit errors after which the commit may have happened anyway.
UNKNOWN_OUTCOME = (gexc.DeadlineExceeded, gexc.ServiceUnavailable, gexc.InternalServerError, gexc.Unknown)


class WorkerStats:
    """Thread-safe interval deltas, handed out and reset by :meth:`take`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.recorder = Recorder()
        self._counters: dict[str, int] = {}
        self._errors: dict[str, int] = {}
        self._timings: dict[str, OpTiming] = {}

    def count(self, counter: str, n: int = 1) -> None:
        with self._lock:
            self._counters[counter] = self._counters.get(counter, 0) + n

    def count_many(self, counts: dict[str, int]) -> None:
        """Several counters at once: they land in the same interval's report."""
        with self._lock:
            for counter, n in counts.items():
                self._counters[counter] = self._counters.get(counter, 0) + n

    def error(self, err: BaseException) -> None:
        code = error_code(err)
        with self._lock:
            self._errors[code] = self._errors.get(code, 0) + 1
            self._counters[Counter.ERRORS] = self._counters.get(Counter.ERRORS, 0) + 1
            if isinstance(err, gexc.Aborted):
                self._counters[Counter.ABORTS] = self._counters.get(Counter.ABORTS, 0) + 1

    def failed(self, op: str, err: BaseException, elapsed_us: float) -> None:
        """A failed operation: counted by code, and timed in ``op``'s failure histogram."""
        self.error(err)
        self.recorder.record(op, elapsed_us)

    def succeeded(self, op: str, actual: float, intended: float | None = None) -> float:
        """A successful operation of kind ``op`` that started at ``actual`` (``time.perf_counter``)
        and was due at ``intended`` (None: not paced, it was due when it started); it ends now.

        Records its latency in ``op`` (from the actual start), ``op_intended`` (paced operations),
        ``op_server`` (if its RPCs carried server-timing) and its parts for the breakdown, from
        what :mod:`spanload.spanner.timing` noted on this thread since ``timing.begin()``.
        Every workload times its operations through here, so every operation kind has a breakdown.
        Returns the end time."""
        end = time.perf_counter()
        parts = timing.take_parts()
        start = actual if intended is None else min(intended, actual)
        self.recorder.record(op, (end - actual) * US_PER_S)
        if intended is not None:
            self.recorder.record(op + INTENDED_SUFFIX, (end - start) * US_PER_S)
        if parts.server_ms is not None:
            self.recorder.record(op + SERVER_SUFFIX, parts.server_ms * US_PER_MS)
        with self._lock:
            t = self._timings.get(op)
            if t is None:
                t = self._timings[op] = OpTiming(session_wait=SessionWait.NOT_APPLICABLE)
            t.count += 1
            t.total_us += (end - start) * US_PER_S
            t.queue_us += (actual - start) * US_PER_S
            if parts.session_wait_s is not None:
                t.session_wait = SessionWait.MEASURED
                t.session_us += parts.session_wait_s * US_PER_S
            if parts.server_ms is not None:
                t.server_count += 1
                t.server_us += parts.server_ms * US_PER_MS
            t.commits += parts.commits
            for text in parts.statements:
                key = text[:MAX_STATEMENT_CHARS]
                if key in t.statements or len(t.statements) < MAX_STATEMENTS:
                    t.statements[key] = t.statements.get(key, 0) + 1
        return end

    def take(self) -> tuple[dict[str, int], dict[str, int], dict[str, str]]:
        """(counters, errors by code, encoded histograms) since the previous call."""
        with self._lock:
            counters, self._counters = self._counters, {}
            errors, self._errors = self._errors, {}
        return counters, errors, self.recorder.take()

    def take_timings(self) -> dict[str, OpTiming]:
        """Each operation kind's breakdown sums since the previous call."""
        with self._lock:
            timings, self._timings = self._timings, {}
        return timings
