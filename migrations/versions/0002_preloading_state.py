"""A run's state may be ``preloading`` (issue 14's load phase, between starting and running).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUN_STATES_0001 = ("pending", "starting", "running", "paused", "stopping", "finished", "failed", "interrupted")
RUN_STATES = ("pending", "starting", "preloading", "running", "paused", "stopping", "finished", "failed", "interrupted")


def _allow(states: Sequence[str]) -> None:
    # SQLite cannot alter a constraint: batch mode copies the table; PostgreSQL alters it in place.
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint("runstate", type_="check")
        batch.create_check_constraint("runstate", "status IN (" + ", ".join(f"'{s}'" for s in states) + ")")


def upgrade() -> None:
    _allow(RUN_STATES)


def downgrade() -> None:
    op.execute("UPDATE runs SET status = 'interrupted' WHERE status = 'preloading'")
    _allow(RUN_STATES_0001)
