"""The store suite runs against SQLite and against a throwaway PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from tests.store.postgres_server import PostgresNotInstalled, PostgresServer


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """Skipped only where PostgreSQL is not installed; an initdb or pg_ctl that fails fails the suite
    (`make test` installs PostgreSQL, so a failure there is a broken setup, not a missing one)."""
    try:
        server = PostgresServer()
    except PostgresNotInstalled as err:
        print(f"\nPostgreSQL store tests skipped: {err}")
        pytest.skip(f"PostgreSQL is not installed: {err}")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty run store: a SQLite file, or a fresh database on the PostgreSQL server."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = server.create_database()
    upgrade_to_head(url)
    return url


@pytest.fixture
def sessions(store_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(store_url)
    try:
        yield make_sessionmaker(engine)
    finally:
        engine.dispose()
