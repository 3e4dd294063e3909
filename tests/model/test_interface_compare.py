"""The PostgreSQL-interface report's two questions from compared runs' latencies (issue 24)."""

from __future__ import annotations

import pytest

from spanload.model.config import ClientInterface
from spanload.model.interface_compare import interface_questions
from spanload.model.samples import Percentiles

G, P, A = ClientInterface.GOOGLESQL, ClientInterface.POSTGRESQL, ClientInterface.PGADAPTER


def lat(p50: float, p95: float) -> Percentiles:
    return Percentiles(count=10, p50=p50, p95=p95)


def test_pgadapter_added_latency_and_pg_against_googlesql() -> None:
    runs = [
        {"tpcc.new_order": lat(10.0, 20.0), "tpcc.new_order_server": lat(1, 2)},  # googlesql
        {"tpcc.new_order": lat(12.0, 25.0), "tpcc.new_order_server": lat(1, 2)},  # postgresql
        {"tpcc.new_order": lat(12.5, 27.0), "tpcc.new_order.failed": lat(50, 60)},  # pgadapter
    ]
    added, dialect = interface_questions([G, P, A], runs)
    assert (added.base, added.other, added.base_run, added.other_run) == (P, A, 1, 2)
    assert [op.op for op in added.ops] == ["tpcc.new_order"]  # server-side and failed ones are no round trip
    p50, p95 = added.ops[0].deltas
    assert (p50.percentile, p50.added_ms, p50.share_pct) == ("p50", 0.5, pytest.approx(4.0))
    assert (p95.percentile, p95.added_ms, p95.share_pct) == ("p95", 2.0, pytest.approx(2 / 27 * 100))
    assert (dialect.base, dialect.other) == (G, P)
    assert [(d.added_ms, d.share_pct) for d in dialect.ops[0].deltas] == [
        (2.0, pytest.approx(2 / 12 * 100)),
        (5.0, pytest.approx(20.0)),
    ]


def test_only_the_questions_the_runs_can_answer() -> None:
    assert interface_questions([G, G], [{"x": lat(1, 2)}, {"x": lat(1, 2)}]) == []
    (only,) = interface_questions([P, None, G], [{"x": lat(2, 4)}, None, {"x": lat(1, 2)}])
    assert (only.other, only.ops[0].deltas[0].added_ms) == (P, 1.0)
