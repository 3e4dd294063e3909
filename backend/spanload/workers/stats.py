"""What one worker process counts during a report interval: counters, errors by gRPC code, histograms."""

from __future__ import annotations

import queue
import threading

from google.api_core import exceptions as gexc

from spanload.model.metrics import Recorder
from spanload.model.protocol import Counter, ErrorCode
from spanload.spanner.deadline import OperationDeadlineExceeded


def error_code(err: BaseException) -> str:
    """The gRPC status code name of a client error (``ABORTED``...), else the exception's type.

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

    def count(self, counter: str, n: int = 1) -> None:
        with self._lock:
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

    def take(self) -> tuple[dict[str, int], dict[str, int], dict[str, str]]:
        """(counters, errors by code, encoded histograms) since the previous call."""
        with self._lock:
            counters, self._counters = self._counters, {}
            errors, self._errors = self._errors, {}
        return counters, errors, self.recorder.take()
