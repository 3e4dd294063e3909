"""`spanload serve` where the local Spanner's port or data directory is taken (issue 30, "A taken
port"): it uses a local Spanner of its own data directory that listens there already; anything else
is one sentence on stderr saying what holds it and how to choose another port, and exit code 1, at
once, with no traceback. Never port 9010 itself: it may be taken on the machine running the tests."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from spanload.spanner.local_server import LocalSpanner, LocalSpannerError, local_spanner_at, start_local_spanner
from tests.helpers import VENV_BIN, ServeProcess, alive, free_port

SERVE_TIMEOUT_S = 180  # a hang guard: serve must exit by itself
HOW_TO_MOVE = "stop it, or set SPANLOAD_LOCAL_SPANNER_PORT to another port (0 picks a free one)."


def _serve(data_dir: Path, spanner_port: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "spanload"), "serve", "--port", str(free_port()), "--data-dir", str(data_dir)],
        env={
            **os.environ,
            "SPANLOAD_LOCAL_SPANNER_PORT": str(spanner_port),
            "SPANNER_DISABLE_BUILTIN_METRICS": "true",
        },
        capture_output=True,
        text=True,
        timeout=SERVE_TIMEOUT_S,
        check=False,
    )


def _one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def local_spanner(tmp_path: Path) -> Iterator[LocalSpanner]:
    """A local Spanner of ``tmp_path / "other"`` on a free port."""
    server = start_local_spanner(port=0, data_dir=tmp_path / "other")
    try:
        yield server
    finally:
        server.stop()


def test_a_port_held_by_something_else_is_one_sentence_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as dummy:  # listens, never answers
        dummy.bind(("127.0.0.1", 0))
        dummy.listen()
        port = dummy.getsockname()[1]
        result = _serve(tmp_path, port)
    assert result.returncode == 1, result.stderr
    assert _one_sentence(result) == (
        f"spanload serve: 127.0.0.1:{port}, where the local Spanner is to listen, is held by something that did "
        f"not answer a Spanner request within 5 s; {HOW_TO_MOVE}"
    )


def test_a_dashboard_port_in_use_is_one_sentence_and_exit_1_before_the_local_spanner_starts(tmp_path: Path) -> None:
    # Found starting a second serve on a taken --port: it started its local Spanner, printed the
    # other serve's address as its own dashboard, migrated its store, then uvicorn's
    # "[Errno 98] ... address already in use" among its log lines, and exit code 3
    with socket.socket() as dummy:
        dummy.bind(("127.0.0.1", 0))
        dummy.listen()
        port = dummy.getsockname()[1]
        result = subprocess.run(
            [str(VENV_BIN / "spanload"), "serve", "--port", str(port), "--data-dir", str(tmp_path)],
            env={**os.environ, "SPANLOAD_LOCAL_SPANNER_PORT": str(free_port())},
            capture_output=True,
            text=True,
            timeout=SERVE_TIMEOUT_S,
            check=False,
        )
    assert result.returncode == 1, result.stderr
    assert _one_sentence(result) == (
        f"spanload serve: 127.0.0.1:{port}, where the dashboard is to listen, is in use; stop what holds it, "
        "or choose another port with --port."
    )
    assert result.stdout == ""
    assert not (tmp_path / "local-spanner").exists(), "the local Spanner was started"


def test_a_local_spanner_of_another_data_directory_is_named_not_used(
    tmp_path: Path, local_spanner: LocalSpanner
) -> None:
    result = _serve(tmp_path / "serve", int(local_spanner.address.rpartition(":")[2]))
    assert result.returncode == 1, result.stderr
    assert _one_sentence(result) == (
        f"spanload serve: {local_spanner.address}, where the local Spanner is to listen, is held by a Spanload "
        f"local Spanner {local_spanner.version} (pid {local_spanner.process.pid}) of {tmp_path / 'other'}, "
        f"not of {tmp_path / 'serve' / 'local-spanner'}; {HOW_TO_MOVE}"
    )
    assert local_spanner.process.poll() is None, "serve must leave another's server alone"


def test_a_data_directory_held_by_a_server_on_another_port_is_one_sentence_and_exit_1(tmp_path: Path) -> None:
    """The port is free, but the data directory is another server's: the child serve starts is
    refused by the directory's lock, and serve says so as the child dies."""
    holder = start_local_spanner(port=0, data_dir=tmp_path / "local-spanner")
    try:
        result = _serve(tmp_path, free_port())
    finally:
        holder.stop()
    assert result.returncode == 1, result.stderr
    assert _one_sentence(result) == (
        "spanload serve: spanload-local-spanner exited with code 1 before it was ready: spanload-local-spanner: "
        f"cannot open data directory: {tmp_path / 'local-spanner'} is in use by another spanload-local-spanner "
        f"(pid {holder.process.pid}); stop it or choose another --data-dir"
    )


def test_a_local_spanner_of_its_own_data_directory_is_used(tmp_path: Path) -> None:
    server = start_local_spanner(port=0, data_dir=tmp_path / "local-spanner")  # as `spanload run` leaves one
    try:
        with ServeProcess(tmp_path, env={"SPANLOAD_LOCAL_SPANNER_PORT": server.address.rpartition(":")[2]}) as serve:
            local = serve.health["local_spanner"]
            assert (local["address"], local["state"], local["pid"], local["restarts"]) == (
                server.address,
                "up",
                server.process.pid,
                0,
            )
            assert not serve.children, "serve started a local Spanner of its own"
            assert f"already listening on {server.address}" in serve.output
            assert serve.stop() == 0, serve.output
        assert alive(server.process.pid), "serve stopped a local Spanner it did not start"
    finally:
        server.stop()


def test_a_usage_problem_with_the_port_exits_2(tmp_path: Path) -> None:
    result = _serve(tmp_path, 70000)
    assert result.returncode == 2, result.stderr
    assert _one_sentence(result) == (
        "spanload serve: SPANLOAD_LOCAL_SPANNER_PORT: Input should be less than or equal to 65535."
    )


# What holds the port, told apart by the probe alone (no serve process): a Spanner that is not
# Spanload's, a gRPC server without Spanner's API, something that closes the connection.

_INSTANCE_ADMIN = "google.spanner.admin.instance.v1.InstanceAdmin"


@contextmanager
def _grpc_server(*handlers: grpc.GenericRpcHandler) -> Iterator[int]:
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers(handlers)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(grace=None)


@contextmanager
def _closing_listener() -> Iterator[int]:
    """Accepts every connection and closes it at once."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        done = threading.Event()

        def serve() -> None:
            while not done.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                conn.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield listener.getsockname()[1]
        finally:
            done.set()
            thread.join()


def _refusal(port: int, data_dir: Path) -> str:
    with pytest.raises(LocalSpannerError) as raised:
        local_spanner_at("127.0.0.1", port, data_dir)
    return str(raised.value)


def test_the_probe_tells_what_holds_the_port(tmp_path: Path) -> None:
    def answer(_request: bytes, _context: grpc.ServicerContext) -> bytes:
        return b""  # an empty ListInstanceConfigsResponse, and no identity

    spanner = grpc.method_handlers_generic_handler(
        _INSTANCE_ADMIN, {"ListInstanceConfigs": grpc.unary_unary_rpc_method_handler(answer)}
    )
    with _grpc_server(spanner) as port:
        assert _refusal(port, tmp_path) == (
            f"127.0.0.1:{port}, where the local Spanner is to listen, is held by a Spanner server that is not a "
            f"Spanload local Spanner (the official emulator?); {HOW_TO_MOVE}"
        )
    with _grpc_server() as port:
        assert _refusal(port, tmp_path) == (
            f"127.0.0.1:{port}, where the local Spanner is to listen, is held by a gRPC server that does not "
            f"serve Spanner's API; {HOW_TO_MOVE}"
        )
    with _closing_listener() as port:
        assert _refusal(port, tmp_path) == (
            f"127.0.0.1:{port}, where the local Spanner is to listen, is held by something that does not speak "
            f"Spanner's gRPC API; {HOW_TO_MOVE}"
        )


def test_a_free_port_or_port_0_means_start_one(tmp_path: Path) -> None:
    assert local_spanner_at("127.0.0.1", free_port(), tmp_path) is None
    assert local_spanner_at("127.0.0.1", 0, tmp_path) is None
