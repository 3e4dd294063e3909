"""The two things the interpreter reads from a statement's text: its ``@name`` parameters and
whether it is a query or DML. A small scanner, not a parser: it skips string literals (quoted,
triple-quoted, raw and bytes forms), quoted identifiers, comments and ``@{...}`` hints, so that an
``@`` inside any of them is not taken for a parameter."""

from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z_]+")
QUERY_WORDS = frozenset({"SELECT", "WITH", "GRAPH", "FROM"})
DML_WORDS = frozenset({"INSERT", "UPDATE", "DELETE"})


def _skip_quoted(sql: str, i: int) -> int:
    """The index just past the literal or quoted identifier that starts at ``sql[i]``."""
    quote = sql[i]
    triple = sql[i : i + 3] == quote * 3
    end = quote * 3 if triple else quote
    j = i + len(end)
    raw = i > 0 and sql[i - 1] in "rR" and (i < 2 or not (sql[i - 2].isalnum() or sql[i - 2] == "_"))
    while j < len(sql):
        if sql[j] == "\\" and not raw:
            j += 2
            continue
        if sql.startswith(end, j):
            return j + len(end)
        j += 1
    return j


def comment_end(sql: str, i: int, hash_comments: bool = False) -> int | None:
    """The index just past the ``--`` or ``/* */`` comment (and ``#`` one, if asked) that starts at
    ``sql[i]``; None when none does."""
    c = sql[i]
    if (c == "-" and sql.startswith("--", i)) or (hash_comments and c == "#"):
        nl = sql.find("\n", i)
        return len(sql) if nl < 0 else nl + 1
    if c == "/" and sql.startswith("/*", i):
        close = sql.find("*/", i + 2)
        return len(sql) if close < 0 else close + 2
    return None


def word_end(sql: str, i: int, also: str = "_") -> tuple[str, int]:
    """The keyword or identifier that starts at ``sql[i]`` (letters first) and the index past it."""
    match = _WORD.match(sql, i)
    assert match is not None
    j = match.end()
    while j < len(sql) and (sql[j].isalnum() or sql[j] in also):
        j += 1
    return match.group(), j


def scan(sql: str) -> tuple[list[str], str]:
    """``(parameter names in order of first appearance, first keyword upper-cased)``."""
    names: list[str] = []
    first = ""
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`":
            i = _skip_quoted(sql, i)
        elif (end := comment_end(sql, i, hash_comments=True)) is not None:
            i = end
        elif c == "@":
            if sql.startswith("@{", i):
                close = sql.find("}", i + 2)
                i = n if close < 0 else close + 1
            elif sql.startswith("@@", i):  # a system variable
                match = _NAME.match(sql, i + 2)
                i = match.end() if match else i + 2
            else:
                match = _NAME.match(sql, i + 1)
                if match is None:
                    i += 1
                    continue
                if match.group() not in names:
                    names.append(match.group())
                i = match.end()
        elif c.isalpha() or c == "_":
            word, i = word_end(sql, i)
            if not first:
                first = word.upper()
        else:
            i += 1
    return names, first


def is_dml(first_word: str) -> bool:
    return first_word in DML_WORDS
