"""The raw-bytes proxy of commit_dropping_proxy.py, also keeping every answer to a read of the local
Spanner's SPANNER_SYS.SPANLOAD_COUNTERS (spanner/stats.py's ``COUNTERS_SQL``), decoded with the
official client's message classes: the running totals exactly as the worker that read them saw
them, read by read, so that a test can compute each interval's gauges from them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.cloud.spanner_v1 import ExecuteSqlRequest, PartialResultSet

from spanload.spanner.stats import COUNTERS_SQL, Counters
from tests.engine.commit_dropping_proxy import CommitDroppingProxy

EXECUTE_STREAMING_SQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"
COLUMNS = 6  # of COUNTERS_SQL's one row


def _counters(values: list[Any]) -> Counters:
    """One row of COUNTERS_SQL (INT64 travels as a string, FLOAT64 as a number); ``at`` is unknown
    here (the reader's own clock), 0."""
    commits, participants, commit_s, model_cpu_s, process_cpu_s, splits = values
    return Counters(
        0.0,
        int(commits.string_value),
        int(participants.string_value),
        commit_s.number_value,
        model_cpu_s.number_value,
        process_cpu_s.number_value,
        int(splits.string_value),
    )


class CountersRecordingProxy(CommitDroppingProxy):
    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self._lock = threading.Lock()
        self.readings: list[Counters] = []  # in the order the server answered them

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = super().service(handler_call_details)
        if handler is None or handler_call_details.method != EXECUTE_STREAMING_SQL:  # type: ignore[attr-defined]
            return handler
        forward: Callable[[bytes, grpc.ServicerContext], Iterator[bytes]] = handler.unary_stream

        def recorded(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
            if ExecuteSqlRequest.pb().FromString(request).sql != COUNTERS_SQL:
                yield from forward(request, context)
                return
            values: list[Any] = []
            for raw in forward(request, context):
                part = PartialResultSet.pb().FromString(raw)
                assert not part.chunked_value, "a row of six numbers is never chunked"
                values.extend(part.values)
                if len(values) == COLUMNS and part.values:
                    # kept before the reader has it: a reader may cancel the stream once it has its row
                    with self._lock:
                        self.readings.append(_counters(values))
                yield raw

        return handler._replace(unary_stream=recorded)  # type: ignore[attr-defined,no-any-return]
