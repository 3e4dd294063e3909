"""Issue 17, "Types and values": STRUCT query parameters.

Expected values come from Spanner's documentation, never from the server's own output:
- GoogleSQL "Data types", STRUCT: field access with the dot operator, fields may be anonymous or share a name
  ("STRUCT<INT64, INT64>", "STRUCT<x INT64, x INT64>" are valid), and a STRUCT may nest STRUCTs and ARRAYs.
- GoogleSQL "Query syntax", UNNEST operator: "For input arrays of STRUCTs, UNNEST returns a row for each STRUCT,
  with a separate column for each field in the STRUCT. The alias for each column is the name of the corresponding
  STRUCT field"; an explicit alias names the whole STRUCT (a value table), and a NULL or empty array gives no row.
- "Arrays": ARRAY<ARRAY<...>> does not exist ("arrays of arrays are not supported").
- "Conversion rules": a STRUCT casts to a STRUCT with the same number of fields, field by field.
- "Operators", comparison: STRUCTs compare for equality field by field, in order; a NULL field with no other
  difference makes the result NULL. "Aggregate functions": ARRAY_AGG takes every type but ARRAY.
The queries are the ones the official clients' own system tests send with struct parameters.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import param_types as T

from .conftest import DatabaseFactory, SpannerDb

NESTED = T.Struct(
    [
        T.StructField("name", T.STRING),
        T.StructField("count", T.INT64),
        T.StructField("size", T.FLOAT64),
        T.StructField("nested", T.Struct([T.StructField("height", T.FLOAT64), T.StructField("weight", T.FLOAT64)])),
    ]
)
THREAD = T.Struct([T.StructField("threadid", T.INT64)])
THREADS = T.Array(THREAD)
WITH_ARRAY = T.Struct([T.StructField("intf", T.INT64), T.StructField("arraysf", THREADS)])
PAIR = T.Struct([T.StructField("threadid", T.INT64), T.StructField("name", T.STRING)])
ANONYMOUS = T.Struct([T.StructField("", T.INT64), T.StructField("", T.STRING)])
SAME_NAMES = T.Struct([T.StructField("field", T.INT64), T.StructField("field", T.INT64)])
ONE_UNNAMED = T.Struct([T.StructField("", T.STRING)])
EMPTY = T.Struct([])
MESSAGE = T.Struct([T.StructField("message", T.STRING), T.StructField("repeat", T.INT64)])

# case -> (sql, params, param types, expected rows, expected column names or None)
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any], list[list[Any]], list[str] | None]] = {
    "fields of a NULL struct are NULL": (
        "SELECT @r.name, @r.count, @r.size, @r.nested.weight",
        {"r": None},
        {"r": NESTED},
        [[None, None, None, None]],
        None,
    ),
    "NULL fields": (
        "SELECT @r.name, @r.count, @r.size, @r.nested.weight",
        {"r": (None, None, None, None)},
        {"r": NESTED},
        [[None, None, None, None]],
        None,
    ),
    "nested NULL field": (
        "SELECT @r.nested.weight",
        {"r": (None, None, None, (None, None))},
        {"r": NESTED},
        [[None]],
        None,
    ),
    "field access, nested": (
        "SELECT @r.name, @r.count, @r.size, @r.nested.weight",
        {"r": ("Phred", 123, 23.456, (188.0, 97.6))},
        {"r": NESTED},
        [["Phred", 123, 23.456, 97.6]],
        None,
    ),
    "empty struct is not NULL": ("SELECT @r IS NULL", {"r": ()}, {"r": EMPTY}, [[False]], None),
    "NULL empty struct": ("SELECT @r IS NULL", {"r": None}, {"r": EMPTY}, [[True]], None),
    "equal to a typed struct literal": (
        "SELECT @p = STRUCT<threadf INT64, userf STRING>(1, 'bob')",
        {"p": (1, "bob")},
        {"p": PAIR},
        [[True]],
        None,
    ),
    "unequal to a typed struct literal": (
        "SELECT @p = STRUCT<threadf INT64, userf STRING>(1, 'alice')",
        {"p": (1, "bob")},
        {"p": PAIR},
        [[False]],
        None,
    ),
    "equality with a NULL field and no other difference is NULL": (
        "SELECT @p = STRUCT<a INT64, b STRING>(1, NULL), @p != STRUCT<a INT64, b STRING>(1, NULL)",
        {"p": (1, None)},
        {"p": PAIR},
        [[None, None]],
        None,
    ),
    "a differing field makes equality FALSE despite a NULL field": (
        "SELECT @p = STRUCT<a INT64, b STRING>(2, 'x'), @p != STRUCT<a INT64, b STRING>(2, 'x')",
        {"p": (1, None)},
        {"p": PAIR},
        [[False, True]],
        None,
    ),
    "NULL struct compared is NULL": (
        "SELECT @p = STRUCT<a INT64, b STRING>(1, 'x')",
        {"p": None},
        {"p": PAIR},
        [[None]],
        None,
    ),
    "ARRAY_AGG of structs": (
        "SELECT ARRAY_AGG(t) FROM UNNEST(@p) t",
        {"p": [(1, "a"), (2, "b")]},
        {"p": T.Array(PAIR)},
        [[[[1, "a"], [2, "b"]]]],
        None,
    ),
    "NULL array of structs has no rows": ("SELECT a.threadid FROM UNNEST(@p) a", {"p": None}, {"p": THREADS}, [], None),
    "alias.field of an array of structs": (
        "SELECT a.threadid FROM UNNEST(@p) a",
        {"p": [(123,), (456,)]},
        {"p": THREADS},
        [[123], [456]],
        ["threadid"],
    ),
    "NULL array field of a struct": (
        "SELECT a.threadid FROM UNNEST(@p.arraysf) a",
        {"p": (123, None)},
        {"p": WITH_ARRAY},
        [],
        None,
    ),
    "array field of a struct": (
        "SELECT a.threadid FROM UNNEST(@p.arraysf) a",
        {"p": (123, [(456,), (789,)])},
        {"p": WITH_ARRAY},
        [[456], [789]],
        None,
    ),
    "SELECT * of an array of structs: a column per field": (
        "SELECT * FROM UNNEST(@p)",
        {"p": [(1, "a"), (2, "b")]},
        {"p": T.Array(PAIR)},
        [[1, "a"], [2, "b"]],
        ["threadid", "name"],
    ),
    "bare field names, WHERE and ORDER BY": (
        "SELECT name FROM UNNEST(@p) WHERE threadid > 1 ORDER BY threadid DESC",
        {"p": [(1, "a"), (2, "b"), (3, "c")]},
        {"p": T.Array(PAIR)},
        [["c"], ["b"]],
        ["name"],
    ),
    "alias.* and WITH OFFSET": (
        "SELECT t.*, o FROM UNNEST(@p) t WITH OFFSET o",
        {"p": [(1, "a"), (2, "b")]},
        {"p": T.Array(PAIR)},
        [[1, "a", 0], [2, "b", 1]],
        ["threadid", "name", "o"],
    ),
    "the alias is the whole struct": (
        "SELECT t IS NULL FROM UNNEST(@p) t",
        {"p": [None, (1, "a")]},
        {"p": T.Array(PAIR)},
        [[True], [False]],
        None,
    ),
    # Issue 25, "Implicit aliases": a field access through the dot operator is named for its field, any other
    # expression is unnamed (the Go client's TestIntegration_StructParametersBind expects "ff1" for @p.f1.ff1).
    "field access names its column for the field": (
        "SELECT @r.name, @r.nested.weight, @r.count + 1",
        {"r": ("Phred", 123, 23.456, (188.0, 97.6))},
        {"r": NESTED},
        [["Phred", 97.6, 124]],
        ["name", "weight", ""],
    ),
    "UNNEST([@p]) keeps the field names": (
        "SELECT * FROM UNNEST([@p])",
        {"p": (5, "x")},
        {"p": PAIR},
        [[5, "x"]],
        ["threadid", "name"],
    ),
    "UNNEST([@p]) with fields sharing a name": (
        "SELECT * FROM UNNEST([@p])",
        {"p": (10, 20)},
        {"p": SAME_NAMES},
        [[10, 20]],
        ["field", "field"],
    ),
    "UNNEST([@p]) with an unnamed field": (
        "SELECT * FROM UNNEST([@p])",
        {"p": ("hello",)},
        {"p": ONE_UNNAMED},
        [["hello"]],
        [""],
    ),
    "array of structs whose fields share a name": (
        "SELECT * FROM UNNEST(@p)",
        {"p": [(1, 2), (3, 4)]},
        {"p": T.Array(SAME_NAMES)},
        [[1, 2], [3, 4]],
        ["field", "field"],
    ),
    "CAST of anonymous fields to named ones, then .*": (
        "SELECT CAST(t AS STRUCT<threadid INT64, userid STRING>).* FROM UNNEST(@p) t",
        {"p": [(123, "abcdef")]},
        {"p": T.Array(ANONYMOUS)},
        [[123, "abcdef"]],
        ["threadid", "userid"],
    ),
    "ARRAY of SELECT AS STRUCT over struct fields": (
        "SELECT ARRAY(SELECT AS STRUCT message, repeat"
        " FROM (SELECT @value.message AS message, @value.repeat AS repeat))",
        {"value": ("hello", 1)},
        {"value": MESSAGE},
        [[[["hello", 1]]]],
        None,
    ),
    "element of an array parameter, then a field": (
        "SELECT @p[OFFSET(1)].name, ARRAY_LENGTH(@p)",
        {"p": [(1, "a"), (2, "b")]},
        {"p": T.Array(PAIR)},
        [["b", 2]],
        None,
    ),
}


@pytest.fixture(scope="module")
def sdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database([])


def _query(db: SpannerDb, sql: str, params: dict[str, Any], types: dict[str, Any]) -> tuple[list[list[Any]], list[str]]:
    with db.database.snapshot() as snap:
        rs = snap.execute_sql(sql, params=params, param_types=types)
        rows = [list(r) for r in rs]
        return rows, [f.name for f in rs.fields]


@pytest.mark.parametrize("case", list(CASES))
def test_struct_parameters(sdb: SpannerDb, case: str) -> None:
    sql, params, types, want_rows, want_names = CASES[case]
    rows, names = _query(sdb, sql, params, types)
    assert rows == want_rows
    if want_names is not None:
        assert names == want_names


def test_struct_parameter_result_type_keeps_field_names(sdb: SpannerDb) -> None:
    with sdb.database.snapshot() as snap:
        rs = snap.execute_sql("SELECT @p", params={"p": (1, 2)}, param_types={"p": SAME_NAMES})
        rows = [list(r) for r in rs]
        field_type = rs.fields[0].type_
    assert rows == [[[1, 2]]]
    assert [f.name for f in field_type.struct_type.fields] == ["field", "field"]


AMBIGUOUS = {
    "@p.field": "SELECT @p.field",
    "alias.field": "SELECT x.field FROM UNNEST([@p]) x",
    "bare field": "SELECT field FROM UNNEST([@p])",
}


@pytest.mark.parametrize("form", list(AMBIGUOUS))
def test_a_shared_field_name_is_ambiguous(sdb: SpannerDb, form: str) -> None:
    with pytest.raises(gexc.InvalidArgument, match="ambiguous"):
        _query(sdb, AMBIGUOUS[form], {"p": (1, 2)}, {"p": SAME_NAMES})


def test_arrays_of_arrays_are_invalid(sdb: SpannerDb) -> None:
    with pytest.raises(gexc.InvalidArgument, match="nested arrays are not supported"):
        _query(sdb, "SELECT [[1, 2]]", {}, {})
