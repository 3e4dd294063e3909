"""Issue 8, "Running it": the ready line, clean stops, recovered panics, UNIMPLEMENTED names the method."""

from __future__ import annotations

import re
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import (
    BatchCreateSessionsRequest,
    CommitRequest,
    CreateSessionRequest,
    ExecuteSqlRequest,
    ReadRequest,
    Type,
    TypeCode,
)
from google.cloud.spanner_v1.instance import Instance
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.cloud.spanner_v1.types import KeySet
from google.protobuf import struct_pb2

from .conftest import SpannerDb, create_database
from .rpc_recorder import raw_spanner_client
from .server_process import BINARY, ServerProcess, start_server

READY_LINE = re.compile(r"listening on (127\.0\.0\.1):(\d+)\s*$")


def test_ready_line_names_the_address(local_spanner: ServerProcess) -> None:
    match = READY_LINE.search(local_spanner.ready_line)
    assert match, f"ready line does not end with 'listening on 127.0.0.1:PORT': {local_spanner.ready_line!r}"
    port = int(match.group(2))
    assert port != 0, "with --port 0 the ready line must name the port really picked, not 0"
    with socket.create_connection((match.group(1), port), timeout=5):
        pass


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_stops_the_server_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    server = start_server(tmp_path / "server.log")
    try:
        server.process.send_signal(sig)
        code = server.process.wait(timeout=10)
    finally:
        server.stop()
    assert code == 0, f"exit code after {sig.name} is {code}, expected 0; log:\n{server.log_tail()}"
    with pytest.raises(OSError):
        socket.create_connection((server.host, server.port), timeout=2).close()


def test_spanload_local_spanner_command_runs_the_server(tmp_path: Path) -> None:
    """`spanload local-spanner --host --port --data-dir` runs the Go binary; SIGTERM stops it."""
    spanload = BINARY.parent / "spanload"
    server = start_server(
        tmp_path / "cli.log", data_dir=tmp_path / "data", binary=spanload, subcommand=("local-spanner",)
    )
    try:
        assert READY_LINE.search(server.ready_line), server.ready_line
        with socket.create_connection((server.host, server.port), timeout=5):
            pass
    finally:
        code = server.stop()
    assert code == 0, f"`spanload local-spanner` exited {code} on SIGTERM:\n{server.log_tail()}"


@pytest.fixture(scope="module")
def plain_db(instance: Instance, local_spanner: ServerProcess) -> Iterator[SpannerDb]:
    tdb = create_database(
        instance, local_spanner.address, ["CREATE TABLE T (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)"]
    )
    yield tdb
    tdb.database.drop()


@pytest.fixture(scope="module")
def raw(local_spanner: ServerProcess) -> SpannerClient:
    return raw_spanner_client(local_spanner.address)


# What Cloud Spanner answers each malformed request, and how its message begins: the official
# emulator's texts (GoogleCloudPlatform/cloud-spanner-emulator, common/errors.cc, written to match
# Cloud Spanner's) where it rejects the request: an unparsable session or database name is an invalid
# argument ("Invalid session uri: ", "Invalid database uri: "), a missing one NOT_FOUND ("Session not
# found: ", "Database not found: "); a missing required field is "No value provided for required field:
# Message.field" (the emulator's text for a Commit without a transaction; ReadRequest.columns is
# REQUIRED in Spanner's API); a Read with no table gets the emulator's "Mutation does not specify
# table."; a key value of the wrong kind FAILED_PRECONDITION "Could not parse <value> as <TYPE>"; a
# statement that does not parse GoogleSQL's "Syntax error: ". For the 5000-deep expression neither
# Spanner's documentation nor the emulator gives a text: INVALID_ARGUMENT, and the position like a
# syntax error's.
EXPECTED: dict[str, tuple[type[gexc.GoogleAPICallError], str]] = {
    "ExecuteSql with an empty session name": (gexc.InvalidArgument, "Invalid session uri: "),
    "ExecuteSql on a session that never existed": (gexc.NotFound, "Session not found: projects/"),
    "CreateSession with an empty database name": (gexc.InvalidArgument, "Invalid database uri: "),
    "CreateSession for a missing database": (gexc.NotFound, "Database not found: projects/"),
    "BatchCreateSessions with session_count 0": (
        gexc.InvalidArgument,
        "Invalid number of sessions 0. Requested sessions should be greater than 0.",
    ),
    "Commit with no transaction at all": (
        gexc.InvalidArgument,
        "No value provided for required field: CommitRequest.transaction",
    ),
    "Read with no table": (gexc.InvalidArgument, "Mutation does not specify table."),
    "Read with no columns": (gexc.InvalidArgument, "No value provided for required field: ReadRequest.columns"),
    "Read with a key of the wrong type": (gexc.FailedPrecondition, "Could not parse "),
    "ExecuteSql with an ARRAY parameter type that has no element type": (
        gexc.InvalidArgument,
        "Array types must specify element type, found ",
    ),
    "ExecuteSql with an empty statement": (gexc.InvalidArgument, "Syntax error: Unexpected end of statement [at 1:1]"),
    "ExecuteSql with a 5000-deep expression": (gexc.InvalidArgument, ""),
}
# messages given whole (up to the statement and caret a syntax error adds on its next lines); the others
# go on with the value they name (a URI, a key, a type)
WHOLE = {
    "ExecuteSql with an empty session name",
    "CreateSession with an empty database name",
    "BatchCreateSessions with session_count 0",
    "Commit with no transaction at all",
    "Read with no table",
    "Read with no columns",
    "ExecuteSql with an empty statement",
}


def _session(raw: SpannerClient, tdb: SpannerDb) -> str:
    name: str = raw.create_session(CreateSessionRequest(database=tdb.database.name)).name
    return name


MALFORMED: dict[str, Callable[[SpannerClient, SpannerDb], Any]] = {
    "ExecuteSql with an empty session name": lambda raw, tdb: raw.execute_sql(
        ExecuteSqlRequest(session="", sql="SELECT 1")
    ),
    "ExecuteSql on a session that never existed": lambda raw, tdb: raw.execute_sql(
        ExecuteSqlRequest(session=tdb.database.name + "/sessions/nosuchsession", sql="SELECT 1")
    ),
    "CreateSession with an empty database name": lambda raw, tdb: raw.create_session(CreateSessionRequest(database="")),
    "CreateSession for a missing database": lambda raw, tdb: raw.create_session(
        CreateSessionRequest(database=tdb.database.name + "x")
    ),
    "BatchCreateSessions with session_count 0": lambda raw, tdb: raw.batch_create_sessions(
        BatchCreateSessionsRequest(database=tdb.database.name, session_count=0)
    ),
    "Commit with no transaction at all": lambda raw, tdb: raw.commit(CommitRequest(session=_session(raw, tdb))),
    "Read with no table": lambda raw, tdb: list(
        raw.streaming_read(ReadRequest(session=_session(raw, tdb), table="", columns=["Id"], key_set=KeySet(all_=True)))
    ),
    "Read with no columns": lambda raw, tdb: list(
        raw.streaming_read(ReadRequest(session=_session(raw, tdb), table="T", columns=[], key_set=KeySet(all_=True)))
    ),
    "Read with a key of the wrong type": lambda raw, tdb: list(
        raw.streaming_read(
            ReadRequest(
                session=_session(raw, tdb),
                table="T",
                columns=["Id"],
                key_set=KeySet(
                    keys=[struct_pb2.ListValue(values=[struct_pb2.Value(struct_value=struct_pb2.Struct())])]
                ),
            )
        )
    ),
    "ExecuteSql with an ARRAY parameter type that has no element type": lambda raw, tdb: list(
        raw.execute_streaming_sql(
            ExecuteSqlRequest(
                session=_session(raw, tdb),
                sql="SELECT @p",
                params=struct_pb2.Struct(fields={"p": struct_pb2.Value(list_value=struct_pb2.ListValue())}),
                param_types={"p": Type(code=TypeCode.ARRAY)},
            )
        )
    ),
    "ExecuteSql with an empty statement": lambda raw, tdb: raw.execute_sql(
        ExecuteSqlRequest(session=_session(raw, tdb), sql="")
    ),
    "ExecuteSql with a 5000-deep expression": lambda raw, tdb: raw.execute_sql(
        ExecuteSqlRequest(session=_session(raw, tdb), sql="SELECT " + "(" * 5000 + "1" + ")" * 5000)
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_request_gets_a_clear_status_and_never_crashes(
    case: str, raw: SpannerClient, plain_db: SpannerDb, local_spanner: ServerProcess
) -> None:
    """A bad request gets a client-error status with a message, never INTERNAL, and the process stays up."""
    with pytest.raises(gexc.GoogleAPICallError) as info:
        MALFORMED[case](raw, plain_db)
    err = info.value
    assert local_spanner.alive(), f"{case}: the server process died:\n{local_spanner.log_tail()}"
    code, start = EXPECTED[case]
    assert type(err) is code, (
        f"{case}: Spanner answers {code.__name__}, got {type(err).__name__}: "
        f"{err.message} (INTERNAL means a recovered panic or an error the server did not map)"
    )
    message = err.message.split(", request_id = ")[0].split("\n")[0]
    if case in WHOLE:
        assert message == start, f"{case}: {message!r}"
    else:
        assert message.startswith(start) and len(message) > len(start), f"{case}: {message!r}"
    if case == "ExecuteSql with a 5000-deep expression":
        assert re.search(r"\[at 1:\d+\]$", message), f"{case}: no position in {message!r}"
    # The server still answers normal requests afterwards.
    with plain_db.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT 1")) == [[1]]


def _raw_call(address: str, method: str) -> grpc.RpcError:
    with grpc.insecure_channel(address) as channel:
        stub = channel.unary_unary(method, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        try:
            stub(b"", timeout=10)
        except grpc.RpcError as err:
            return err
    raise AssertionError(f"{method} answered OK to an empty request")


@pytest.mark.parametrize(
    "method",
    [
        "/google.spanner.v1.Spanner/NoSuchMethod",
        "/google.spanner.admin.database.v1.DatabaseAdmin/NoSuchMethod",
        "/google.spanner.admin.nosuch.v1.NoSuchService/DoIt",
    ],
)
def test_unknown_method_is_unimplemented_and_named(local_spanner: ServerProcess, method: str) -> None:
    err = _raw_call(local_spanner.address, method)
    assert err.code() == grpc.StatusCode.UNIMPLEMENTED, f"{method}: {err.code()} {err.details()}"
    assert method.rsplit("/", 1)[1] in (err.details() or ""), f"message does not name the method: {err.details()}"


@pytest.mark.parametrize(
    "method",
    [
        "/google.spanner.admin.database.v1.DatabaseAdmin/RestoreDatabase",
        "/google.spanner.admin.database.v1.DatabaseAdmin/CreateBackup",
        "/google.spanner.admin.instance.v1.InstanceAdmin/CreateInstancePartition",
    ],
)
def test_real_but_unimplemented_method_is_named(local_spanner: ServerProcess, method: str) -> None:
    err = _raw_call(local_spanner.address, method)
    assert err.code() == grpc.StatusCode.UNIMPLEMENTED, f"{method}: {err.code().name} {err.details()}"
    assert method.rsplit("/", 1)[1] in (err.details() or ""), f"message does not name the method: {err.details()}"
