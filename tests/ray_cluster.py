"""A real two-node Ray cluster on this machine, for the placement tests and bench/ray_placement.py.

Each node is one ``ray start --block`` process (head: ``--head``; the second: ``--address``), with
``--num-cpus 1``, its own ports from a free block and its own loopback address: Ray 2.60 turns
``--node-ip-address 127.0.0.1`` into the machine's outward address (``resolve_ip_for_localhost``),
but leaves any other 127.x.y.z alone, so the head advertises 127.X.Y.2 and the second node
127.X.Y.3 (X.Y random, so that test sessions running at once never share an address) and every
connection between them stays on loopback. (Ray's gRPC servers still listen on all interfaces; the
ports are chosen free on all of them.)

Everything is stopped by the PIDs started here: the ``ray start`` processes and their descendants,
found in /proc; never ``ray stop``, which stops every Ray on the machine.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers import VENV_BIN, alive, children_of

PORT_BLOCK = 300  # ports per cluster: 0-9 head services, 10-19 second node, 100-299 worker ports
NODE_START_TIMEOUT_S = 240.0  # a head took 45 s on this machine under load
STOP_GRACE_S = 5.0
START_ATTEMPTS = 3
START_NICE = -10
READY_LINE = "Ray runtime started"
RAY_ENV = {"RAY_agent_register_timeout_ms": "120000"}  # agents slow to register on a loaded machine


def _free_block() -> int:
    """The first port of a block of PORT_BLOCK ports that are free on every interface."""
    for _ in range(200):
        base = random.randrange(20_000, 32_000 - PORT_BLOCK, 10)
        try:
            for port in range(base, base + PORT_BLOCK):
                with socket.socket() as s:
                    s.bind(("0.0.0.0", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free block of ports for a Ray cluster")


def _start_boost() -> None:
    """Run the node's processes at a higher priority while it starts (root only): on a machine
    loaded by other tests a raylet aborts when its agent has not started within ~15 s."""
    with contextlib.suppress(OSError):
        os.nice(START_NICE)


def _unboost(pids: set[int]) -> None:
    """Back to normal priority once the node is up, so the workers it starts get no advantage."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, pid, 0)


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


@dataclass
class RayNode:
    ip: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    pids: set[int] = field(default_factory=set)  # every process of this node seen so far

    def remember(self) -> None:
        if self.process.poll() is None:
            self.pids |= _descendants(self.process.pid)

    @property
    def raylet(self) -> tuple[int, str] | None:
        """(pid, node id) of this node's raylet."""
        self.remember()
        for pid in sorted(self.pids):
            args = _cmdline(pid)
            if args and args[0].endswith("/raylet"):
                for arg in args:
                    if arg.startswith("--node_id="):
                        return pid, arg.split("=", 1)[1]
        return None


class RayCluster:
    """Start with :meth:`start` (returns at once), then :meth:`wait_ready`; :meth:`stop` at the end."""

    def __init__(self) -> None:
        self._pick_addresses()
        self.temp_dir = tempfile.mkdtemp(prefix="slr-", dir="/tmp")  # short: Ray's socket paths
        self.nodes: list[RayNode] = []
        self.error: str | None = None
        self._thread = threading.Thread(target=self._start_all, name="ray-cluster-start", daemon=True)

    def _pick_addresses(self) -> None:
        self.base = _free_block()
        prefix = f"127.{random.randrange(1, 255)}.{random.randrange(256)}"
        self.head_ip, self.node_ip = f"{prefix}.2", f"{prefix}.3"
        self.address = f"{self.head_ip}:{self.base}"

    def start(self) -> RayCluster:
        self._thread.start()
        return self

    def _ports(self, first: int) -> list[str]:
        p = self.base + first
        return [
            f"--node-manager-port={p + 1}",
            f"--object-manager-port={p + 2}",
            f"--dashboard-agent-listen-port={p + 3}",
            f"--dashboard-agent-grpc-port={p + 4}",
            f"--metrics-export-port={p + 5}",
            f"--runtime-env-agent-port={p + 6}",
        ]

    def _launch(self, ip: str, args: list[str]) -> RayNode:
        command = [
            str(VENV_BIN / "ray"),
            "start",
            "--block",
            "--num-cpus=1",
            f"--node-ip-address={ip}",
            f"--temp-dir={self.temp_dir}",
            "--disable-usage-stats",
            "--include-log-monitor=false",
            *args,
        ]
        process = subprocess.Popen(
            command,
            env={**os.environ, **RAY_ENV},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # a Ctrl-C of the test run reaches it through stop(), not twice
            preexec_fn=_start_boost,
        )
        node = RayNode(ip=ip, process=process)
        threading.Thread(target=self._drain, args=(node,), daemon=True).start()
        return node

    @staticmethod
    def _drain(node: RayNode) -> None:
        assert node.process.stdout is not None
        for line in node.process.stdout:
            node.output.append(line)
            node.remember()

    def _wait_started(self, node: RayNode, what: str) -> None:
        deadline = time.monotonic() + NODE_START_TIMEOUT_S
        seen_raylet: int | None = None
        while not any(READY_LINE in line for line in node.output):
            if node.process.poll() is not None:
                raise RuntimeError(f"{what} exited with {node.process.returncode}: {''.join(node.output)[-2000:]}")
            raylet = node.raylet
            if raylet is not None:
                seen_raylet = raylet[0]
            elif seen_raylet is not None and not alive(seen_raylet):
                raise RuntimeError(f"the raylet of {what} died while it started (its agent was too slow?)")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start within {NODE_START_TIMEOUT_S:.0f} s")
            time.sleep(0.2)
        node.remember()
        _unboost({node.process.pid, *node.pids})

    def _start_once(self) -> None:
        head = self._launch(
            self.head_ip,
            [
                "--head",
                f"--port={self.base}",
                f"--ray-client-server-port={self.base + 9}",
                "--include-dashboard=false",
                f"--min-worker-port={self.base + 100}",
                f"--max-worker-port={self.base + 199}",
                *self._ports(0),
            ],
        )
        self.nodes.append(head)
        self._wait_started(head, "the Ray head")
        second = self._launch(
            self.node_ip,
            [
                f"--address={self.address}",
                f"--min-worker-port={self.base + 200}",
                f"--max-worker-port={self.base + 299}",
                *self._ports(10),
            ],
        )
        self.nodes.append(second)
        self._wait_started(second, "the second Ray node")

    def _start_all(self) -> None:
        """Start the cluster; on a failed start, stop what started and try again on fresh ports
        and addresses. (A raylet aborts when its dashboard agent, slow to import on a loaded
        machine, has not written its port file within about 15 s; no setting changes that.)"""
        errors: list[str] = []
        for _ in range(START_ATTEMPTS):
            try:
                self._start_once()
                return
            except Exception as err:
                errors.append(str(err))
                self.stop()
                self.nodes = []
                self._pick_addresses()
        self.error = f"{START_ATTEMPTS} attempts failed: " + " | ".join(e[-600:] for e in errors)

    def wait_ready(self) -> None:
        """Wait (bounded) until both nodes are up; raise RuntimeError with Ray's output if not."""
        self._thread.join(START_ATTEMPTS * (2 * NODE_START_TIMEOUT_S + STOP_GRACE_S) + 10)
        if self._thread.is_alive():
            raise RuntimeError("the Ray cluster did not start")
        if self.error is not None:
            raise RuntimeError(self.error)

    def node_id(self, index: int) -> str:
        raylet = self.nodes[index].raylet
        if raylet is None:
            raise RuntimeError(f"no raylet found for Ray node {index}")
        return raylet[1]

    def kill_raylet(self, index: int) -> str:
        """SIGKILL node ``index``'s raylet (the node is lost); its node id."""
        raylet = self.nodes[index].raylet
        if raylet is None:
            raise RuntimeError(f"no raylet found for Ray node {index}")
        os.kill(raylet[0], signal.SIGKILL)
        return raylet[1]

    def _ours(self, pid: int) -> bool:
        """Still one of this cluster's processes (not a reused PID): its command line names the
        cluster's temp dir, or it is a Ray worker (which renames itself ``ray::...``)."""
        args = " ".join(_cmdline(pid))
        return self.temp_dir in args or args.startswith("ray::")

    def stop(self) -> None:
        """Stop every process started here: SIGTERM, then SIGKILL what is left after a grace."""
        for node in reversed(self.nodes):
            node.remember()
        pids = [p for node in reversed(self.nodes) for p in [node.process.pid, *sorted(node.pids)] if self._ours(p)]
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        for node in self.nodes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.process.wait(STOP_GRACE_S)
