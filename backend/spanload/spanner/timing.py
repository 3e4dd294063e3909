"""Server-side latency from the ``server-timing`` header, next to the client's own timing.

Cloud Spanner's front end, and the local server, answer every RPC with a header such as
``server-timing: gfet4t7; dur=1`` (whole milliseconds). The local server adds its own
``x-spanload-server-timing: dur=0.412`` (fractional milliseconds), which is preferred when
present. A gRPC client interceptor reads it and adds it to a per-thread total, so an operation
of several RPCs (a DML transaction) gets their sum:

    timing.begin()
    ...client calls on this thread...
    server_ms = timing.take()  # None if no RPC carried the header

That splits client latency (queueing, the client library, the network) from the server's, which
is what the TPC-C and session-pool reports needed to explain where time goes.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import grpc

HEADER = "server-timing"
FINE_HEADER = "x-spanload-server-timing"
_DUR = re.compile(r"dur=([0-9]+(?:\.[0-9]+)?)")
_local = threading.local()


def parse_ms(value: str) -> float | None:
    """The first ``dur=`` of a server-timing value, in milliseconds."""
    match = _DUR.search(value)
    return float(match.group(1)) if match else None


def begin() -> None:
    """Start summing server time for this thread's next operation."""
    _local.total_ms = 0.0
    _local.seen = False


def take() -> float | None:
    """Server milliseconds of this thread's RPCs since :func:`begin`, or None if none said."""
    seen = getattr(_local, "seen", False)
    total: float = getattr(_local, "total_ms", 0.0)
    begin()
    return total if seen else None


def header_ms(metadata: Any) -> float | None:
    """Server milliseconds from response metadata: the fine header if present, else server-timing."""
    found: dict[str, float] = {}
    for key, value in metadata or ():
        if key in (HEADER, FINE_HEADER) and key not in found and (ms := parse_ms(str(value))) is not None:
            found[key] = ms
    return found.get(FINE_HEADER, found.get(HEADER))


def _note(call: Any) -> None:
    try:
        metadata = call.initial_metadata()
    except Exception:  # a failed call may have no metadata; its error is the caller's business
        return
    if (ms := header_ms(metadata)) is not None:
        _local.total_ms = getattr(_local, "total_ms", 0.0) + ms
        _local.seen = True


class ServerTimingInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    """Adds each RPC's server-timing to the calling thread's total.

    For a stream the header arrives with the first response, so waiting for it here only moves
    the wait the caller was about to make.
    """

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        outcome = continuation(client_call_details, request)
        _note(outcome)
        return outcome

    def intercept_unary_stream(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        call = continuation(client_call_details, request)
        _note(call)
        return call


# gRPC waits up to 120 s between reconnect attempts by default: a local server back after an outage
# would sit unused for minutes. Try again at least every second.
RECONNECT_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
)


def timed_channel(host: str) -> grpc.Channel:
    """A plain-text channel to ``host`` whose RPCs report their server time, and which reconnects
    within a second of the server coming back."""
    return grpc.intercept_channel(grpc.insecure_channel(host, options=RECONNECT_OPTIONS), ServerTimingInterceptor())
