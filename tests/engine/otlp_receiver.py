"""A tiny OTLP/HTTP trace receiver: POST /v1/traces with a protobuf ExportTraceServiceRequest (the
message classes of opentelemetry-proto), kept as (span name, attributes) for the test to read."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

TRACES_PATH = "/v1/traces"


def _value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


class OtlpReceiver:
    def __init__(self) -> None:
        self.spans: list[tuple[str, dict[str, Any]]] = []
        self.bad: list[str] = []  # requests it could not take
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != TRACES_PATH or self.headers.get("Content-Type") != "application/x-protobuf":
                    receiver.bad.append(f"{self.path} {self.headers.get('Content-Type')}")
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest.FromString(body)
                with lock:
                    for resource_spans in request.resource_spans:
                        for scope_spans in resource_spans.scope_spans:
                            for span in scope_spans.spans:
                                attrs = {a.key: _value(a.value) for a in span.attributes}
                                receiver.spans.append((span.name, attrs))
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *_: object) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
