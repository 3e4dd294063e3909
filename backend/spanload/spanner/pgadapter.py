"""PGAdapter, the proxy that lets PostgreSQL drivers speak to Spanner: found, started as a child
process for a run of ``client.interface: pgadapter``, supervised like the local Spanner.

PGAdapter is Java; `make install` resolves its jars into ``.tools/pgadapter/lib``
(tools/pgadapter/pom.xml). Against the local Spanner or an emulator it connects in plain text
(``-e host:port -r autoConfigEmulator=true``: no credentials, and an instance or database named by a
connection that is missing is created); against Cloud Spanner it uses Application Default
Credentials. It listens on 127.0.0.1 only, on a free port (``-s 0``), with no Unix socket.
"""

from __future__ import annotations

import logging
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from spanload.model.config import Target, TargetKind
from spanload.model.errors import Unavailable
from spanload.spanner.local_server import (
    RESTART_BACKOFF_MAX_S,
    RESTART_BACKOFF_S,
    LocalSpanner,
    SupervisedLocalSpanner,
    TargetChange,
    start_child_server,
)

logger = logging.getLogger(__name__)

MAIN_CLASS = "com.google.cloud.spanner.pgadapter.Server"
JAR_PREFIX = "google-cloud-spanner-pgadapter-"
_READY = re.compile(r"Server started on port (\d+)")
NAME = "PGAdapter"


class PGAdapterError(Unavailable):
    """PGAdapter cannot run here (no Java, no jars) or did not start."""


def default_dir() -> Path:
    """``.tools/pgadapter/lib`` of the checkout this module is in (an editable install), else of the
    one whose ``.venv`` runs this Python."""
    for root in (Path(__file__).resolve().parents[3], Path(sys.executable).parent.parent.parent):
        lib = root / ".tools" / "pgadapter" / "lib"
        if lib.is_dir():
            return lib
    return Path(sys.executable).parent.parent.parent / ".tools" / "pgadapter" / "lib"


def find_java(java: str = "java") -> str:
    found = shutil.which(java)
    if found is None:
        raise PGAdapterError(
            f"the pgadapter interface runs PGAdapter, which needs Java 17 or newer, and {java!r} was not found: "
            "install it (Debian: apt-get install openjdk-17-jre-headless) or set SPANLOAD_JAVA"
        )
    return found


def find_jars(directory: Path | None = None) -> tuple[Path, str]:
    """(the jars' directory, PGAdapter's version). Raises :class:`PGAdapterError` saying how to get them."""
    lib = directory or default_dir()
    jars = sorted(lib.glob(f"{JAR_PREFIX}*.jar")) if lib.is_dir() else []
    if not jars:
        raise PGAdapterError(
            f"PGAdapter's jars are not in {lib}: run `make install` (it resolves them with Maven), "
            "or set SPANLOAD_PGADAPTER_DIR to a directory that holds them"
        )
    return lib, jars[-1].name.removeprefix(JAR_PREFIX).removesuffix(".jar")


def command(target: Target, emulator_host: str | None, port: int, java: str, lib: Path) -> list[str]:
    """The command line of a PGAdapter for ``target`` listening on 127.0.0.1:``port`` (0: a free one)."""
    args = [java, "-cp", f"{lib}/*", MAIN_CLASS, "-p", target.project, "-i", target.instance]
    args += ["-s", str(port), "-dir", ""]  # TCP only: no Unix-domain socket file left in /tmp
    if target.kind is not TargetKind.CLOUD:
        if not emulator_host:
            raise PGAdapterError(f"a {target.kind.value} target needs its host:port for PGAdapter")
        args += ["-e", emulator_host, "-r", "autoConfigEmulator=true"]
    return args


def start_pgadapter(
    target: Target, emulator_host: str | None, port: int = 0, java: str = "java", directory: Path | None = None
) -> LocalSpanner:
    """A PGAdapter child process for ``target``, ready to accept connections. Raises :class:`PGAdapterError`."""
    exe = find_java(java)
    lib, version = find_jars(directory)

    def ready(line: str) -> tuple[str, str] | None:
        found = _READY.search(line)
        return (f"127.0.0.1:{found.group(1)}", version) if found else None

    return start_child_server(command(target, emulator_host, port, exe, lib), NAME, ready, PGAdapterError)


WARM_UP_TIMEOUT_S = 90.0


def warm_up(address: str, database: str, timeout_s: float = WARM_UP_TIMEOUT_S) -> float:
    """Open and close one connection to ``database``: PGAdapter's first connection to a database
    starts its Java Spanner client (2 s on an idle 2-core machine, 15 s under a load average of 24),
    which no driver's connect timeout should have to cover. Returns the seconds it took; raises
    :class:`PGAdapterError` naming the address."""
    import psycopg  # here: only the runs of the pgadapter interface need it

    host, _, port = address.rpartition(":")
    began = time.monotonic()
    try:
        with psycopg.connect(host=host, port=int(port), dbname=database, connect_timeout=int(timeout_s)) as conn:
            conn.execute("SELECT 1").fetchall()
    except psycopg.Error as err:
        raise PGAdapterError(f"PGAdapter at {address} did not connect to database {database!r}: {err}") from err
    return time.monotonic() - began


def supervise_pgadapter(
    target: Target,
    emulator_host: str | None,
    java: str = "java",
    directory: Path | None = None,
    on_change: Callable[[TargetChange], None] | None = None,
    backoff_s: float = RESTART_BACKOFF_S,
    backoff_max_s: float = RESTART_BACKOFF_MAX_S,
) -> SupervisedLocalSpanner:
    """A PGAdapter started now and again when it dies (on the same port, after a backoff), with
    the local Spanner's supervision. Stop it with ``stop()``."""
    find_java(java)  # the clear errors first, before any thread
    find_jars(directory)
    return SupervisedLocalSpanner(
        "127.0.0.1",
        0,
        start=lambda _host, port: start_pgadapter(target, emulator_host, port, java, directory),
        name=NAME,
        on_change=on_change,
        backoff_s=backoff_s,
        backoff_max_s=backoff_max_s,
    )
