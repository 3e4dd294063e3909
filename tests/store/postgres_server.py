"""A throwaway PostgreSQL server from Debian's packages, on 127.0.0.1 and a free port, in a temp dir."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.helpers import free_port

PG_ROOTS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
APT_PACKAGES = "postgresql"
START_TIMEOUT_S = 60


class PostgresNotInstalled(RuntimeError):
    """No PostgreSQL binaries on this machine: the one reason to skip the PostgreSQL suite."""


class PostgresFailed(RuntimeError):
    """PostgreSQL is installed but could not be set up or started: an error, never a skip."""


class PostgresServer:
    """initdb + pg_ctl start; ``url`` is a psycopg SQLAlchemy URL; ``stop`` removes everything."""

    def __init__(self) -> None:
        if not PG_ROOTS:
            raise PostgresNotInstalled(
                f"PostgreSQL binaries not found under /usr/lib/postgresql; `apt-get install -y {APT_PACKAGES}`"
            )
        self.bin = PG_ROOTS[0]
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="spanload-pg-"))
        self.data = self.dir / "data"
        self._as_user: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root: run the server as the postgres user
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError as err:
                raise PostgresFailed("running as root and there is no 'postgres' user to run the server") from err
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self._as_user = ["runuser", "-u", "postgres", "--"]
        self.url = f"postgresql+psycopg://spanload@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        result = subprocess.run([*self._as_user, *args], capture_output=True, text=True, timeout=START_TIMEOUT_S)
        if result.returncode != 0:
            raise PostgresFailed(f"{Path(args[0]).name} failed: {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> PostgresServer:
        """initdb and pg_ctl start. Raises :class:`PostgresFailed`; the temp dir is gone then."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "spanload", "--auth=trust", "-E", "UTF8")
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "server.log"),
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "-o",
            f"-h 127.0.0.1 -p {self.port} -k {self.dir} -F",
            "start",
        )

    def create_database(self) -> str:
        """A new empty database on this server; returns its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        admin = create_engine(self.url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            admin.dispose()
        return make_url(self.url).set(database=name).render_as_string(hide_password=False)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(
                [*self._as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                timeout=START_TIMEOUT_S,
            )
        shutil.rmtree(self.dir, ignore_errors=True)
