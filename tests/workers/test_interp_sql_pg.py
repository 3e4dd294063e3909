"""The PostgreSQL statement scanner: ``$n`` parameters outside what PostgreSQL's lexical structure
(its documentation, "Lexical Structure") makes text: string constants with doubled quotes, escape
strings E'...' with backslashes, dollar-quoted strings ($$...$$, $tag$...$tag$), quoted
identifiers, -- and /* */ comments."""

from __future__ import annotations

import pytest

from spanload.workers.interp.sql_pg import scan_pg


@pytest.mark.parametrize(
    ("sql", "names", "first"),
    [
        ("SELECT a FROM t WHERE k = $1", ["p1"], "SELECT"),
        ("update t set a = $2 where k = $1 and b = $2", ["p2", "p1"], "UPDATE"),
        ("SELECT 'it''s $1', $2", ["p2"], "SELECT"),
        ("SELECT E'\\' $1', $3", ["p3"], "SELECT"),
        ("SELECT $$ $1 $$, $body$ it's $2 $body$, $4", ["p4"], "SELECT"),
        ('SELECT "odd $1 name" FROM t WHERE x = $10', ["p10"], "SELECT"),
        ("-- $1 in a comment\nDELETE FROM t /* $2 */ WHERE k = $5", ["p5"], "DELETE"),
        ("WITH x AS (SELECT $1 AS v) SELECT v FROM x", ["p1"], "WITH"),
        ("SELECT a$1 FROM t", [], "SELECT"),  # $ inside an identifier is part of it
    ],
)
def test_parameters_outside_literals_comments_and_identifiers(sql: str, names: list[str], first: str) -> None:
    assert scan_pg(sql) == (names, first)
