"""A run may record the process that writes it (host and pid), so that start-up recovery leaves
alone a run another live process still writes (a headless `spanload run` saving into serve's store).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("owner_host", sa.String(255), nullable=True))
        batch.add_column(sa.Column("owner_pid", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("owner_pid")
        batch.drop_column("owner_host")
