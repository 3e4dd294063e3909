"""Queries on interval samples and their histograms.

A sample row holds the Sample without its histograms as zlib-compressed JSON; an ``interval_hdr`` row
with the same key holds the interval's histograms in the compact blob of :mod:`spanload.store.hdr`.
Every ``ROLLUP_INTERVALS`` intervals the histograms of the finished block are merged into one
``hdr_rollups`` row (lossless) and their interval rows deleted, which keeps a 1-hour run at 1 s
intervals within its storage budget while whole-run percentiles stay exact.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence

from hdrh.histogram import HdrHistogram
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from spanload.model.samples import Sample
from spanload.store import hdr
from spanload.store.models import HdrRollupRow, IntervalHdrRow, RunRow, SampleRow

ROLLUP_INTERVALS = 60
ZLIB_LEVEL = 6


def encode_payload(sample: Sample) -> bytes:
    data = sample.model_dump(mode="json", exclude={"hdr"}, exclude_none=True)
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), ZLIB_LEVEL)


def decode_payload(payload: bytes) -> Sample:
    return Sample.model_validate_json(zlib.decompress(payload))


def insert_sample(session: Session, run_id: str, sample: Sample) -> None:
    """Store one interval and commit. Rolls up the histograms of a block when it completes."""
    session.add(
        SampleRow(run_id=run_id, seq=sample.seq, t=sample.t, elapsed_s=sample.elapsed_s, payload=encode_payload(sample))
    )
    if sample.hdr:
        session.add(IntervalHdrRow(run_id=run_id, seq=sample.seq, hdr=hdr.pack_b64(sample.hdr)))
    run = session.get(RunRow, run_id)
    if run is not None:
        run.sample_count += 1
        run.last_elapsed_s = max(run.last_elapsed_s, sample.elapsed_s)
    if (sample.seq + 1) % ROLLUP_INTERVALS == 0:
        rollup(session, run_id, sample.seq + 1 - ROLLUP_INTERVALS, sample.seq)
    session.commit()


def rollup(session: Session, run_id: str, first_seq: int, last_seq: int) -> None:
    """Merge the per-interval histograms of ``first_seq..last_seq`` into one rollup row (no commit)."""
    session.flush()
    in_block = (IntervalHdrRow.run_id == run_id, IntervalHdrRow.seq >= first_seq, IntervalHdrRow.seq <= last_seq)
    blobs = list(session.scalars(select(IntervalHdrRow.hdr).where(*in_block)))
    if not blobs:
        return
    merged = hdr.merge_blobs(blobs)
    session.add(HdrRollupRow(run_id=run_id, first_seq=first_seq, last_seq=last_seq, hdr=hdr.pack_histograms(merged)))
    session.execute(delete(IntervalHdrRow).where(*in_block))


def rollup_rest(session: Session, run_id: str) -> None:
    """At the end of a run: roll up the intervals of the last, unfinished block, and commit."""
    first = session.scalar(select(func.min(IntervalHdrRow.seq)).where(IntervalHdrRow.run_id == run_id))
    last = session.scalar(select(func.max(IntervalHdrRow.seq)).where(IntervalHdrRow.run_id == run_id))
    if first is not None and last is not None:
        rollup(session, run_id, first, last)
        session.commit()


def list_samples(session: Session, run_id: str, from_s: float | None = None, to_s: float | None = None) -> list[Sample]:
    """The run's samples (without histograms) in elapsed-time order, within ``[from_s, to_s]``."""
    query = select(SampleRow.payload).where(SampleRow.run_id == run_id)
    if from_s is not None:
        query = query.where(SampleRow.elapsed_s >= from_s)
    if to_s is not None:
        query = query.where(SampleRow.elapsed_s <= to_s)
    return [decode_payload(p) for p in session.scalars(query.order_by(SampleRow.seq))]


def list_samples_with_hdr(session: Session, run_id: str) -> list[Sample]:
    """Every sample, with its own histograms where they have not been rolled up yet (for export)."""
    out: list[Sample] = []
    for payload, blob in session.execute(
        select(SampleRow.payload, IntervalHdrRow.hdr)
        .outerjoin(IntervalHdrRow, (IntervalHdrRow.run_id == SampleRow.run_id) & (IntervalHdrRow.seq == SampleRow.seq))
        .where(SampleRow.run_id == run_id)
        .order_by(SampleRow.seq)
    ):
        sample = decode_payload(payload)
        if blob is not None:
            sample.hdr = hdr.unpack_b64(blob)
        out.append(sample)
    return out


def list_rollups(session: Session, run_id: str) -> Sequence[HdrRollupRow]:
    return session.scalars(
        select(HdrRollupRow).where(HdrRollupRow.run_id == run_id).order_by(HdrRollupRow.first_seq)
    ).all()


def whole_run_histograms(session: Session, run_id: str) -> dict[str, HdrHistogram]:
    """Every interval's histograms merged per op: the exact whole-run distributions."""
    blobs = list(session.scalars(select(HdrRollupRow.hdr).where(HdrRollupRow.run_id == run_id)))
    blobs += list(session.scalars(select(IntervalHdrRow.hdr).where(IntervalHdrRow.run_id == run_id)))
    return hdr.merge_blobs(blobs)


def stored_bytes(session: Session, run_id: str) -> int:
    """Bytes of sample payloads and histograms stored for a run (the storage budget's measure)."""
    payload = session.scalar(
        select(func.coalesce(func.sum(func.length(SampleRow.payload)), 0)).where(SampleRow.run_id == run_id)
    )
    per_row = session.scalar(
        select(func.coalesce(func.sum(func.length(IntervalHdrRow.hdr)), 0)).where(IntervalHdrRow.run_id == run_id)
    )
    rolled = session.scalar(
        select(func.coalesce(func.sum(func.length(HdrRollupRow.hdr)), 0)).where(HdrRollupRow.run_id == run_id)
    )
    return int(payload or 0) + int(per_row or 0) + int(rolled or 0)
