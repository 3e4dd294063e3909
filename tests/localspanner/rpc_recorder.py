"""Watch the gRPC traffic of the official client without changing it.

A :class:`RpcRecorder` is a client interceptor; :func:`instrument` swaps a Database's Spanner
stub for one built on an intercepted channel to the same address, so every call the official
client makes (method, status code, initial and trailing metadata) can be inspected afterwards.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.cloud.spanner_v1.services.spanner.transports.grpc import SpannerGrpcTransport

MAX_RECORDED_CALLS = 20_000


@dataclass
class RecordedCall:
    method: str  # full method, e.g. /google.spanner.v1.Spanner/Commit
    request: Any
    call: Any  # a grpc.Call (unary outcome or streaming call)

    @property
    def name(self) -> str:
        return self.method.rsplit("/", 1)[-1]

    def code(self) -> grpc.StatusCode:
        code: grpc.StatusCode = self.call.code()
        return code

    def initial_metadata(self) -> dict[str, str]:
        return {k: v for k, v in (self.call.initial_metadata() or ()) if isinstance(v, str)}

    def trailing_metadata(self) -> dict[str, Any]:
        return dict(self.call.trailing_metadata() or ())

    def response(self) -> Any:
        """The response message of a unary call that succeeded."""
        return self.call.result()


class RpcRecorder(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: deque[RecordedCall] = deque(maxlen=MAX_RECORDED_CALLS)

    def _record(self, details: Any, request: Any, call: Any) -> None:
        with self._lock:
            self._calls.append(RecordedCall(details.method, request, call))

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        outcome = continuation(details, request)
        self._record(details, request, outcome)
        return outcome

    def intercept_unary_stream(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        call = continuation(details, request)
        self._record(details, request, call)
        return call

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()

    def calls(self, name: str | None = None) -> list[RecordedCall]:
        with self._lock:
            snapshot = list(self._calls)
        return [c for c in snapshot if name is None or c.name == name]

    def __iter__(self) -> Iterator[RecordedCall]:
        return iter(self.calls())

    def counts(self) -> Counter[str]:
        return Counter(c.name for c in self.calls())


def instrument(database: Any, address: str) -> RpcRecorder:
    """Give ``database`` a Spanner stub whose channel records every call. Returns the recorder."""
    recorder = RpcRecorder()
    channel = grpc.intercept_channel(grpc.insecure_channel(address), recorder)
    client_info = database._instance._client._client_info
    database._spanner_api = SpannerClient(client_info=client_info, transport=SpannerGrpcTransport(channel=channel))
    return recorder


def raw_spanner_client(address: str) -> SpannerClient:
    """The generated low-level Spanner client on a plain channel, for requests the high-level API hides."""
    return SpannerClient(transport=SpannerGrpcTransport(channel=grpc.insecure_channel(address)))
