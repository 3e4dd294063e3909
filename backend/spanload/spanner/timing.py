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
is what the TPC-C and session-pool reports needed to explain where time goes. The same per-thread
record keeps what the breakdown of :mod:`spanload.model.breakdown` needs besides: the time spent
waiting for a pooled session (:func:`note_session_wait`, called by the counting pool), the SQL
texts the operation executed and its Commit RPCs (seen by the interceptor); :func:`take_parts`
hands them all out.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
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


COMMIT_METHOD = "/google.spanner.v1.Spanner/Commit"


@dataclass
class OpParts:
    """What one operation's RPCs said, and how long it waited for a session."""

    server_ms: float | None = None  # None: no RPC carried server-timing
    session_wait_s: float | None = None  # None: no session pool was asked (multiplexed sessions)
    statements: list[str] = field(default_factory=list)
    commits: int = 0


def begin() -> None:
    """Start summing server time (and the other parts) for this thread's next operation."""
    _local.total_ms = 0.0
    _local.seen = False
    _local.session_wait_s = None
    _local.statements = []
    _local.commits = 0


def take() -> float | None:
    """Server milliseconds of this thread's RPCs since :func:`begin`, or None if none said."""
    return take_parts().server_ms


def take_parts() -> OpParts:
    """Everything recorded on this thread since :func:`begin`; starts afresh."""
    parts = OpParts(
        server_ms=getattr(_local, "total_ms", 0.0) if getattr(_local, "seen", False) else None,
        session_wait_s=getattr(_local, "session_wait_s", None),
        statements=getattr(_local, "statements", []),
        commits=getattr(_local, "commits", 0),
    )
    begin()
    return parts


def note_session_wait(seconds: float) -> None:
    """This thread waited ``seconds`` for a pooled session (0 when one was idle)."""
    _local.session_wait_s = (getattr(_local, "session_wait_s", None) or 0.0) + seconds


def note_statement(sql: str) -> None:
    """This thread's operation sent ``sql`` by another way than the official client (the pgadapter
    interface's driver), for the breakdown's SPANNER_SYS match; nothing outside an operation."""
    statements: list[str] | None = getattr(_local, "statements", None)
    if statements is not None:
        statements.append(sql)


def note_commit() -> None:
    """This thread's operation committed a transaction by another way than the official client."""
    if getattr(_local, "statements", None) is not None:
        _local.commits = getattr(_local, "commits", 0) + 1


def _note_request(method: str, request: Any) -> None:
    statements: list[str] | None = getattr(_local, "statements", None)
    if statements is None:
        return  # not inside an operation (schema setup, stats reads)
    if method == COMMIT_METHOD:
        _local.commits = getattr(_local, "commits", 0) + 1
    sql = getattr(request, "sql", None)
    if isinstance(sql, str) and sql:
        statements.append(sql)
    for statement in getattr(request, "statements", None) or ():
        if isinstance(text := getattr(statement, "sql", None), str):
            statements.append(text)


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
        _note_request(str(client_call_details.method), request)
        outcome = continuation(client_call_details, request)
        _note(outcome)
        return outcome

    def intercept_unary_stream(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        _note_request(str(client_call_details.method), request)
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
