"""Run the Alembic migrations (the only way tables are created)."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config

from spanload.model.settings import REPO_ROOT

logger = logging.getLogger(__name__)

MIGRATIONS_DIR = REPO_ROOT / "migrations"


def alembic_config(url: str, migrations_dir: Path = MIGRATIONS_DIR) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    return config


def upgrade_to_head(url: str) -> None:
    """`alembic upgrade head` against ``url``."""
    logger.info("migrating the run store to the newest schema")
    command.upgrade(alembic_config(url), "head")
