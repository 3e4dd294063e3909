"""Issue 17: the SAFE. function prefix.

Expected values come from Spanner's documentation ("Function calls", SAFE. prefix), never from the server's output:
"If you begin a scalar function with the SAFE. prefix, it will return NULL instead of an error. The SAFE. prefix
only prevents errors from the prefixed function itself: it doesn't prevent errors that occur while evaluating
argument expressions. ... If the function doesn't return an error, SAFE. has no effect on the output." Its own
example: SAFE.SUBSTR('foo', 0, -2) is NULL where SUBSTR fails, SAFE.SUBSTR('bar', 0, 2) is 'ba'. SAFE. applies to
scalar functions only; the mathematical functions' errors (SQRT of a negative, LN of 0, POW overflow) and integer
DIV/MOD by zero are the value errors it turns into NULL.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.api_core import exceptions as gexc

from .conftest import DatabaseFactory, SpannerDb


@pytest.fixture(scope="module")
def sdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database([])


def _rows(db: SpannerDb, sql: str) -> Any:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql)]


SAFE_CASES: dict[str, tuple[str, list[list[Any]]]] = {
    "documentation example": (
        "SELECT SAFE.SUBSTR('foo', 0, -2) AS s UNION ALL SELECT SAFE.SUBSTR('bar', 0, 2) AS s",
        [[None], ["ba"]],
    ),
    "math value errors": ("SELECT SAFE.SQRT(-1), SAFE.LN(0), SAFE.LOG(-1), SAFE.POW(2.0, 2000)", [[None] * 4]),
    "math without errors is unchanged": ("SELECT SAFE.SQRT(4), SAFE.LN(1), SAFE.POW(2, 3)", [[2.0, 0.0, 8.0]]),
    "integer division by zero": ("SELECT SAFE.DIV(1, 0), SAFE.MOD(1, 0), SAFE.DIV(7, 2)", [[None, None, 3]]),
    "bad regular expression": ("SELECT SAFE.REGEXP_CONTAINS('abc', '(')", [[None]]),
    "bad base64": ("SELECT SAFE.FROM_BASE64('%%%')", [[None]]),
    "timestamp overflow": ("SELECT SAFE.TIMESTAMP_ADD(TIMESTAMP '9999-12-31 00:00:00+00', INTERVAL 2 DAY)", [[None]]),
    "date overflow": ("SELECT SAFE.DATE_ADD(DATE '9999-12-31', INTERVAL 1 DAY)", [[None]]),
    "functions that never fail": ("SELECT SAFE.ABS(-5), SAFE.UPPER('a'), SAFE.CONCAT('a', 'b')", [[5, "A", "ab"]]),
    "IEEE_DIVIDE keeps its infinity": ("SELECT SAFE.IEEE_DIVIDE(1, 0) > 0", [[True]]),
}


@pytest.mark.parametrize("case", list(SAFE_CASES))
def test_safe_prefix(sdb: SpannerDb, case: str) -> None:
    sql, want = SAFE_CASES[case]
    assert _rows(sdb, sql) == want


def test_without_safe_the_same_calls_fail(sdb: SpannerDb) -> None:
    # GoogleSQL reports a function's runtime error as OUT_OF_RANGE, as for SAFE.SQRT(1 / 0) below
    for sql in ("SELECT SQRT(-1)", "SELECT DIV(1, 0)", "SELECT SUBSTR('foo', 0, -2)"):
        with pytest.raises(gexc.OutOfRange):
            _rows(sdb, sql)


def test_safe_does_not_cover_errors_in_arguments(sdb: SpannerDb) -> None:
    with pytest.raises(gexc.OutOfRange, match="division by zero"):
        _rows(sdb, "SELECT SAFE.SQRT(1 / 0)")


def test_safe_is_for_scalar_functions_only(sdb: SpannerDb) -> None:
    with pytest.raises(gexc.InvalidArgument, match="SAFE"):
        _rows(sdb, "SELECT SAFE.SUM(x) FROM UNNEST([1, 2]) x")


def test_safe_of_an_unknown_function_is_not_found(sdb: SpannerDb) -> None:
    with pytest.raises(gexc.InvalidArgument, match=r"Function not found: SAFE\.NOSUCH"):
        _rows(sdb, "SELECT SAFE.NOSUCH(1)")
