"""Per-operation deadlines for the official client: no operation outlives ``client.timeout_ms``.

Left to its defaults, google-cloud-spanner 3.71 retries a Commit on UNAVAILABLE for up to an
hour (the GAPIC default retry), restarts a streaming read on UNAVAILABLE at once and forever
(``snapshot._restart_on_unavailable``), and retries an ABORTED transaction for 30 s. Against a
dead or stalled target every operation then hangs inside the client and a run shows nothing.

Here an *operation* (one updater transaction, one read, one poll) runs inside
:func:`operation`, which gives it a deadline of the configured timeout. Every RPC of the data
API goes through :func:`install`'s wrapper around the GAPIC methods, which

- caps the RPC's own gRPC timeout at the time the operation has left,
- replaces the method's default retry (UNAVAILABLE, RESOURCE_EXHAUSTED) by a bounded one that
  gives up when the operation's time is up,
- pauses briefly before an RPC that follows a retryable failure of the same operation (the
  streaming-read restart loop would otherwise spin on a refused connection), and
- refuses to start an RPC once the operation's time is up: :class:`OperationDeadlineExceeded`.

The calls that take them also get ``timeout=`` / ``retry=`` / ``timeout_secs=`` (the abort-retry
loops of ``run_in_transaction`` and ``batch()``) from :func:`rpc_timeout`, :func:`rpc_retry` and
:func:`timeout_s`. RPCs made outside an operation (session maintenance, statistics) get the same
bound per RPC.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from google.api_core import exceptions as gexc
from google.api_core import retry as retries
from google.api_core.gapic_v1.method import DEFAULT

from spanload.model.config import DEFAULT_TIMEOUT_MS

RETRYABLE = (gexc.ServiceUnavailable, gexc.ResourceExhausted)
BACKOFF_INITIAL_S = 0.02
BACKOFF_MAX_S = 0.5
BACKOFF_MULTIPLIER = 2.0
MIN_RPC_TIMEOUT_S = 0.001  # gRPC wants a positive deadline


class OperationDeadlineExceeded(gexc.DeadlineExceeded):
    """The operation's time ran out. ``cause`` is the last RPC failure that kept it retrying
    (UNAVAILABLE from a target that is down), or None when an RPC itself ran out of time."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)  # type: ignore[no-untyped-call]
        self.cause = cause


class _State(threading.local):
    deadline: float | None = None
    timeout_s: float = 0.0
    last_error: BaseException | None = None
    retryable_failures: int = 0


_state = _State()
_default_timeout_s = DEFAULT_TIMEOUT_MS / 1000


def configure(timeout_ms: int) -> None:
    """Set this process's operation timeout (``client.timeout_ms``); applies to the next operation."""
    global _default_timeout_s
    _default_timeout_s = timeout_ms / 1000


def timeout_s() -> float:
    """The configured operation timeout, in seconds."""
    return _default_timeout_s


@contextmanager
def operation(timeout: float | None = None) -> Iterator[None]:
    """Run the block as one operation with a deadline (default: the configured timeout)."""
    seconds = _default_timeout_s if timeout is None else timeout
    _state.deadline = time.monotonic() + seconds
    _state.timeout_s = seconds
    _state.last_error = None
    _state.retryable_failures = 0
    try:
        yield
    finally:
        _state.deadline = None


def remaining() -> float:
    """Seconds this thread's operation has left (the configured timeout outside an operation)."""
    if _state.deadline is None:
        return _default_timeout_s
    return _state.deadline - time.monotonic()


def rpc_timeout() -> float:
    """A ``timeout=`` for one RPC of the current operation."""
    return max(remaining(), MIN_RPC_TIMEOUT_S)


def rpc_retry(timeout: float | None = None) -> retries.Retry:
    """A ``retry=`` that retries UNAVAILABLE / RESOURCE_EXHAUSTED with a short backoff, at most
    for ``timeout`` seconds (default: what the current operation has left)."""
    return retries.Retry(
        predicate=retries.if_exception_type(*RETRYABLE),
        initial=BACKOFF_INITIAL_S,
        maximum=BACKOFF_MAX_S,
        multiplier=BACKOFF_MULTIPLIER,
        timeout=rpc_timeout() if timeout is None else timeout,
    )


def _expired(what: str) -> OperationDeadlineExceeded:
    cause = _state.last_error
    budget = f"{_state.timeout_s * 1000:.0f} ms" if _state.deadline is not None else "its time"
    detail = f"; last error: {cause}" if cause is not None else ""
    return OperationDeadlineExceeded(f"the operation ran out of {budget} before {what}{detail}", cause)


def _note(err: BaseException) -> None:
    if _state.deadline is None:
        return
    _state.last_error = err
    if isinstance(err, RETRYABLE):
        _state.retryable_failures += 1


class _Stream:
    """A server stream that notes the error that ends it, for the operation's backoff and cause."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._stream)
        except gexc.GoogleAPICallError as err:
            _note(err)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Bounded:
    """One GAPIC method (``_wrapped_methods`` value), bounded by the calling thread's operation."""

    def __init__(self, method: Any, name: str) -> None:
        self._method = method
        self._name = name
        self._retries = getattr(method, "_retry", None) is not None
        self.__wrapped__ = method

    def __call__(self, *args: Any, retry: Any = DEFAULT, timeout: Any = DEFAULT, **kwargs: Any) -> Any:
        if _state.deadline is not None and _state.retryable_failures:
            pause = min(BACKOFF_INITIAL_S * BACKOFF_MULTIPLIER**_state.retryable_failures, BACKOFF_MAX_S)
            time.sleep(max(0.0, min(pause, remaining())))
        left = remaining()
        if left <= 0:
            raise _expired(self._name)
        timeout = left if timeout is DEFAULT or timeout is None else min(float(timeout), left)
        if retry is DEFAULT:
            retry = rpc_retry(left) if self._retries else None
        elif retry is not None:
            retry = retry.with_timeout(min(retry.timeout or left, left))
        try:
            result = self._method(*args, retry=retry, timeout=max(timeout, MIN_RPC_TIMEOUT_S), **kwargs)
        except gexc.RetryError as err:  # the bounded retry gave up: the operation's time is up
            if err.cause is not None:
                _note(err.cause)
            raise _expired(self._name) from err
        except gexc.GoogleAPICallError as err:
            _note(err)
            raise
        if hasattr(result, "__next__"):
            return _Stream(result)
        return result


def install(api: Any) -> Any:
    """Bound every data-API method of a GAPIC ``SpannerClient`` (idempotent); returns ``api``."""
    methods: dict[Any, Any] = api._transport._wrapped_methods
    for key, method in list(methods.items()):
        if not isinstance(method, _Bounded):
            methods[key] = _Bounded(method, _rpc_name(key))
    return api


def _rpc_name(stub: Any) -> str:
    """``Commit`` from a gRPC stub whose method is ``/google.spanner.v1.Spanner/Commit``."""
    method = getattr(stub, "_method", None)
    if isinstance(method, bytes):
        method = method.decode()
    return str(method).rsplit("/", 1)[-1] if method else "an RPC"
