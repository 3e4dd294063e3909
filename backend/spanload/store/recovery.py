"""Start-up recovery: runs that were going when the control plane died become ``interrupted``,
keeping everything they stored, with a summary recomputed from it."""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session, sessionmaker

from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store.summaries import recompute_summary

logger = logging.getLogger(__name__)


def recover_interrupted(sessions: sessionmaker[Session]) -> list[str]:
    with sessions() as session:
        ids = run_store.mark_interrupted(session)
        for run_id in ids:
            sample_store.rollup_rest(session, run_id)
            run_store.set_summary(session, run_id, recompute_summary(session, run_id))
    if ids:
        logger.warning("marked %d run(s) interrupted: %s", len(ids), ", ".join(ids))
    return ids
