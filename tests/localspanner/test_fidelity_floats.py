"""Issue 17, "Types and values": +inf, -inf and NaN in FLOAT64, ARRAY<FLOAT64> and FLOAT32.

Expected values come from Spanner's documentation, never from the server's own output:
- GoogleSQL "Data types", floating point: NaN compares unequal to everything, itself included (= is FALSE, != is
  TRUE, <, > are FALSE); ordering from least to greatest is NULL, NaN, -inf, negative, zero, positive, +inf (and
  DESC reverses it); NaNs group together in GROUP BY and DISTINCT.
- "Aggregate functions": MIN and MAX return NaN if the input contains a NaN; SUM and AVG return NaN if the input
  contains a NaN, and SUM of +inf and -inf is NaN; all return NULL over no non-NULL input.
- "Mathematical functions": they return NaN if any argument is NaN (ABS, SIGN, GREATEST, LEAST); IS_NAN, IS_INF;
  the IEEE_DIVIDE table (25/0 = +inf, -25/0 = -inf, 0/0 = NaN, inf/inf = NaN).
- "Operators", IN: "x IN (y, z)" is "x = y OR x = z", so NaN is in no list.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from google.cloud.spanner_v1 import param_types as T

from .conftest import DatabaseFactory, SpannerDb

INF, NAN = math.inf, math.nan
DDL = ["CREATE TABLE F (K INT64 NOT NULL, V FLOAT64, A ARRAY<FLOAT64>, G FLOAT32) PRIMARY KEY (K)"]
ROWS = [
    (1, 1.5, [1.0, NAN], 1.0),
    (2, NAN, [INF, -INF], NAN),
    (3, -INF, None, -INF),
    (4, INF, [], 3.5),
    (5, None, [None], None),
    (6, -2.0, [0.0], -2.0),
]


def norm(v: Any) -> Any:
    """NaN as the string 'NaN' (NaN != NaN in Python too), lists element-wise."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


@pytest.fixture(scope="module")
def fdb(make_database: DatabaseFactory) -> SpannerDb:
    tdb = make_database(DDL)
    with tdb.database.batch() as batch:
        batch.insert("F", ["K", "V", "A", "G"], ROWS)
    return tdb


def _rows(db: SpannerDb, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None) -> Any:
    with db.database.snapshot() as snap:
        return norm([list(r) for r in snap.execute_sql(sql, params=params, param_types=types)])


# case -> (sql, expected rows)
QUERIES: dict[str, tuple[str, list[list[Any]]]] = {
    "ORDER BY ascending": ("SELECT K FROM F ORDER BY V", [[5], [2], [3], [6], [1], [4]]),
    "ORDER BY descending": ("SELECT K FROM F ORDER BY V DESC", [[4], [1], [6], [3], [2], [5]]),
    "FLOAT32 ORDER BY": ("SELECT K FROM F ORDER BY G", [[5], [2], [3], [6], [1], [4]]),
    "ARRAY elements in order": (
        "SELECT x FROM F, UNNEST(A) x ORDER BY x",
        [[None], ["NaN"], [-INF], [0.0], [1.0], [INF]],
    ),
    "MIN, MAX, SUM, AVG with a NaN": ("SELECT MIN(V), MAX(V), SUM(V), AVG(V) FROM F", [["NaN", "NaN", "NaN", "NaN"]]),
    "FLOAT32 MIN, MAX with a NaN": ("SELECT MIN(G), MAX(G) FROM F", [["NaN", "NaN"]]),
    "MIN, MAX over infinities": ("SELECT MIN(V), MAX(V) FROM F WHERE K <> 2", [[-INF, INF]]),
    "SUM of +inf and -inf": ("SELECT SUM(V), AVG(V) FROM F WHERE K IN (3, 4)", [["NaN", "NaN"]]),
    "SUM of +inf and finite": ("SELECT SUM(V), AVG(V) FROM F WHERE K IN (1, 4)", [[INF, INF]]),
    "SUM of finite values": (
        "SELECT SUM(V), AVG(V), MIN(V), MAX(V) FROM F WHERE K IN (1, 6)",
        [[-0.5, -0.25, -2.0, 1.5]],
    ),
    "aggregates of NULL only": ("SELECT SUM(V), AVG(V), MIN(V), MAX(V) FROM F WHERE K = 5", [[None, None, None, None]]),
    "GROUP BY keeps NaN together": (
        "SELECT V, COUNT(*) FROM (SELECT V FROM F UNION ALL SELECT V FROM F WHERE K = 2) GROUP BY V ORDER BY V",
        [[None, 1], ["NaN", 2], [-INF, 1], [-2.0, 1], [1.5, 1], [INF, 1]],
    ),
    "IS_NAN and IS_INF": (
        "SELECT K, IS_NAN(V), IS_INF(V) FROM F ORDER BY K",
        [[1, False, False], [2, True, False], [3, False, True], [4, False, True], [5, None, None], [6, False, False]],
    ),
    "IS_NAN in WHERE": ("SELECT K FROM F WHERE IS_NAN(V)", [[2]]),
    "IS_NAN, IS_INF of NUMERIC and INT64": (
        "SELECT IS_NAN(NUMERIC '1'), IS_INF(NUMERIC '1'), IS_NAN(1)",
        [[False] * 3],
    ),
    "IEEE_DIVIDE": (
        "SELECT IEEE_DIVIDE(20.0, 4.0), IEEE_DIVIDE(0.0, 25.0), IEEE_DIVIDE(25.0, 0.0), IEEE_DIVIDE(-25.0, 0.0),"
        " IEEE_DIVIDE(0.0, 0.0)",
        [[5.0, 0.0, INF, -INF, "NaN"]],
    ),
    "IEEE_DIVIDE of NaN and infinities": (
        "SELECT IEEE_DIVIDE(0.0, V), IEEE_DIVIDE(V, 0.0) FROM F WHERE K = 2"
        " UNION ALL SELECT IEEE_DIVIDE(V, V), IEEE_DIVIDE(-V, -V) FROM F WHERE K = 4",
        [["NaN", "NaN"], ["NaN", "NaN"]],
    ),
    "NaN compares unequal": (
        "SELECT V = V, V != V, V < 1.0, V > 1.0, V <= V, V >= V FROM F WHERE K = 2",
        [[False, True, False, False, False, False]],
    ),
    "infinity equals itself": ("SELECT V = V, V > 1e308, V != V FROM F WHERE K = 4", [[True, True, False]]),
    "NaN is in no list": (
        "SELECT V IN (V, 1.0), V NOT IN (V), V IN UNNEST([V]), V IN (SELECT V FROM F) FROM F WHERE K = 2",
        [[False, True, False, False]],
    ),
    "a list holding NaN still matches other values": ("SELECT K FROM F WHERE V IN (IEEE_DIVIDE(0, 0), 1.5)", [[1]]),
    "!= keeps NaN, drops NULL": ("SELECT K FROM F WHERE V != 1.5 ORDER BY K", [[2], [3], [4], [6]]),
    "NaN arguments give NaN": (
        "SELECT ABS(V), SIGN(V), GREATEST(1.0, V), LEAST(1.0, V), ROUND(V) FROM F WHERE K = 2",
        [["NaN"] * 5],
    ),
    "NULL before NaN in GREATEST/LEAST": (
        "SELECT LEAST(V, NULL), GREATEST(NULL, V) FROM F WHERE K = 2",
        [[None, None]],
    ),
    "ABS and SIGN of infinities": ("SELECT ABS(V), SIGN(V) FROM F WHERE K = 3", [[INF, -1.0]]),
    "operations on infinities": ("SELECT V + 1, V * 0, V - V FROM F WHERE K = 4", [[INF, "NaN", "NaN"]]),
    "CAST from STRING": (
        "SELECT CAST('NaN' AS FLOAT64), CAST('inf' AS FLOAT64), CAST('-inf' AS FLOAT64), CAST('+inf' AS FLOAT64)",
        [["NaN", INF, -INF, INF]],
    ),
}


@pytest.mark.parametrize("case", list(QUERIES))
def test_transfinite_values_in_queries(fdb: SpannerDb, case: str) -> None:
    sql, want = QUERIES[case]
    assert _rows(fdb, sql) == want


PARAM_CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any], list[list[Any]]]] = {
    "= NaN parameter matches nothing": ("SELECT K FROM F WHERE V = @v", {"v": NAN}, {"v": T.FLOAT64}, []),
    "= +inf parameter": ("SELECT K FROM F WHERE V = @v", {"v": INF}, {"v": T.FLOAT64}, [[4]]),
    "< +inf parameter": ("SELECT K FROM F WHERE V < @v ORDER BY K", {"v": INF}, {"v": T.FLOAT64}, [[1], [3], [6]]),
    "> -inf parameter": ("SELECT K FROM F WHERE V > @v ORDER BY K", {"v": -INF}, {"v": T.FLOAT64}, [[1], [4], [6]]),
    "IS_NAN of a parameter": ("SELECT IS_NAN(@v), IS_INF(@v)", {"v": NAN}, {"v": T.FLOAT64}, [[True, False]]),
    "array parameter round trip": (
        "SELECT @a, ARRAY_LENGTH(@a)",
        {"a": [INF, -INF, NAN, None, 0.5]},
        {"a": T.Array(T.FLOAT64)},
        [[[INF, -INF, "NaN", None, 0.5], 5]],
    ),
    "array parameter elements ordered": (
        "SELECT x FROM UNNEST(@a) x ORDER BY x",
        {"a": [INF, -INF, NAN, None, 0.5]},
        {"a": T.Array(T.FLOAT64)},
        [[None], ["NaN"], [-INF], [0.5], [INF]],
    ),
    "aggregate over an array parameter": (
        "SELECT MAX(x), MIN(x) FROM UNNEST(@a) x",
        {"a": [INF, -INF, None]},
        {"a": T.Array(T.FLOAT64)},
        [[INF, -INF]],
    ),
    "NaN parameter is not IN an array": (
        "SELECT @v IN UNNEST(@a)",
        {"v": NAN, "a": [NAN, 1.0]},
        {"v": T.FLOAT64, "a": T.Array(T.FLOAT64)},
        [[False]],
    ),
}


@pytest.mark.parametrize("case", list(PARAM_CASES))
def test_transfinite_parameters(fdb: SpannerDb, case: str) -> None:
    sql, params, types, want = PARAM_CASES[case]
    assert _rows(fdb, sql, params, types) == want
