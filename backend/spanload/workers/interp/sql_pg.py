"""What the interpreter reads from a PostgreSQL statement's text: its ``$1``, ``$2`` ... parameters
(named ``p1``, ``p2`` ... on Spanner's wire, and in a step's ``params``) and whether it is a query
or DML. A scanner, not a parser: it skips string literals (``'...'`` with ``''``, ``E'...'`` with
backslash escapes, dollar-quoted ``$tag$...$tag$``), quoted identifiers and comments, so that a
``$1`` inside any of them is not taken for a parameter."""

from __future__ import annotations

import re

from spanload.workers.interp.sql import comment_end, word_end

_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_NUMBER = re.compile(r"\$(\d+)")


def _skip_quoted(sql: str, i: int, backslash: bool) -> int:
    """The index just past the literal or quoted identifier that starts at ``sql[i]``."""
    quote = sql[i]
    j = i + 1
    while j < len(sql):
        if backslash and sql[j] == "\\":
            j += 2
            continue
        if sql[j] == quote:
            if sql.startswith(quote * 2, j):  # a doubled quote stands for one
                j += 2
                continue
            return j + 1
        j += 1
    return j


def scan_pg(sql: str) -> tuple[list[str], str]:
    """``(parameter names p<n> in order of first appearance, first keyword upper-cased)``."""
    names: list[str] = []
    first = ""
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"":
            escaped = c == "'" and i > 0 and sql[i - 1] in "eE" and (i < 2 or not sql[i - 2].isalnum())
            i = _skip_quoted(sql, i, escaped)
        elif (end := comment_end(sql, i)) is not None:
            i = end
        elif c == "$":
            number = _NUMBER.match(sql, i)
            if number is not None:
                name = f"p{int(number.group(1))}"
                if name not in names:
                    names.append(name)
                i = number.end()
                continue
            tag = _DOLLAR_TAG.match(sql, i)
            if tag is None:
                i += 1
                continue
            close = sql.find(tag.group(), tag.end())
            i = n if close < 0 else close + len(tag.group())
        elif c.isalpha() or c == "_":
            word, i = word_end(sql, i, also="_$")  # $ may go on an identifier in PostgreSQL
            if not first:
                first = word.upper()
        else:
            i += 1
    return names, first
