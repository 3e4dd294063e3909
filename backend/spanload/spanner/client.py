"""Construct the official google-cloud-spanner client for each kind of target.

- ``local`` and ``emulator``: plain-text gRPC to ``host:port`` with anonymous credentials.
- ``cloud``: Application Default Credentials.

Built-in metrics are always off (they export to Cloud Monitoring and cost 5-10 % of client CPU).
With ``multiplexed_sessions`` off, a :class:`CountingPool` of fixed size supplies sessions and
exposes in-use / idle / waiting gauges, which is what the session-pool-exhaustion report studies.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from google.auth.credentials import AnonymousCredentials
from google.cloud import spanner
from google.cloud.spanner_v1.pool import FixedSizePool
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.cloud.spanner_v1.services.spanner.transports.grpc import SpannerGrpcTransport

from spanload.model.config import ClientConfig, Target, TargetKind
from spanload.spanner import timing

MULTIPLEXED_ENV = (
    "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS",
    "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW",
    "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_PARTITIONED_OPS",
)
POOL_TIMEOUT_S = 10  # how long an operation waits for a pooled session before failing


class TargetError(ValueError):
    """The target cannot be reached as configured."""


def worker_environment(client: ClientConfig) -> dict[str, str]:
    """Environment variables a worker process sets before it creates a client.

    The client reads the multiplexed-session switches on every session checkout, so setting
    them again later (:func:`apply_client_environment`) changes the behaviour live.
    """
    value = "true" if client.multiplexed_sessions else "false"
    env = dict.fromkeys(MULTIPLEXED_ENV, value)
    env["SPANNER_DISABLE_BUILTIN_METRICS"] = "true"
    return env


def apply_client_environment(client: ClientConfig) -> None:
    """Set this process's client switches (a worker process only; never the control plane)."""
    os.environ.update(worker_environment(client))


def make_client(target: Target, emulator_host: str | None) -> Any:
    """A ``spanner.Client`` for the target. ``emulator_host`` overrides ``target.emulator_host``."""
    match target.kind:
        case TargetKind.LOCAL | TargetKind.EMULATOR:
            host = emulator_host or target.emulator_host
            if not host:
                raise TargetError(f"target.emulator_host is required for a {target.kind.value} target")
            return spanner.Client(
                project=target.project,
                credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
                client_options={"api_endpoint": host},
                disable_builtin_metrics=True,
            )
        case TargetKind.CLOUD:
            return spanner.Client(project=target.project, disable_builtin_metrics=True)
    raise TargetError(f"unknown target kind {target.kind!r}")


class CountingPool(FixedSizePool):
    """A fixed-size session pool that also counts the operations waiting for a session."""

    def __init__(self, size: int) -> None:
        super().__init__(size=size, default_timeout=POOL_TIMEOUT_S)  # type: ignore[no-untyped-call]
        self._waiting_lock = threading.Lock()
        self.waiting = 0

    def get(self, timeout: float | None = None) -> Any:
        with self._waiting_lock:
            self.waiting += 1
        try:
            return super().get(timeout=timeout)  # type: ignore[no-untyped-call]
        finally:
            with self._waiting_lock:
                self.waiting -= 1

    def put(self, session: Any) -> None:
        # google-cloud-spanner 3.71.0 stamps a used session with a naive datetime.now()
        # (_opentelemetry_tracing.trace_call) while FixedSizePool.get subtracts it from an aware
        # UTC now: the next checkout raises TypeError and the session leaks out of the pool.
        last = getattr(session, "_last_use_time", None)
        if isinstance(last, datetime) and last.tzinfo is None:
            session._last_use_time = last.astimezone(UTC)
        super().put(session)  # type: ignore[no-untyped-call]

    def gauges(self) -> tuple[int, int, int]:
        """(in use, idle, waiting). A waiter counts from asking until it holds a session."""
        idle = self._sessions.qsize()
        return self.size - idle, idle, self.waiting


@dataclass
class Connection:
    """A client, its database handle and (without multiplexed sessions) its counting pool."""

    client: Any
    database: Any
    pool: CountingPool | None

    def session_gauges(self) -> tuple[int, int, int] | None:
        return self.pool.gauges() if self.pool is not None else None

    def close(self) -> None:
        """Close the client's channels. Not ``database.close()``: that joins the multiplexed-session
        maintenance thread, which sleeps 10 minutes between checks (a daemon thread; it dies with us)."""
        self.client.close()


def connect(target: Target, client_config: ClientConfig, emulator_host: str | None) -> Connection:
    """Client + database handle for a run. The database must exist (see ``schemas.ensure_schema``).

    On local and emulator targets the data API goes through a channel that reads each RPC's
    server-timing header (:mod:`spanload.spanner.timing`)."""
    client = make_client(target, emulator_host)
    instance = client.instance(target.instance)
    pool = None if client_config.multiplexed_sessions else CountingPool(client_config.session_pool_size)
    database = instance.database(target.database, pool=pool)
    host = emulator_host or target.emulator_host
    if target.kind is not TargetKind.CLOUD and host:
        transport = SpannerGrpcTransport(channel=timing.timed_channel(host))
        database._spanner_api = SpannerClient(client_info=client._client_info, transport=transport)
    return Connection(client=client, database=database, pool=pool)
