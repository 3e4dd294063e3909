"""The Alembic migrations create exactly the tables the models describe (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

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
    assert version == "0004"


def test_a_run_may_be_preloading_and_a_state_outside_the_enum_is_refused(store_url: str) -> None:
    upgrade_to_head(store_url)
    engine = make_engine(store_url)
    insert = text(
        "INSERT INTO runs (id, name, target_kind, status, config, current_config, notes, tags, created_at, "
        "updated_at, sample_count, last_elapsed_s) "
        "VALUES (:id, 'n', 'local', :status, '{}', '{}', '', '[]', 0, 0, 0, 0)"
    )
    try:
        with engine.begin() as conn:
            conn.execute(insert, {"id": "preloading-run", "status": "preloading"})
            status = conn.execute(text("SELECT status FROM runs WHERE id = 'preloading-run'")).scalar_one()
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(insert, {"id": "bad-run", "status": "loading"})
    finally:
        engine.dispose()
    assert status == "preloading"
