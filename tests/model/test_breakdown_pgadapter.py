"""Issue 24, "Where the time goes, per interface": a pgadapter run's round trip is the driver's, and
PGAdapter's own part is derived: the round trip minus queue, session wait and what the server measured
of the same statements (SPANNER_SYS). Known inputs, hand-computed parts."""

from __future__ import annotations

import pytest

from spanload.model.breakdown import (
    Breakdown,
    OpTiming,
    Part,
    SessionWait,
    Source,
    SysLatencies,
    breakdown,
    pgadapter_ms,
)

US = 1000.0  # us per ms
SELECT = "/*@STATEMENT_TAG='t'*/ SELECT 1"
UPDATE = "/*@STATEMENT_TAG='t'*/ UPDATE a SET b = $1 WHERE k = $2"


def _parts(b: Breakdown) -> dict[Part, tuple[float, Source]]:
    return {p.part: (p.ms, p.source) for p in b.parts}


def _timing() -> OpTiming:
    # 4 operations of 10 ms each from intended start, 1 ms queued each; each ran SELECT twice and
    # UPDATE once and committed once (the driver sees no server-timing: server_count 0)
    return OpTiming(
        count=4,
        total_us=4 * 10 * US,
        queue_us=4 * 1 * US,
        session_wait=SessionWait.NOT_APPLICABLE,
        statements={SELECT: 8, UPDATE: 4},
        commits=4,
    )


def test_pgadapter_part_is_the_round_trip_minus_the_server_measured_parts() -> None:
    sys = SysLatencies(query_s={SELECT.strip(): 0.0005, UPDATE.strip(): 0.002}, commit_s=0.003)
    b = breakdown(_timing(), sys, via_pgadapter=True)
    # server per operation: 2 x 0.5 ms + 1 x 2 ms + 1 x 3 ms commit = 6 ms; PGAdapter: 10 - 1 - 6 = 3 ms
    assert b.count == 4 and b.round_trip_ms == pytest.approx(10.0)
    assert _parts(b) == {
        Part.QUEUE: (pytest.approx(1.0), Source.MEASURED),
        Part.SESSION_WAIT: (0.0, Source.NOT_APPLICABLE),
        Part.PGADAPTER: (pytest.approx(3.0), Source.DERIVED),
        Part.CLIENT: (0.0, Source.NOT_MEASURED),
        Part.SERVER_FRONTEND: (0.0, Source.NOT_MEASURED),
        Part.QUERY_COMMIT: (pytest.approx(6.0), Source.SPANNER_SYS),
    }
    assert [p.part for p in b.parts] == [
        Part.QUEUE,
        Part.SESSION_WAIT,
        Part.PGADAPTER,
        Part.CLIENT,
        Part.SERVER_FRONTEND,
        Part.QUERY_COMMIT,
    ]
    assert sum(p.ms for p in b.parts) == pytest.approx(b.round_trip_ms)


def test_without_a_spanner_sys_minute_pgadapter_holds_all_after_the_queue() -> None:
    b = breakdown(_timing(), None, via_pgadapter=True)
    assert _parts(b) == {
        Part.QUEUE: (pytest.approx(1.0), Source.MEASURED),
        Part.SESSION_WAIT: (0.0, Source.NOT_APPLICABLE),
        Part.PGADAPTER: (pytest.approx(9.0), Source.DERIVED),
        Part.CLIENT: (0.0, Source.NOT_MEASURED),
        Part.SERVER: (0.0, Source.NOT_MEASURED),
    }
    # a statement SPANNER_SYS does not know: the server is not known either
    partial = SysLatencies(query_s={SELECT.strip(): 0.0005}, commit_s=0.003)
    assert _parts(breakdown(_timing(), partial, via_pgadapter=True)) == _parts(b)


def test_a_minute_average_above_the_round_trip_never_makes_pgadapter_negative() -> None:
    assert pgadapter_ms(10.0, 1.0, 0.0, 6.0) == (3.0, 6.0)
    assert pgadapter_ms(10.0, 1.0, 0.0, 12.0) == (0.0, 9.0)
    assert pgadapter_ms(1.0, 2.0, 0.0, 0.5) == (0.0, 0.0)


def test_the_same_timing_on_the_client_library_keeps_todays_parts() -> None:
    b = breakdown(_timing(), None)
    assert Part.PGADAPTER not in _parts(b)
    assert _parts(b)[Part.CLIENT] == (pytest.approx(9.0), Source.DERIVED)
