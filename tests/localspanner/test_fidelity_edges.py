"""Issue 17, "Types and values": FLOAT32, JSON and NUMERIC edge values.

Expected values come from Spanner's documentation, never from the server's own output:
- GoogleSQL "Data types": FLOAT32 is IEEE-754 single precision (largest finite 3.4028234663852886e38, smallest
  subnormal 1.401298464324817e-45; a value is stored as the nearest single-precision number); NUMERIC has precision
  38 and scale 9 (-99999999999999999999999999999.999999999 to the same positive), and an overflow is an error.
- "Conversion rules": a STRING cast to NUMERIC with more than nine fractional digits "rounds half away from zero";
  SAFE_CAST gives NULL where CAST fails.
- The Spanner API's TypeCode NUMERIC: the wire value is a decimal string, in decimal or scientific notation.
- "Work with JSON data": whitespace is not preserved, members of an object are sorted lexicographically, only the
  first of duplicate keys is preserved, array order and strings are preserved exactly, integers in the INT64 and
  UINT64 ranges are preserved, a number that cannot round-trip from string to double to string fails the statement
  ("SELECT JSON '2.2412421353246235436' fails"), and JSON nests at most 80 levels.
"""

from __future__ import annotations

import decimal
import struct
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import param_types as T
from google.cloud.spanner_v1.data_types import JsonObject

from .conftest import DatabaseFactory, SpannerDb

D = decimal.Decimal
FLOAT32_MAX = 3.4028234663852886e38
FLOAT32_MIN_SUBNORMAL = 1.401298464324817e-45
NUMERIC_MAX = D("99999999999999999999999999999.999999999")
NUMERIC_MIN = D("-99999999999999999999999999999.999999999")  # not -NUMERIC_MAX: Decimal arithmetic keeps 28 digits
DDL = ["CREATE TABLE E (K INT64 NOT NULL, F FLOAT32, J JSON, N NUMERIC) PRIMARY KEY (K)"]


def single(x: float) -> float:
    """x rounded to IEEE single precision, as FLOAT32 stores it."""
    rounded: float = struct.unpack("f", struct.pack("f", x))[0]
    return rounded


@pytest.fixture(scope="module")
def edb(make_database: DatabaseFactory) -> SpannerDb:
    tdb = make_database(DDL)
    with tdb.database.batch() as batch:
        batch.insert(
            "E",
            ["K", "F", "N"],
            [(1, FLOAT32_MAX, NUMERIC_MAX), (2, FLOAT32_MIN_SUBNORMAL, NUMERIC_MIN), (3, 0.1, D("1E-9"))],
        )
    return tdb


def _rows(db: SpannerDb, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None) -> Any:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql, params=params, param_types=types)]


# --- FLOAT32 ---------------------------------------------------------------------------------------------------


def test_float32_extremes_and_rounding_on_write(edb: SpannerDb) -> None:
    assert _rows(edb, "SELECT K, F FROM E WHERE K <= 3 ORDER BY K") == [
        [1, FLOAT32_MAX],
        [2, FLOAT32_MIN_SUBNORMAL],
        [3, single(0.1)],
    ]


FLOAT32_CASTS: dict[str, tuple[str, list[list[Any]]]] = {
    "FLOAT64 to FLOAT32 rounds": ("SELECT CAST(0.1 AS FLOAT32)", [[single(0.1)]]),
    "STRING to FLOAT32 rounds": ("SELECT CAST('0.1' AS FLOAT32)", [[single(0.1)]]),
    "INT64 past 2^24 rounds": ("SELECT CAST(16777217 AS FLOAT32)", [[16777216.0]]),
    "NUMERIC to FLOAT32 rounds": ("SELECT CAST(NUMERIC '0.1' AS FLOAT32)", [[single(0.1)]]),
    "largest FLOAT32 stays": ("SELECT CAST(3.4028234663852886e38 AS FLOAT32)", [[FLOAT32_MAX]]),
    "past the range, SAFE_CAST is NULL": ("SELECT SAFE_CAST(1e39 AS FLOAT32)", [[None]]),
}


@pytest.mark.parametrize("case", list(FLOAT32_CASTS))
def test_float32_casts(edb: SpannerDb, case: str) -> None:
    sql, want = FLOAT32_CASTS[case]
    assert _rows(edb, sql) == want


def test_float32_parameter_is_single_precision(edb: SpannerDb) -> None:
    assert _rows(edb, "SELECT @f", {"f": 0.1}, {"f": T.FLOAT32}) == [[single(0.1)]]


def test_float32_past_its_range_is_an_error(edb: SpannerDb) -> None:
    with pytest.raises(gexc.OutOfRange):
        _rows(edb, "SELECT CAST(1e39 AS FLOAT32)")
    with pytest.raises(gexc.GoogleAPICallError, match="FLOAT32"), edb.database.batch() as batch:
        batch.insert("E", ["K", "F"], [(90, 1e39)])
    assert _rows(edb, "SELECT COUNT(*) FROM E WHERE K = 90") == [[0]]


# --- NUMERIC ---------------------------------------------------------------------------------------------------


def test_numeric_extremes_and_scientific_notation_round_trip(edb: SpannerDb) -> None:
    assert _rows(edb, "SELECT K, N FROM E WHERE K <= 3 ORDER BY K") == [
        [1, NUMERIC_MAX],
        [2, NUMERIC_MIN],
        [3, D("1E-9")],
    ]


NUMERIC_VALUES: dict[str, tuple[str, list[list[Any]]]] = {
    "CAST rounds half away from zero": (
        "SELECT CAST('1.0000000005' AS NUMERIC), CAST('-1.0000000005' AS NUMERIC), CAST('1.0000000004' AS NUMERIC)",
        [[D("1.000000001"), D("-1.000000001"), D("1")]],
    ),
    "rounding carries into the integer part": ("SELECT CAST('0.9999999995' AS NUMERIC)", [[D("1")]]),
    "scientific notation in a STRING": (
        "SELECT CAST('1.5E3' AS NUMERIC), CAST('25e-10' AS NUMERIC)",
        [[D("1500"), D("3E-9")]],
    ),
    "exact sum at the edges": ("SELECT SUM(N) FROM E WHERE K <= 3", [[D("1E-9")]]),
    "NUMERIC arithmetic is exact": ("SELECT NUMERIC '0.1' + NUMERIC '0.2' = NUMERIC '0.3'", [[True]]),
    "SAFE_CAST of an out-of-range STRING is NULL": ("SELECT SAFE_CAST('1e29' AS NUMERIC)", [[None]]),
}


@pytest.mark.parametrize("case", list(NUMERIC_VALUES))
def test_numeric_values(edb: SpannerDb, case: str) -> None:
    sql, want = NUMERIC_VALUES[case]
    assert _rows(edb, sql) == want


NUMERIC_OVERFLOWS = {
    "max + smallest step": "SELECT N + NUMERIC '0.000000001' FROM E WHERE K = 1",
    "min - smallest step": "SELECT N - NUMERIC '0.000000001' FROM E WHERE K = 2",
    "max * 10": "SELECT N * 10 FROM E WHERE K = 1",
    "CAST of 30 integer digits": "SELECT CAST('1e29' AS NUMERIC)",
}


@pytest.mark.parametrize("case", list(NUMERIC_OVERFLOWS))
def test_numeric_overflow_is_out_of_range(edb: SpannerDb, case: str) -> None:
    with pytest.raises(gexc.OutOfRange):
        _rows(edb, NUMERIC_OVERFLOWS[case])


# --- JSON ------------------------------------------------------------------------------------------------------

JSON_NORMALIZED: dict[str, tuple[str, str]] = {
    "whitespace removed, members sorted": ('{ "b" : 1 ,\n "a" : [ 3 , 1 ] }', '{"a":[3,1],"b":1}'),
    "nested members sorted": ('{"z": {"y": 1, "x": 2}, "a": null}', '{"a":null,"z":{"x":2,"y":1}}'),
    "first duplicate key kept": ('{"k": 1, "k": 2}', '{"k":1}'),
    "strings preserved exactly": ('{"s": "é ü \\" \\\\ <>&"}', '{"s":"é ü \\" \\\\ <>&"}'),
    "INT64 extremes": ("[-9223372036854775808, 9223372036854775807]", "[-9223372036854775808,9223372036854775807]"),
    "UINT64 max": ("18446744073709551615", "18446744073709551615"),
    # Issue 25: the Go client's integration test writes the 17-digit form of the double 0.39240506 and an integer past
    # 2^53 (TestIntegration_BasicTypes); both round-trip, as does the double's shortest form.
    "a double's 17-digit form and an integer past 2^53": (
        '{"FloatValue": 0.39240506000000003, "Time": 145688415796432520}',
        '{"FloatValue":0.39240506000000003,"Time":145688415796432520}',
    ),
    "a double's shortest form": ("[0.39240506, 2.2412421353246237]", "[0.39240506,2.2412421353246237]"),
    "array order preserved": ('[3, "b", true, null, {"b": 0, "a": 1}]', '[3,"b",true,null,{"a":1,"b":0}]'),
}


@pytest.mark.parametrize("case", list(JSON_NORMALIZED))
def test_json_is_stored_normalized(edb: SpannerDb, case: str) -> None:
    text, want = JSON_NORMALIZED[case]
    assert _rows(edb, "SELECT TO_JSON_STRING(@j)", {"j": text}, {"j": T.JSON}) == [[want]]


def test_json_written_and_read_back_normalized(edb: SpannerDb) -> None:
    with edb.database.batch() as batch:
        batch.insert("E", ["K", "J"], [(10, JsonObject({"b": [1, {"d": "é", "c": 18446744073709551615}], "a": True}))])
    assert _rows(edb, "SELECT TO_JSON_STRING(J) FROM E WHERE K = 10") == [
        ['{"a":true,"b":[1,{"c":18446744073709551615,"d":"é"}]}']
    ]


JSON_FUNCTIONS: dict[str, tuple[str, list[list[Any]]]] = {
    "JSON_VALUE of a UINT64 integer keeps its digits": (
        """SELECT JSON_VALUE(JSON '{"n": 18446744073709551615}', '$.n')""",
        [["18446744073709551615"]],
    ),
    "JSON_VALUE of unicode, of null, of an object": (
        """SELECT JSON_VALUE(JSON '{"s": "é"}', '$.s'), JSON_VALUE(JSON '{"s": null}', '$.s'),"""
        """ JSON_VALUE(JSON '{"o": {"a": 1}}', '$.o')""",
        [["é", None, None]],
    ),
    "JSON_QUERY returns normalized JSON": (
        """SELECT TO_JSON_STRING(JSON_QUERY(JSON '{"o": {"b": 1, "a": [2]}}', '$.o'))""",
        [['{"a":[2],"b":1}']],
    ),
    "a missing path is NULL": (
        """SELECT JSON_VALUE(JSON '{"a": 1}', '$.b'), JSON_QUERY(JSON '[1]', '$[5]')""",
        [[None, None]],
    ),
}


@pytest.mark.parametrize("case", list(JSON_FUNCTIONS))
def test_json_functions(edb: SpannerDb, case: str) -> None:
    sql, want = JSON_FUNCTIONS[case]
    assert _rows(edb, sql) == want


JSON_REFUSED = {
    "a number that cannot round-trip through a double": "[1.00000000000000000000001]",
    "the documentation's example of one": "2.2412421353246235436",
    "an integer past UINT64 that a double cannot hold": "123456789012345678901234567",
    "nested 81 levels": "[" * 81 + "]" * 81,
    "trailing data": '{"a": 1} x',
}


@pytest.mark.parametrize("case", list(JSON_REFUSED))
def test_json_values_spanner_refuses(edb: SpannerDb, case: str) -> None:
    with pytest.raises(gexc.InvalidArgument):
        _rows(edb, "SELECT @j", {"j": JSON_REFUSED[case]}, {"j": T.JSON})


# "Work with JSON data": "SELECT JSON '2.2412421353246235436' fails. A functional workaround is
# PARSE_JSON('2.2412421353246235436', wide_number_mode=>'round'), which returns JSON '2.2412421353246237'." The
# default mode is 'exact'. Errors are ZetaSQL's (reference implementation, ParseJsonFunction): OUT_OF_RANGE "Invalid
# `wide_number_mode` specified for PARSE_JSON: ..." and "Invalid input to PARSE_JSON: ...".
PARSE_JSON_CASES: dict[str, tuple[str, list[list[Any]]]] = {
    "the documentation's workaround rounds to the nearest double": (
        "SELECT TO_JSON_STRING(PARSE_JSON('2.2412421353246235436', wide_number_mode=>'round'))",
        [["2.2412421353246237"]],
    ),
    "normalized as any JSON value": (
        """SELECT TO_JSON_STRING(PARSE_JSON('{"b": 1, "a": [0.39240506000000003]}', wide_number_mode=>'exact'))""",
        [['{"a":[0.39240506000000003],"b":1}']],
    ),
    "NULL in, NULL out": ("SELECT PARSE_JSON(NULL) IS NULL", [[True]]),
}


@pytest.mark.parametrize("case", list(PARSE_JSON_CASES))
def test_parse_json(edb: SpannerDb, case: str) -> None:
    sql, want = PARSE_JSON_CASES[case]
    assert _rows(edb, sql) == want


@pytest.mark.parametrize(
    "sql, message",
    [
        ("SELECT PARSE_JSON('2.2412421353246235436')", "Invalid input to PARSE_JSON: "),
        (
            "SELECT PARSE_JSON('1', wide_number_mode=>'nope')",
            "Invalid `wide_number_mode` specified for PARSE_JSON: nope",
        ),
    ],
    ids=["exact by default", "unknown mode"],
)
def test_parse_json_errors_are_out_of_range(edb: SpannerDb, sql: str, message: str) -> None:
    with pytest.raises(gexc.OutOfRange) as info:
        _rows(edb, sql)
    assert str(info.value.message).startswith(message), info.value.message


def test_json_nesting_up_to_80_levels_is_accepted(edb: SpannerDb) -> None:
    deep = "[" * 80 + "]" * 80
    assert _rows(edb, "SELECT TO_JSON_STRING(@j)", {"j": deep}, {"j": T.JSON}) == [[deep]]
