"""A gRPC proxy in front of the local Spanner that forwards every call as raw bytes, and can be told
to hold back Commit responses: the server commits, the client's deadline passes without an answer,
so the client cannot know whether its commit happened (an unknown outcome), as on a real network."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc

COMMIT = "/google.spanner.v1.Spanner/Commit"
STREAMING = ("/google.spanner.v1.Spanner/ExecuteStreamingSql", "/google.spanner.v1.Spanner/StreamingRead")
NO_DEADLINE_S = 1e9  # time_remaining() beyond this: the caller set no deadline
HOP_HEADERS = {"user-agent", "te", "content-type", "grpc-timeout", "grpc-accept-encoding", "grpc-encoding"}


def _remaining(context: grpc.ServicerContext) -> float | None:
    """The call's time left, None without a deadline: grpc answers time_remaining() ~9.2e18 s then,
    and passed on as a timeout that overflows into an expired deadline (DEADLINE_EXCEEDED at once)."""
    left = context.time_remaining()
    return left if left is not None and left < NO_DEADLINE_S else None


class CommitDroppingProxy(grpc.GenericRpcHandler):
    def __init__(self, upstream: str) -> None:
        self._channel = grpc.insecure_channel(upstream)
        # a thread per call in flight: two Go workers' pollers, readers and 8 writes each held 8
        # threads, and a setup query queued behind them past its deadline (DEADLINE_EXCEEDED)
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=64))
        self._server.add_generic_rpc_handlers((self,))
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        self.drop_commits = threading.Event()
        self.commits_forwarded = 0
        self.commits_dropped = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> CommitDroppingProxy:
        self._server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.stop(grace=None)
        self._channel.close()

    @staticmethod
    def _metadata(context: grpc.ServicerContext) -> list[tuple[str, Any]]:
        return [(k, v) for k, v in context.invocation_metadata() if k not in HOP_HEADERS and not k.startswith(":")]

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = handler_call_details.method  # type: ignore[attr-defined]
        if method in STREAMING:
            stream = self._channel.unary_stream(method)

            def forward_stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
                yield from stream(request, metadata=self._metadata(context), timeout=_remaining(context))

            return grpc.unary_stream_rpc_method_handler(forward_stream)
        unary = self._channel.unary_unary(method)

        def forward(request: bytes, context: grpc.ServicerContext) -> bytes:
            try:
                response: bytes = unary(request, metadata=self._metadata(context), timeout=_remaining(context))
            except grpc.RpcError as err:
                context.abort(err.code(), err.details() or "")
            if method == COMMIT:
                self.commits_forwarded += 1
                if self.drop_commits.is_set():
                    self.commits_dropped += 1
                    remaining = context.time_remaining()
                    time.sleep(min(remaining if remaining is not None else 5.0, 30.0) + 0.2)  # the answer is lost
            return response

        return grpc.unary_unary_rpc_method_handler(forward)
