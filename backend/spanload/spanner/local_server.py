"""The embedded local Spanner: find its binary, run it as a child process, report on it."""

from __future__ import annotations

import ctypes
import json
import logging
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from spanload.model.errors import Unavailable
from spanload.model.settings import Settings

logger = logging.getLogger(__name__)

BINARY_NAME = "spanload-local-spanner"
READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
READY_MARKER = " listening on "
# A server that exits before its ready line is reported when it exits (checked every _POLL_S), with
# the output it printed until then (waited for at most EXIT_OUTPUT_GRACE_S after the exit).
_POLL_S = 0.1
EXIT_OUTPUT_GRACE_S = 2.0


class LocalSpannerError(Unavailable):
    """The local Spanner binary is missing or did not start."""


class ServerState(StrEnum):
    UP = "up"
    RESTARTING = "restarting"  # it died; serve starts it again after a backoff
    DOWN = "down"


# Restarts of a local Spanner that died: the first after RESTART_BACKOFF_S, each further one in a row
# after twice the previous wait (at most RESTART_BACKOFF_MAX_S); a server that then stays up for
# RESTART_STABLE_S brings the wait back to the first.
RESTART_BACKOFF_S = 0.5
RESTART_BACKOFF_MAX_S = 10.0
RESTART_STABLE_S = 30.0


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


def exit_description(code: int) -> str:
    """How a child process ended, as a phrase: "was killed by SIGKILL", "exited with code 2"."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


@dataclass(frozen=True)
class TargetChange:
    """The supervised local Spanner went down (``up=False``) or is back (``up=True``)."""

    up: bool
    address: str
    restarts: int
    reason: str | None = None  # why it went down
    wait_s: float | None = None  # when it went down: the wait before it is started again
    down_s: float | None = None  # how long it was down, when it is back

    def fields(self) -> dict[str, object]:
        """What a timeline event of it says: address, restarts, and the reason, wait or outage known."""
        out: dict[str, object] = {"address": self.address, "restarts": self.restarts}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.wait_s is not None:
            out["restart_in_s"] = self.wait_s
        if self.down_s is not None:
            out["down_s"] = round(self.down_s, 3)
        return out


class SupervisedLocalSpanner:
    """The local Spanner of `serve`, started again when it dies: on the same address and data
    directory (so nothing written is lost, its sessions included), after a backoff that doubles
    while it keeps dying and comes back to ``backoff_s`` once it stayed up ``stable_s``.

    ``start`` replaces the program supervised (PGAdapter's, :mod:`spanload.spanner.pgadapter`):
    called with the host and port, it returns the child once it is ready; ``name`` is how the log
    and the changes call it.

    Restarted servers are children of the supervising thread, which lives until :meth:`stop`
    (Linux ends a child with the thread that started it, see :func:`_die_with_parent`).

    ``on_change`` is called from the supervising thread when it goes down and when it is back.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        data_dir: Path | None = None,
        binary: Path | None = None,
        backoff_s: float = RESTART_BACKOFF_S,
        backoff_max_s: float = RESTART_BACKOFF_MAX_S,
        stable_s: float = RESTART_STABLE_S,
        on_change: Callable[[TargetChange], None] | None = None,
        start: Callable[[str, int], LocalSpanner] | None = None,
        name: str = "local Spanner",
    ) -> None:
        self.host = host
        self.name = name
        self._start = start or (lambda h, p: start_local_spanner(h, p, data_dir, binary))
        self.data_dir = data_dir
        self.binary = binary
        self.backoff_s = backoff_s
        self.backoff_max_s = max(backoff_max_s, backoff_s)
        self.stable_s = stable_s
        self.on_change = on_change
        self.restarts = 0
        self.last_exit: str | None = None
        self.next_wait_s = backoff_s  # the wait before the next restart
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._state = ServerState.DOWN
        self._server = self._start(host, port)  # port 0: the one it got is kept
        self.address = self._server.address
        self.version = self._server.version
        self._up_since = time.monotonic()
        self._state = ServerState.UP
        self._thread = threading.Thread(target=self._supervise, name=f"{name}-supervisor", daemon=True)
        self._thread.start()

    @property
    def state(self) -> ServerState:
        return self._state

    @property
    def pid(self) -> int | None:
        """The running server's process id; None while it is being restarted."""
        with self._lock:
            return self._server.process.pid if self._state is ServerState.UP else None

    def _supervise(self) -> None:
        while True:
            code = self._server.process.wait()
            if self._stopping.is_set():
                return
            went_down = time.monotonic()
            if went_down - self._up_since >= self.stable_s:
                self.next_wait_s = self.backoff_s  # it had been up a good while: start again quickly
            with self._lock:
                self._state = ServerState.RESTARTING
                self.last_exit = exit_description(code)
            reason = f"{self.name} {self.last_exit}"
            logger.error("%s; restarting it in %.1f s", reason, self.next_wait_s)
            self._notify(TargetChange(False, self.address, self.restarts, reason=reason, wait_s=self.next_wait_s))
            server = self._restart()
            if server is None:
                return
            with self._lock:
                if self._stopping.is_set():
                    server.stop()
                    return
                self._server = server
                self.restarts += 1
                self._up_since = time.monotonic()
                self._state = ServerState.UP
            down_s = self._up_since - went_down
            logger.info("%s is back on %s after %.1f s (restart %d)", self.name, self.address, down_s, self.restarts)
            self._notify(TargetChange(True, self.address, self.restarts, down_s=down_s))

    def _restart(self) -> LocalSpanner | None:
        """Start the server again on its address after the backoff, as often as it takes; None
        once :meth:`stop` was called."""
        host, _, port = self.address.rpartition(":")
        while not self._stopping.wait(self.next_wait_s):
            self.next_wait_s = min(self.next_wait_s * 2, self.backoff_max_s)
            try:
                return self._start(host, int(port))
            except (Unavailable, OSError) as err:
                logger.error("%s did not restart: %s; trying again in %.1f s", self.name, err, self.next_wait_s)
        return None

    def _notify(self, change: TargetChange) -> None:
        if self.on_change is None:
            return
        try:
            self.on_change(change)
        except Exception:  # a listener's bug must not end the supervision
            logger.exception("%s change listener failed", self.name)

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            server = self._server
            self._state = ServerState.DOWN
        server.stop()
        self._thread.join(timeout=STOP_TIMEOUT_S)


class ExternalLocalSpanner:
    """A local Spanner of `serve`'s data directory that was listening on its address already (started
    by `spanload run` or `spanload local-spanner`): used as it is, reported up while it listens, and
    neither restarted nor stopped by `serve`."""

    restarts = 0
    last_exit: str | None = None

    def __init__(self, holder: PortHolder) -> None:
        self.address = holder.address
        self.version = holder.version
        self._pid = holder.pid
        self.on_change: Callable[[TargetChange], None] | None = None  # never called: nothing is supervised

    @property
    def state(self) -> ServerState:
        return ServerState.UP if is_listening(self.address) else ServerState.DOWN

    @property
    def pid(self) -> int | None:
        return self._pid if self.state is ServerState.UP else None

    def stop(self) -> None:
        """Nothing: it is not serve's to stop."""


ServeLocalSpanner = SupervisedLocalSpanner | ExternalLocalSpanner
"""The local Spanner that `serve` targets: its own child, or one it found running."""


def local_spanner_data_dir(settings: Settings) -> Path | None:
    """Where the local Spanner of these settings keeps its data; None: in memory."""
    return None if settings.local_spanner_in_memory else settings.data_dir / "local-spanner"


def supervise_local_spanner(settings: Settings) -> SupervisedLocalSpanner:
    """`serve`'s local Spanner, started now as the settings say. Raises :class:`LocalSpannerError`."""
    return SupervisedLocalSpanner(
        settings.local_spanner_host,
        settings.local_spanner_port,
        local_spanner_data_dir(settings),
        settings.local_spanner_binary,
        backoff_s=settings.local_spanner_restart_backoff_s,
        backoff_max_s=settings.local_spanner_restart_backoff_max_s,
    )


def start_local_spanner(
    host: str = "127.0.0.1", port: int = 0, data_dir: Path | None = None, binary: Path | None = None
) -> LocalSpanner:
    """Start the server and wait for its ready line. ``port=0`` picks a free port."""
    exe = find_binary(binary)
    args = [str(exe), "--host", host, "--port", str(port), "--exit-when-stdin-closes"]
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
        args += ["--data-dir", str(data_dir)]
    return start_child_server(args, exe.name, _local_spanner_ready, LocalSpannerError, parent_pipe=True)


def _local_spanner_ready(line: str) -> tuple[str, str] | None:
    """(address, version) from the local Spanner's ready line, None for any other line."""
    if READY_MARKER not in line:
        return None
    address = line.rsplit(READY_MARKER, 1)[1].strip()
    version = line.split(READY_MARKER, 1)[0].strip().rsplit(" ", 1)[-1]
    return address, version


def start_child_server(
    args: list[str],
    what: str,
    ready: Callable[[str], tuple[str, str] | None],
    error: type[Unavailable],
    env: dict[str, str] | None = None,
    parent_pipe: bool = False,
) -> LocalSpanner:
    """Start a server program and wait for the line ``ready`` reads its (address, version) from;
    it dies with this process (PR_SET_PDEATHSIG; and with ``parent_pipe``, for a server that stops
    when its standard input ends, a pipe whose write end only this process holds, which closes
    however this process ends: the death signal goes with the thread that started the child).
    Raises ``error`` with its last lines when it exits or is not ready within READY_TIMEOUT_S."""
    process = subprocess.Popen(
        args,
        stdin=subprocess.PIPE if parent_pipe else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        start_new_session=True,  # Ctrl-C reaches serve, which stops the server in order
        preexec_fn=_die_with_parent,
        env=env,
    )
    output: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=_read_output, args=(process, output, ready, what), name=f"{what}-log", daemon=True)
    reader.start()
    lines: list[str] = []
    ended = False  # its output ended
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        code = process.poll()
        if code is not None:  # it died: report it now, with what it printed
            if not ended:  # a grandchild may hold the pipe open: the rest is waited for briefly
                lines += _remaining(output, EXIT_OUTPUT_GRACE_S)
            raise error(f"{what} {exit_description(code)} before it was ready: {_tail(lines)}")
        try:
            line = output.get(timeout=_POLL_S)
        except queue.Empty:
            continue
        if line is None:
            ended = True
            continue
        lines.append(line)
        found = ready(line)
        if found is not None:
            address, version = found
            logger.info("%s %s listening on %s", what, version, address)
            return LocalSpanner(process=process, address=address, version=version, _log_thread=reader)
    process.kill()
    process.wait()
    raise error(f"{what} did not become ready within {READY_TIMEOUT_S:.0f} s: {_tail(lines)}")


def _read_output(
    process: subprocess.Popen[str],
    lines: queue.Queue[str | None],
    ready: Callable[[str], tuple[str, str] | None],
    what: str,
) -> None:
    """The server's output: each line to ``lines`` until its ready line (included), then to the log;
    None at its end."""
    assert process.stdout is not None
    is_ready = False
    for line in process.stdout:
        if is_ready:
            logger.info("%s: %s", what, line.rstrip())
            continue
        lines.put(line.rstrip())
        is_ready = ready(line) is not None
    if not is_ready:
        lines.put(None)


def _remaining(lines: queue.Queue[str | None], wait_s: float) -> list[str]:
    """The lines still to come from a server that exited, up to the end of its output or ``wait_s``."""
    found: list[str] = []
    deadline = time.monotonic() + wait_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        found.append(line)
    return found


def _tail(lines: list[str]) -> str:
    return "\n".join(lines[-5:]) or "(no output)"


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: ask Linux to SIGTERM it when its parent dies, so a killed
    `serve` never leaves a server holding its port."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the server is stopped by `stop()` only
        pass


def exec_local_spanner(host: str, port: int, data_dir: str | None) -> int:
    """`spanload local-spanner`: replace this process with the Go server.
    Raises :class:`LocalSpannerError` when there is no binary."""
    exe = find_binary()
    args = [str(exe), "--host", host, "--port", str(port)]  # its standard input is the user's: no parent pipe
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


# What holds a port: asked with one InstanceAdmin.ListInstanceConfigs call, whose answer from a
# Spanload local Spanner carries IDENTITY_HEADER (localspanner/frontend/identity.go).
IDENTITY_HEADER = "x-spanload-local-spanner-bin"
PROBE_TIMEOUT_S = 5.0
_PROBE_METHOD = "/google.spanner.admin.instance.v1.InstanceAdmin/ListInstanceConfigs"
PORT_SETTING = "SPANLOAD_LOCAL_SPANNER_PORT"


@dataclass(frozen=True)
class PortHolder:
    """What answers at an address: a Spanload local Spanner (``version`` set, ``data_dir`` None
    when it keeps its data in memory), another Spanner server, or something else (``what``)."""

    address: str
    what: str
    version: str | None = None
    pid: int | None = None
    data_dir: Path | None = None

    @property
    def is_local_spanner(self) -> bool:
        return self.version is not None

    def serves(self, data_dir: Path | None) -> bool:
        """Whether it is a local Spanner of ``data_dir`` (never one for data kept in memory)."""
        if not self.is_local_spanner or self.data_dir is None or data_dir is None:
            return False
        try:
            return os.path.samefile(self.data_dir, data_dir)
        except OSError:
            return False


def probe_port(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> PortHolder:
    """Ask what listens at ``host:port`` (call only when something does)."""
    import grpc  # here: `spanload local-spanner` and the engine import this module and need no gRPC
    from google.cloud.spanner_admin_instance_v1.types import ListInstanceConfigsRequest

    request = ListInstanceConfigsRequest.serialize(ListInstanceConfigsRequest(parent="projects/spanload-probe"))
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary(_PROBE_METHOD)
        try:
            _, answer = call.with_call(request, timeout=timeout_s)
            code, headers = grpc.StatusCode.OK, dict(answer.initial_metadata() or ())
        except grpc.RpcError as err:  # also a grpc.Call: its headers, if the server sent any
            code, headers = err.code(), dict(err.initial_metadata() or ())
    identity = headers.get(IDENTITY_HEADER)
    if identity is not None:
        found = json.loads(identity)
        return PortHolder(
            address,
            "a Spanload local Spanner",
            version=found["version"],
            pid=found["pid"],
            data_dir=Path(found["data_dir"]) if found["data_dir"] else None,
        )
    match code:
        case grpc.StatusCode.OK:
            return PortHolder(address, "a Spanner server that is not a Spanload local Spanner (the official emulator?)")
        case grpc.StatusCode.UNIMPLEMENTED:
            return PortHolder(address, "a gRPC server that does not serve Spanner's API")
        case grpc.StatusCode.DEADLINE_EXCEEDED:
            return PortHolder(address, f"something that did not answer a Spanner request within {timeout_s:.0f} s")
        case _:
            return PortHolder(address, "something that does not speak Spanner's gRPC API")


def describe_holder(holder: PortHolder) -> str:
    """``holder`` as the subject of a sentence: "a Spanload local Spanner 0.1.0 (pid 7) of /data"."""
    if not holder.is_local_spanner:
        return holder.what
    place = f"of {holder.data_dir}" if holder.data_dir is not None else "with its data in memory"
    return f"{holder.what} {holder.version} (pid {holder.pid}) {place}"


def local_spanner_at(host: str, port: int, data_dir: Path | None) -> PortHolder | None:
    """The local Spanner of ``data_dir`` already listening at ``host:port``, to be used as it is;
    None when nothing listens there (or ``port`` is 0), so one is to be started. Raises
    :class:`LocalSpannerError` naming what holds the port otherwise, and how to choose another."""
    address = f"{host}:{port}"
    if not port or not is_listening(address):
        return None
    holder = probe_port(address)
    if holder.serves(data_dir):
        return holder
    held_by = describe_holder(holder)
    if holder.is_local_spanner and data_dir is not None:  # say why it is not the one wanted
        held_by += f", not of {data_dir}"
    elif holder.is_local_spanner:
        held_by += ", while SPANLOAD_LOCAL_SPANNER_IN_MEMORY asks for a server of its own"
    raise LocalSpannerError(
        f"{address}, where the local Spanner is to listen, is held by {held_by}; stop it, or set "
        f"{PORT_SETTING} to another port (0 picks a free one)."
    )
