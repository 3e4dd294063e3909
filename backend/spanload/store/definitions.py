"""Saved workload definitions and their versions. The API calls these; it never builds queries itself."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from spanload.model.errors import RunConflict
from spanload.store.models import SavedDefinitionRow


@dataclass(frozen=True)
class SavedLatest:
    """A saved definition's latest version, and how many versions it has."""

    row: SavedDefinitionRow
    versions: int


def save_definition(
    session: Session, name: str, source: str, now: float | None = None
) -> tuple[SavedDefinitionRow, bool]:
    """Store ``source`` as the next version of ``name`` (1 for a new name), unless it is exactly the
    latest version's source: then that version, and False (nothing new was stored)."""
    latest = latest_definition(session, name)
    if latest is not None and latest.row.source == source:
        return latest.row, False
    row = SavedDefinitionRow(
        name=name,
        version=1 if latest is None else latest.row.version + 1,
        source=source,
        created_at=time.time() if now is None else now,
    )
    session.add(row)
    try:
        session.commit()
    except IntegrityError:  # another save of this name took the same version number first
        session.rollback()
        raise RunConflict(
            f"definition {name!r} was saved by someone else at the same moment: save again", "name"
        ) from None
    return row, True


def latest_definition(session: Session, name: str) -> SavedLatest | None:
    versions = session.scalar(select(func.count()).where(SavedDefinitionRow.name == name)) or 0
    if not versions:
        return None
    row = session.scalars(
        select(SavedDefinitionRow)
        .where(SavedDefinitionRow.name == name)
        .order_by(SavedDefinitionRow.version.desc())
        .limit(1)
    ).one()
    return SavedLatest(row, versions)


def definition_version(session: Session, name: str, version: int) -> SavedDefinitionRow | None:
    return session.get(SavedDefinitionRow, (name, version))


def saved_definitions(session: Session) -> list[SavedLatest]:
    """Every saved name's latest version, by name."""
    counts = (
        select(SavedDefinitionRow.name, func.max(SavedDefinitionRow.version).label("latest"), func.count().label("n"))
        .group_by(SavedDefinitionRow.name)
        .subquery()
    )
    rows = session.execute(
        select(SavedDefinitionRow, counts.c.n)
        .join(counts, (SavedDefinitionRow.name == counts.c.name) & (SavedDefinitionRow.version == counts.c.latest))
        .order_by(SavedDefinitionRow.name)
    ).all()
    return [SavedLatest(row, n) for row, n in rows]
