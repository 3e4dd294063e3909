"""Helpers shared by the test suites: free ports, child processes, polling."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx

from spanload.model.settings import Settings

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def children_of(pid: int) -> set[int]:
    """PIDs whose parent is ``pid`` (from /proc)."""
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


TRANSIENT: tuple[type[BaseException], ...] = (OSError, httpx.TransportError)
"""What a polled thing raises while it is not up yet: a refused or reset connection, a timeout."""


def wait_for(
    probe: Callable[[], T | None],
    timeout_s: float,
    what: str,
    every_s: float = 0.1,
    transient: tuple[type[BaseException], ...] = TRANSIENT,
) -> T:
    """Call ``probe`` until it returns something other than None, or fail naming ``what``.

    Only ``transient`` errors are retried (the thing polled is not up yet); any other exception,
    an AssertionError in the probe above all, reaches the test at once."""
    deadline = time.monotonic() + timeout_s
    last_error: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            result = probe()
        except transient as err:
            last_error = err
        else:
            if result is not None:
                return result
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}; last error: {last_error}")


class Poller:
    """Runs ``poll`` every ``every_s`` on a thread until stopped; an exception in it stops the thread
    and is raised again by :meth:`stop` (and by :meth:`check`), so it reaches the test at once
    instead of dying with the thread."""

    def __init__(self, poll: Callable[[], None], every_s: float, name: str) -> None:
        self._poll = poll
        self._every_s = every_s
        self._stop = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self._every_s):
                self._poll()
        except BaseException as err:  # handed to the test by check() / stop()
            self.error = err

    def start(self) -> None:
        self._thread.start()

    def check(self) -> None:
        if self.error is not None:
            raise AssertionError(f"{self._thread.name} failed: {self.error!r}") from self.error

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        assert not self._thread.is_alive(), f"{self._thread.name} did not stop"
        self.check()


class ServeProcess:
    """`spanload serve` started as a user starts it, on free ports, with its own data directory.

    Use as a context manager: it waits for /api/health to report the local Spanner up, and on exit
    stops serve with SIGINT (as Ctrl-C would) and checks that no child process is left running.
    """

    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, ready_timeout_s: float = 60) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.ready_timeout_s = ready_timeout_s
        self.env = {
            **os.environ,
            "SPANLOAD_PORT": str(self.port),
            "SPANLOAD_DATA_DIR": str(data_dir),
            "SPANLOAD_LOCAL_SPANNER_PORT": "0",
            "SPANNER_DISABLE_BUILTIN_METRICS": "true",
            **(env or {}),
        }
        self.process: subprocess.Popen[str] | None = None
        self.children: set[int] = set()
        self._lines: list[str] = []
        self._reader: threading.Thread | None = None
        self.health: dict[str, Any] = {}

    @property
    def output(self) -> str:
        """Everything serve printed so far (read continuously, so its pipe never fills)."""
        return "".join(self._lines)

    def _drain(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.append(line)

    def __enter__(self) -> ServeProcess:
        self.process = subprocess.Popen(
            [str(VENV_BIN / "spanload"), "serve"],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._drain, name="serve-output", daemon=True)
        self._reader.start()

        def healthy() -> dict[str, Any] | None:
            assert self.process is not None and self.process.poll() is None, "serve exited early"
            body: dict[str, Any] = httpx.get(f"{self.url}/api/health", timeout=2).json()
            return body if body["local_spanner"]["state"] == "up" else None

        try:
            self.health = wait_for(healthy, self.ready_timeout_s, "the local Spanner to be reported up")
        except AssertionError:
            self.stop()
            raise AssertionError(f"serve did not become healthy; its output:\n{self.output}") from None
        self.children = children_of(self.process.pid)
        return self

    def stop(self, sig: int = signal.SIGINT) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        # serve may take its runs' stop grace (their workers' drain), then stops its local Spanner
        timeout_s = Settings().stop_grace_s + 30
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            # where it hangs, for the test's failure to show (serve's output ends with the stacks)
            dump = subprocess.run(
                [str(VENV_BIN / "py-spy"), "dump", "--pid", str(self.process.pid)],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            header = f"\n[serve did not exit {timeout_s:g} s after signal {sig}; py-spy dump:]\n"
            self._lines.append(header + dump.stdout + dump.stderr)
            self.process.kill()
            self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)
        return self.process.returncode

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def leftover_children(self) -> list[int]:
        return [pid for pid in self.children if alive(pid)]


def position(text: str, needle: str) -> tuple[int, int]:
    """Line and column (1-based) where ``needle`` starts in ``text``: where a definition's error
    must point."""
    before = text[: text.index(needle)]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


def line_column(text: str, needle: str) -> str:
    """``line L, column C`` of where ``needle`` starts in ``text``, as the CLI prints a problem's place."""
    line, column = position(text, needle)
    return f"line {line}, column {column}"


def spanload_cli(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``spanload ARGS`` as a user runs it: a new process of the venv's command (in ``env``, this
    process's environment by default), its output captured."""
    return subprocess.run(
        [str(VENV_BIN / "spanload"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=os.environ if env is None else env,
    )
