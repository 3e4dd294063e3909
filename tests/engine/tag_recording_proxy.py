"""The raw-bytes proxy of commit_dropping_proxy.py, also decoding each data request's RequestOptions
with the official client's message classes: what tags reached the wire, RPC by RPC."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import grpc
from google.cloud.spanner_v1 import (
    BatchWriteRequest,
    BeginTransactionRequest,
    CommitRequest,
    ExecuteBatchDmlRequest,
    ExecuteSqlRequest,
    ReadRequest,
)

from tests.engine.commit_dropping_proxy import CommitDroppingProxy

REQUESTS: dict[str, Any] = {
    "ExecuteSql": ExecuteSqlRequest,
    "ExecuteStreamingSql": ExecuteSqlRequest,
    "Read": ReadRequest,
    "StreamingRead": ReadRequest,
    "ExecuteBatchDml": ExecuteBatchDmlRequest,
    "BeginTransaction": BeginTransactionRequest,
    "Commit": CommitRequest,
    "BatchWrite": BatchWriteRequest,
}


class TagRecordingProxy(CommitDroppingProxy):
    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self._lock = threading.Lock()
        self.seen: list[tuple[str, str, str, Any]] = []  # (rpc, request_tag, transaction_tag, request)

    def _record(self, rpc: str, raw: bytes) -> None:
        request = REQUESTS[rpc].deserialize(raw)
        options = request.request_options
        with self._lock:
            self.seen.append((rpc, options.request_tag, options.transaction_tag, request))

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = super().service(handler_call_details)
        rpc = str(handler_call_details.method).rsplit("/", 1)[-1]  # type: ignore[attr-defined]
        if handler is None or rpc not in REQUESTS:
            return handler
        field = "unary_stream" if handler.unary_stream is not None else "unary_unary"
        forward: Callable[[bytes, grpc.ServicerContext], Any] = getattr(handler, field)

        def recorded(request: bytes, context: grpc.ServicerContext) -> Any:
            self._record(rpc, request)
            return forward(request, context)

        return handler._replace(**{field: recorded})  # type: ignore[attr-defined,no-any-return]
