"""Start and stop the Go local Spanner binary for the conformance suite and the bench.

Deliberately independent of the product's own launcher (backend/spanload/spanner/local_server.py):
the suite tests the binary, not the launcher.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BINARY = REPO / ".venv" / "bin" / "spanload-local-spanner"
READY_MARKER = " listening on "
READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


class ServerStartError(RuntimeError):
    """The binary is missing, exited early, or never printed its ready line."""


@dataclass
class ServerProcess:
    """A running spanload-local-spanner child process with the address it printed."""

    process: subprocess.Popen[bytes]
    address: str
    log_path: Path
    ready_line: str
    _stopped: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def host(self) -> str:
        return self.address.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> int:
        """SIGTERM, wait, and SIGKILL if it does not stop. Returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stopped = True
        return self.process.returncode


def start_server(
    log_path: Path,
    data_dir: Path | None = None,
    binary: Path = BINARY,
    host: str = "127.0.0.1",
    subcommand: tuple[str, ...] = (),
    cwd: Path | None = None,
) -> ServerProcess:
    """Start the binary (``binary subcommand... --host --port 0``) and wait for its one ready line."""
    if not binary.is_file() or not os.access(binary, os.X_OK):
        raise ServerStartError(
            f"{binary} is missing or not executable: build it with `make -C {REPO} .venv/bin/spanload-local-spanner`"
        )
    args = [str(binary), *subcommand, "--host", host, "--port", "0"]
    if data_dir is not None:
        args += ["--data-dir", str(data_dir)]
    log = log_path.open("wb")
    # stdout is read for the ready line; stderr (logs) goes to a file so a chatty server never blocks.
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, start_new_session=True, cwd=cwd)
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + READY_TIMEOUT_S
    seen = b""
    try:
        while time.monotonic() < deadline:
            if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                continue
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            log.write(chunk)
            log.flush()
            for line in seen.decode(errors="replace").splitlines():
                if READY_MARKER in line:
                    address = line.rsplit(READY_MARKER, 1)[1].strip()
                    _drain_stdout_to(process, log_path)
                    return ServerProcess(process, address, log_path, line.strip())
    finally:
        selector.close()
    process.kill()
    process.wait()
    raise ServerStartError(
        f"{binary.name} did not print a line containing {READY_MARKER.strip()!r} within "
        f"{READY_TIMEOUT_S:.0f} s (exit code {process.returncode}); output:\n"
        f"{log_path.read_text(errors='replace')[-3000:]}"
    )


def _drain_stdout_to(process: subprocess.Popen[bytes], log_path: Path) -> None:
    """Keep reading stdout after the ready line so the server never blocks on a full pipe."""
    import threading

    def pump() -> None:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        with log_path.open("ab") as out:
            for chunk in iter(lambda: os.read(fd, 4096), b""):
                out.write(chunk)
                out.flush()

    threading.Thread(target=pump, name="local-spanner-stdout", daemon=True).start()


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    """VmRSS of a process in KiB, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")
