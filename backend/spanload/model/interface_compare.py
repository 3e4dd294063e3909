"""The PostgreSQL-interface report's two questions, asked of compared runs that differ in
``client.interface`` (e.g. the presets ``tpcc-1w``, ``pg-tpcc-client``, ``pg-tpcc-pgadapter``):

- How much latency does PGAdapter add? ``pgadapter`` against ``postgresql`` (the client library on
  the same PostgreSQL-dialect database): per operation kind, the difference at p50 and p95 in ms and
  as a share of the ``pgadapter`` run's round trip at that percentile.
- Is the PostgreSQL dialect as fast as GoogleSQL? ``postgresql`` against ``googlesql`` (the same
  client library): the same differences.

A pair is answered when the compare holds a run of each of its two interfaces (the first of each).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from spanload.model.config import ClientInterface
from spanload.model.samples import Percentiles

PERCENTILES = ("p50", "p95")


class PercentileDelta(BaseModel):
    percentile: str = Field(description="p50 or p95")
    base_ms: float = Field(description="the reference interface's latency at this percentile")
    other_ms: float = Field(description="the interface asked about, at this percentile")
    added_ms: float = Field(description="other - base (negative: faster)")
    share_pct: float | None = Field(description="added_ms as a share of other_ms (its round trip), percent")


class OpDelta(BaseModel):
    op: str
    deltas: list[PercentileDelta]


class InterfaceQuestion(BaseModel):
    question: str
    base: ClientInterface
    other: ClientInterface
    base_run: int = Field(description="index of the reference run in the compare")
    other_run: int
    ops: list[OpDelta]


QUESTIONS: tuple[tuple[str, ClientInterface, ClientInterface], ...] = (
    ("PGAdapter's added latency", ClientInterface.POSTGRESQL, ClientInterface.PGADAPTER),
    ("PostgreSQL dialect against GoogleSQL", ClientInterface.GOOGLESQL, ClientInterface.POSTGRESQL),
)


def _delta(name: str, base: Percentiles, other: Percentiles) -> PercentileDelta | None:
    b, o = getattr(base, name), getattr(other, name)
    if b is None or o is None:
        return None
    added = o - b
    return PercentileDelta(
        percentile=name, base_ms=b, other_ms=o, added_ms=added, share_pct=added / o * 100 if o > 0 else None
    )


def interface_questions(
    interfaces: Sequence[ClientInterface | None], latencies: Sequence[Mapping[str, Percentiles] | None]
) -> list[InterfaceQuestion]:
    """The questions the compared runs answer: run i's interface ``interfaces[i]`` (None: unknown)
    and its whole-run latencies per operation kind ``latencies[i]`` (its round trip, ``<op>``;
    failed and server-side histograms are not round trips and are left out)."""
    out = []
    for question, base, other in QUESTIONS:
        if base not in interfaces or other not in interfaces:
            continue
        i, j = interfaces.index(base), interfaces.index(other)
        mine, theirs = latencies[i] or {}, latencies[j] or {}
        ops = []
        for op in sorted(set(mine) & set(theirs)):
            if op.endswith((".failed", "_server", "_intended")) or not mine[op].count or not theirs[op].count:
                continue
            deltas = [d for p in PERCENTILES if (d := _delta(p, mine[op], theirs[op])) is not None]
            if deltas:
                ops.append(OpDelta(op=op, deltas=deltas))
        out.append(InterfaceQuestion(question=question, base=base, other=other, base_run=i, other_run=j, ops=ops))
    return out
