"""SQLAlchemy 2 models of the run store. Tables are created only by the Alembic migrations."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Enum, Float, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from spanload.model.state import RunState


class Base(DeclarativeBase):
    pass


class RunRow(Base):
    """One run: its config (as started and as it is now), status, timestamps, summary."""

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    preset: Mapped[str | None] = mapped_column(String(100), index=True)
    target_kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[RunState] = mapped_column(
        Enum(RunState, native_enum=False, length=16, values_callable=lambda e: [m.value for m in e]), index=True
    )
    config: Mapped[dict[str, Any]] = mapped_column(JSON, doc="the config the run started with")
    current_config: Mapped[dict[str, Any]] = mapped_column(JSON, doc="the config after every live change")
    notes: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[float] = mapped_column(Float, index=True, doc="unix seconds")
    started_at: Mapped[float | None] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    failure_reason: Mapped[str | None] = mapped_column(Text)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    sample_count: Mapped[int] = mapped_column(Integer, default=0)
    last_elapsed_s: Mapped[float] = mapped_column(Float, default=0.0)
    owner_host: Mapped[str | None] = mapped_column(
        String(255), doc="the host of the process writing the run, when it is not serve itself"
    )
    owner_pid: Mapped[int | None] = mapped_column(Integer, doc="that process's pid")

    events: Mapped[list[EventRow]] = relationship(
        back_populates="run", cascade="all, delete-orphan", passive_deletes=True, order_by="EventRow.id"
    )


class EventRow(Base):
    """A point on a run's timeline: a live config change (who, what) or a status change."""

    __tablename__ = "run_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    t: Mapped[float] = mapped_column(Float, doc="unix seconds")
    elapsed_s: Mapped[float] = mapped_column(Float)
    kind: Mapped[str] = mapped_column(String(32))
    who: Mapped[str | None] = mapped_column(String(200))
    changes: Mapped[dict[str, Any]] = mapped_column(JSON, doc="flat field -> new value, or status/reason")

    run: Mapped[RunRow] = relationship(back_populates="events")


class SampleRow(Base):
    """One report interval: the Sample without histograms, as zlib-compressed JSON."""

    __tablename__ = "samples"

    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    t: Mapped[float] = mapped_column(Float)
    elapsed_s: Mapped[float] = mapped_column(Float)
    payload: Mapped[bytes] = mapped_column(LargeBinary)

    __table_args__ = (Index("ix_samples_run_elapsed", "run_id", "elapsed_s"),)


class IntervalHdrRow(Base):
    """One interval's HdrHistograms, kept until its block is rolled up into ``hdr_rollups`` and then
    deleted. A table of its own, so the few kilobytes per interval are freed and reused instead of
    leaving every sample page mostly empty."""

    __tablename__ = "interval_hdr"

    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    hdr: Mapped[bytes] = mapped_column(LargeBinary)


class HdrRollupRow(Base):
    """The merged HdrHistograms of a block of consecutive intervals (``first_seq..last_seq``).
    Merging is lossless, so whole-run percentiles recomputed from rollups are exact."""

    __tablename__ = "hdr_rollups"

    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    first_seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_seq: Mapped[int] = mapped_column(Integer)
    hdr: Mapped[bytes] = mapped_column(LargeBinary)


class SavedDefinitionRow(Base):
    """One version of a saved workload definition: the source as the user wrote it (YAML). A name's
    versions count 1, 2, ... in the order they were saved; a version is never changed."""

    __tablename__ = "saved_definitions"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    source: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float, doc="unix seconds")
