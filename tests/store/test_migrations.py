"""The Alembic migrations create exactly the tables the models describe (SQLite and PostgreSQL)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from spanload.store.db import make_engine
from spanload.store.migrate import upgrade_to_head
from spanload.store.models import Base


def test_migrated_schema_matches_the_models(store_url: str) -> None:
    upgrade_to_head(store_url)  # a second upgrade is a no-op
    engine = make_engine(store_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            version = MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
    assert diff == []
    assert version == "0001"
