"""Queries on runs and their events. The API calls these; it never builds queries itself."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.samples import Summary
from spanload.model.state import ACTIVE_STATES, TERMINAL_STATES, RunState
from spanload.store.models import EventRow, RunRow, SampleRow

INTERRUPTED_REASON = "the control plane stopped while the run was going"

OTHER_HOST_LEASE_S = 300.0
"""A run written from another host, whose pid cannot be checked from here, counts as gone once it
has written nothing (status, summary or sample) for this long."""


@dataclass(frozen=True)
class Owner:
    """The process that writes a run outside serve (a headless `spanload run`)."""

    host: str
    pid: int


def this_process() -> Owner:
    return Owner(host=socket.gethostname(), pid=os.getpid())


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, run by another user
    except OSError:
        return False
    return True


def _config_json(config: RunConfig) -> dict[str, Any]:
    return config.model_dump(mode="json", by_alias=True)


def create_run(
    session: Session, run_id: str, config: RunConfig, now: float | None = None, owner: Owner | None = None
) -> RunRow:
    """A new pending run. ``owner`` is the process writing it when that is not serve (whose runs are
    all interrupted when serve starts again)."""
    now = time.time() if now is None else now
    row = RunRow(
        id=run_id,
        name=config.name or config.preset or f"run {run_id[:8]}",
        preset=config.preset,
        target_kind=config.target.kind.value,
        status=RunState.PENDING,
        config=_config_json(config),
        current_config=_config_json(config),
        notes="",
        tags=[],
        created_at=now,
        updated_at=now,
        sample_count=0,
        last_elapsed_s=0.0,
        owner_host=owner.host if owner is not None else None,
        owner_pid=owner.pid if owner is not None else None,
    )
    session.add(row)
    session.commit()
    return row


RUN_ID_MAX_LEN = 32


def is_run_id(run_id: str) -> bool:
    """Whether ``run_id`` could name a run at all (PostgreSQL rejects NUL characters in queries)."""
    return 0 < len(run_id) <= RUN_ID_MAX_LEN and "\x00" not in run_id


def get_run(session: Session, run_id: str) -> RunRow | None:
    return session.get(RunRow, run_id) if is_run_id(run_id) else None


def list_runs(
    session: Session,
    *,
    status: RunState | None = None,
    preset: str | None = None,
    name: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> tuple[Sequence[RunRow], int]:
    """Runs newest first, filtered; and how many match in all."""
    query = select(RunRow)
    if status is not None:
        query = query.where(RunRow.status == status)
    if preset is not None:
        query = query.where(RunRow.preset == preset)
    if name:
        escaped = name.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(func.lower(RunRow.name).like(f"%{escaped}%", escape="\\"))
    count = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(query.order_by(RunRow.created_at.desc(), RunRow.id).limit(limit).offset(offset)).all()
    return rows, count


def get_runs(session: Session, run_ids: Sequence[str]) -> list[RunRow | None]:
    """The runs with these ids, in the order asked, None where one does not exist."""
    valid = [run_id for run_id in run_ids if is_run_id(run_id)]
    found = {row.id: row for row in session.scalars(select(RunRow).where(RunRow.id.in_(valid)))}
    return [found.get(run_id) for run_id in run_ids]


def update_run_meta(
    session: Session,
    run_id: str,
    *,
    name: str | None = None,
    notes: str | None = None,
    tags: list[str] | None = None,
) -> RunRow | None:
    row = get_run(session, run_id)
    if row is None:
        return None
    if name is not None:
        row.name = name
    if notes is not None:
        row.notes = notes
    if tags is not None:
        row.tags = list(tags)
    row.updated_at = time.time()
    session.commit()
    return row


def delete_run(session: Session, run_id: str) -> bool:
    row = get_run(session, run_id)
    if row is None:
        return False
    session.delete(row)
    session.commit()
    return True


def _elapsed(row: RunRow, now: float) -> float:
    return max(0.0, now - row.started_at) if row.started_at is not None else 0.0


def set_status(
    session: Session, run_id: str, state: RunState, reason: str | None = None, now: float | None = None
) -> RunRow | None:
    """Record a status change, its timestamps and, for failures, the reason; and put it on the timeline."""
    now = time.time() if now is None else now
    row = session.get(RunRow, run_id)
    if row is None:
        return None
    if row.status in TERMINAL_STATES and state not in TERMINAL_STATES:
        return row  # a late message from a run that already ended changes nothing
    row.status = state
    if state is RunState.RUNNING and row.started_at is None:
        row.started_at = now
    if state in TERMINAL_STATES and row.ended_at is None:
        row.ended_at = now
    if reason and state in (RunState.FAILED, RunState.INTERRUPTED):
        row.failure_reason = reason
    row.updated_at = now
    changes: dict[str, Any] = {"status": state.value}
    if reason:
        changes["reason"] = reason
    session.add(
        EventRow(
            run_id=run_id, t=now, elapsed_s=_elapsed(row, now), kind=EventKind.STATUS.value, who=None, changes=changes
        )
    )
    session.commit()
    return row


def add_config_change(
    session: Session,
    run_id: str,
    changes: dict[str, object],
    who: str,
    new_config: RunConfig | None = None,
    now: float | None = None,
) -> EventRow | None:
    """Record a live config change (time, who, what) and, when given, the config it led to."""
    now = time.time() if now is None else now
    row = session.get(RunRow, run_id)
    if row is None:
        return None
    if new_config is not None:
        row.current_config = _config_json(new_config)
    row.updated_at = now
    event = EventRow(
        run_id=run_id, t=now, elapsed_s=_elapsed(row, now), kind=EventKind.CONFIG_CHANGE.value, who=who, changes=changes
    )
    session.add(event)
    session.commit()
    return event


def add_event(
    session: Session, run_id: str, kind: EventKind, changes: dict[str, Any], now: float | None = None
) -> EventRow | None:
    """Put another point on the run's timeline (its target went down or came back, a worker stalled)."""
    now = time.time() if now is None else now
    row = session.get(RunRow, run_id)
    if row is None:
        return None
    event = EventRow(run_id=run_id, t=now, elapsed_s=_elapsed(row, now), kind=kind.value, who=None, changes=changes)
    session.add(event)
    session.commit()
    return event


def set_current_config(session: Session, run_id: str, config: RunConfig) -> None:
    session.execute(update(RunRow).where(RunRow.id == run_id).values(current_config=_config_json(config)))
    session.commit()


def list_events(session: Session, run_id: str) -> Sequence[EventRow]:
    return session.scalars(select(EventRow).where(EventRow.run_id == run_id).order_by(EventRow.id)).all()


def config_change_events(session: Session, run_ids: Sequence[str]) -> dict[str, list[EventRow]]:
    """Each run's live config changes, in order (one query for a page of runs)."""
    out: dict[str, list[EventRow]] = {run_id: [] for run_id in run_ids}
    query = (
        select(EventRow)
        .where(EventRow.run_id.in_(list(run_ids)), EventRow.kind == EventKind.CONFIG_CHANGE.value)
        .order_by(EventRow.id)
    )
    for event in session.scalars(query):
        out[event.run_id].append(event)
    return out


def set_summary(session: Session, run_id: str, summary: Summary) -> bool:
    row = session.get(RunRow, run_id)
    if row is None:
        return False
    row.summary = summary.model_dump(mode="json")
    row.updated_at = time.time()
    session.commit()
    return True


def _owner_gone(session: Session, row: RunRow, now: float) -> bool:
    """Whether nothing writes ``row`` any more: serve's own runs (no owner) always, since serve is
    starting again; a run of another process on this host once that pid is gone; a run of another
    host once its lease has run out."""
    if row.owner_pid is None or row.owner_host is None:
        return True
    me = this_process()
    if row.owner_host == me.host:
        return row.owner_pid == me.pid or not pid_alive(row.owner_pid)
    last_sample = session.scalar(select(func.max(SampleRow.t)).where(SampleRow.run_id == row.id))
    last_write = max(row.updated_at, last_sample or 0.0)
    return now - last_write > OTHER_HOST_LEASE_S


def mark_interrupted(session: Session, now: float | None = None) -> list[str]:
    """On start-up: every run that was going when the control plane died becomes ``interrupted``,
    except a run another live process still writes (see ``_owner_gone``)."""
    now = time.time() if now is None else now
    active = list(session.scalars(select(RunRow).where(RunRow.status.in_(list(ACTIVE_STATES)))))
    ids = [row.id for row in active if _owner_gone(session, row, now)]
    for run_id in ids:
        row = session.get(RunRow, run_id)
        assert row is not None
        ended = row.started_at + row.last_elapsed_s if row.started_at is not None else now
        row.status = RunState.INTERRUPTED
        row.ended_at = ended
        row.failure_reason = INTERRUPTED_REASON
        row.updated_at = now
        session.add(
            EventRow(
                run_id=run_id,
                t=now,
                elapsed_s=row.last_elapsed_s,
                kind=EventKind.STATUS.value,
                who=None,
                changes={"status": RunState.INTERRUPTED.value, "reason": INTERRUPTED_REASON},
            )
        )
    session.commit()
    return ids
