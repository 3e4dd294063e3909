"""What one worker process counts during a report interval: counters, errors by gRPC code, histograms."""

from __future__ import annotations

import queue
import threading

from google.api_core import exceptions as gexc

from spanload.model.metrics import Recorder
from spanload.model.protocol import Counter


def error_code(err: BaseException) -> str:
    """The gRPC status code name of a client error (``ABORTED``...), else the exception's type."""
    code = getattr(err, "grpc_status_code", None)
    if code is not None:
        return str(code.name)
    if isinstance(err, queue.Empty):
        return SESSION_POOL_TIMEOUT
    return type(err).__name__


SESSION_POOL_TIMEOUT = "SESSION_POOL_TIMEOUT"  # no pooled session within the pool's timeout

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

    def take(self) -> tuple[dict[str, int], dict[str, int], dict[str, str]]:
        """(counters, errors by code, encoded histograms) since the previous call."""
        with self._lock:
            counters, self._counters = self._counters, {}
            errors, self._errors = self._errors, {}
        return counters, errors, self.recorder.take()
