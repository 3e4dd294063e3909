"""The embedded local Spanner: find its binary, run it as a child process, report on it."""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from spanload.model.errors import Unavailable

logger = logging.getLogger(__name__)

BINARY_NAME = "spanload-local-spanner"
READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
READY_MARKER = " listening on "


class LocalSpannerError(Unavailable):
    """The local Spanner binary is missing or did not start."""


class ServerState(StrEnum):
    UP = "up"
    DOWN = "down"


def find_executable(name: str, configured: Path | None = None) -> Path | None:
    """An executable from settings, else beside this Python (the venv's bin, where `make install`
    puts the Go binaries), else on PATH; None if there is none."""
    candidates = [configured] if configured else []
    candidates.append(Path(sys.executable).parent / name)
    on_path = shutil.which(name)
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate and candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_binary(configured: Path | None = None) -> Path:
    """The local Spanner's binary (see :func:`find_executable`). Raises :class:`LocalSpannerError`."""
    found = find_executable(BINARY_NAME, configured)
    if found is None:
        raise LocalSpannerError(
            f"{BINARY_NAME} was not found beside {sys.executable} or on PATH; build it with `make install`"
        )
    return found


def binary_version(binary: Path) -> str:
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=10, check=True)
    return out.stdout.strip().rsplit(" ", 1)[-1]


@dataclass
class LocalSpanner:
    """A running local Spanner child process. Stop it with :meth:`stop`."""

    process: subprocess.Popen[str]
    address: str
    version: str
    _log_thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def state(self) -> ServerState:
        return ServerState.UP if self.process.poll() is None else ServerState.DOWN

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                logger.warning("local Spanner did not stop within %.0f s; killing it", STOP_TIMEOUT_S)
                self.process.kill()
                self.process.wait()


def start_local_spanner(
    host: str = "127.0.0.1", port: int = 0, data_dir: Path | None = None, binary: Path | None = None
) -> LocalSpanner:
    """Start the server and wait for its ready line. ``port=0`` picks a free port."""
    exe = find_binary(binary)
    args = [str(exe), "--host", host, "--port", str(port)]
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
        args += ["--data-dir", str(data_dir)]
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        start_new_session=True,  # Ctrl-C reaches serve, which stops the server in order
        preexec_fn=_die_with_parent,
    )
    deadline = time.monotonic() + READY_TIMEOUT_S
    assert process.stdout is not None
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip())
        if READY_MARKER in line:
            address = line.rsplit(READY_MARKER, 1)[1].strip()
            version = line.split(READY_MARKER, 1)[0].strip().rsplit(" ", 1)[-1]
            server = LocalSpanner(process=process, address=address, version=version)
            server._log_thread = threading.Thread(
                target=_forward_logs, args=(process,), name="local-spanner-log", daemon=True
            )
            server._log_thread.start()
            logger.info("local Spanner %s listening on %s", version, address)
            return server
    process.kill()
    process.wait()
    tail = "\n".join(lines[-5:]) or "(no output)"
    raise LocalSpannerError(f"{exe.name} did not become ready within {READY_TIMEOUT_S:.0f} s: {tail}")


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: ask Linux to SIGTERM it when its parent dies, so a killed
    `serve` never leaves a server holding its port."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the server is stopped by `stop()` only
        pass


def _forward_logs(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        logger.info("local-spanner: %s", line.rstrip())


def exec_local_spanner(host: str, port: int, data_dir: str | None) -> int:
    """`spanload local-spanner`: replace this process with the Go server.
    Raises :class:`LocalSpannerError` when there is no binary."""
    exe = find_binary()
    args = [str(exe), "--host", host, "--port", str(port)]
    if data_dir:
        args += ["--data-dir", data_dir]
    os.execv(exe, args)


def is_listening(address: str, timeout_s: float = 0.5) -> bool:
    """Whether something accepts TCP connections at ``host:port``."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return True
    except (OSError, ValueError):
        return False


def ensure_local_spanner(
    host: str, port: int, data_dir: Path | None = None, binary: Path | None = None
) -> tuple[str, LocalSpanner | None]:
    """The address of a local Spanner at ``host:port``: the one already listening there, or
    one started now (``port=0`` always starts one on a free port). Returns the address and the
    server started, if any, which the caller must stop."""
    if port and is_listening(f"{host}:{port}"):
        return f"{host}:{port}", None
    server = start_local_spanner(host, port, data_dir, binary)
    return server.address, server
