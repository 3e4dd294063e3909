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
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.auth.credentials import AnonymousCredentials
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import spanner
from google.cloud.spanner_v1.pool import FixedSizePool
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.cloud.spanner_v1.services.spanner.transports.grpc import SpannerGrpcTransport

from spanload.model.config import ClientConfig, Target, TargetKind
from spanload.model.errors import RunInvalid, Unavailable
from spanload.spanner import deadline, request_tags, timing

MULTIPLEXED_ENV = (
    "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS",
    "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW",
    "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_PARTITIONED_OPS",
)
POOL_TIMEOUT_S = 10  # how long an operation waits for a pooled session before failing


PROBE_TIMEOUT_MAX_S = 10.0  # a run whose target does not answer fails within this (plus start-up)
CLOUD_ADDRESS = "spanner.googleapis.com:443"


class TargetError(RunInvalid):
    """The target cannot be reached as configured (a 422 / exit 2 naming ``target``, never a traceback:
    e.g. SPANNER_EMULATOR_HOST left set in the shell of a cloud target's run)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail, "target")


class CredentialsMissing(Unavailable):
    """A cloud target, and no Application Default Credentials to reach it with."""


class TargetUnreachableError(RuntimeError):
    """The target did not answer a first RPC; the message names its address and the gRPC status."""


def status_text(err: BaseException) -> str:
    """``UNAVAILABLE: failed to connect...``: the gRPC status name and message of a client error."""
    code = getattr(err, "grpc_status_code", None)
    message = getattr(err, "message", None) or str(err)
    return f"{code.name}: {message}" if code is not None else f"{type(err).__name__}: {message}"


def target_address(target: Target, emulator_host: str | None) -> str:
    """Where the run's RPCs go: ``host:port`` of a local server or emulator, or Cloud Spanner's."""
    if target.kind is TargetKind.CLOUD:
        return CLOUD_ADDRESS
    return emulator_host or target.emulator_host or "(no host)"


def probe(client: Any, target: Target, emulator_host: str | None, timeout_s: float) -> None:
    """One admin RPC with a short deadline and no retry: does the target answer at all?

    A missing instance is an answer (it is created later). Raises :class:`TargetUnreachableError`
    naming the address and the gRPC status, within ``min(timeout_s, PROBE_TIMEOUT_MAX_S)``."""
    name = f"projects/{target.project}/instances/{target.instance}"
    try:
        client.instance_admin_api.get_instance(name=name, retry=None, timeout=min(timeout_s, PROBE_TIMEOUT_MAX_S))
    except gexc.NotFound:
        return
    except gexc.GoogleAPICallError as err:
        address = target_address(target, emulator_host)
        raise TargetUnreachableError(
            f"the {target.kind.value} target at {address} did not answer: {status_text(err)}"
        ) from err


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


EMULATOR_HOST_ENV = "SPANNER_EMULATOR_HOST"


def make_client(target: Target, emulator_host: str | None) -> Any:
    """A ``spanner.Client`` for the target. ``emulator_host`` overrides ``target.emulator_host``.

    The official client reads ``SPANNER_EMULATOR_HOST`` when it is made and then sends its admin
    RPCs there whatever ``api_endpoint`` says: with the variable left over in a shell (or set by a
    test for another server), a run created its database on one server and used another. The
    address the run names wins; a cloud target refuses to start while the variable is set."""
    match target.kind:
        case TargetKind.LOCAL | TargetKind.EMULATOR:
            host = emulator_host or target.emulator_host
            if not host:
                raise TargetError(f"target.emulator_host is required for a {target.kind.value} target")
            client = spanner.Client(
                project=target.project,
                credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
                client_options={"api_endpoint": host},
                disable_builtin_metrics=True,
            )
            # google-cloud-spanner 3.x keeps the environment's host here; the admin channels use it
            client._emulator_host = client._host = host
            return client
        case TargetKind.CLOUD:
            if leftover := os.environ.get(EMULATOR_HOST_ENV):
                raise TargetError(
                    f"{EMULATOR_HOST_ENV}={leftover} is set, and the Spanner client would send a cloud "
                    f"target's requests there; unset it to reach Cloud Spanner"
                )
            try:
                return spanner.Client(project=target.project, disable_builtin_metrics=True)
            except DefaultCredentialsError:
                raise CredentialsMissing(
                    f"the cloud target (project {target.project!r}) needs Google Cloud credentials and none "
                    "were found: run `gcloud auth application-default login`, or set "
                    "GOOGLE_APPLICATION_CREDENTIALS to a service account key file",
                    "target",
                ) from None
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
        asked = time.perf_counter()
        try:
            return super().get(timeout=timeout)  # type: ignore[no-untyped-call]
        finally:
            timing.note_session_wait(time.perf_counter() - asked)  # the operation's session wait
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
    """Client + database handle for a run. The database must exist (see ``schemas.ensure_ddl``).

    On local and emulator targets the data API goes through a channel that reads each RPC's
    server-timing header (:mod:`spanload.spanner.timing`). On every target each data-API RPC is
    bounded by the calling operation's deadline (:mod:`spanload.spanner.deadline`) and tagged with
    the run and operation (:mod:`spanload.spanner.request_tags`)."""
    client = make_client(target, emulator_host)
    instance = client.instance(target.instance)
    pool = None if client_config.multiplexed_sessions else CountingPool(client_config.session_pool_size)
    database = instance.database(target.database, pool=pool)
    host = emulator_host or target.emulator_host
    if target.kind is not TargetKind.CLOUD and host:
        transport = SpannerGrpcTransport(channel=timing.timed_channel(host))
        database._spanner_api = SpannerClient(client_info=client._client_info, transport=transport)
    deadline.install(database.spanner_api)
    request_tags.install(database.spanner_api)
    return Connection(client=client, database=database, pool=pool)
