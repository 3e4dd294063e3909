"""The TPC-C transactions' queries, written once and rendered in the database's dialect.

A query names its parameters ``{w}``, ``{d}`` ... and the index it forces ``{hint}`` (right after
the table's name). GoogleSQL writes them ``@w`` and ``@{FORCE_INDEX=name}``; Spanner's PostgreSQL
dialect ``$1``, ``$2`` ... (in order of first appearance, ``p1``, ``p2`` ... on Spanner's wire) and
``/*@ FORCE_INDEX=name */``. The reads by key and the writes are not here: they go through the
client's read and mutation calls, which the ``pgadapter`` interface's driver writes as ``SELECT``
and DML (:mod:`spanload.workers.interp.pg_driver`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from google.cloud.spanner_v1 import param_types

_PARAM = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Query:
    template: str
    index: str = ""  # the index ``{hint}`` forces


QUERIES = {
    "customer_by_name": Query(
        "SELECT c_id FROM customer{hint} WHERE w_id = {w} AND d_id = {d} AND c_last = {last} ORDER BY c_first",
        "customer_by_last_name",
    ),
    "oldest_new_order": Query("SELECT o_id FROM new_order WHERE w_id = {w} AND d_id = {d} ORDER BY o_id LIMIT 1"),
    "delivery_lines": Query(
        "SELECT ol_number, ol_amount FROM order_line WHERE w_id = {w} AND d_id = {d} AND o_id = {o}"
    ),
    "last_order": Query(
        "SELECT o_id FROM orders{hint} WHERE w_id = {w} AND d_id = {d} AND o_c_id = {c} ORDER BY o_id DESC LIMIT 1",
        "orders_by_customer",
    ),
    "status_lines": Query(
        "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
        "WHERE w_id = {w} AND d_id = {d} AND o_id = {o}"
    ),
    "low_stock": Query(
        "SELECT COUNT(DISTINCT s.i_id) FROM order_line AS ol JOIN stock AS s "
        "ON s.w_id = ol.w_id AND s.i_id = ol.ol_i_id "
        "WHERE ol.w_id = {w} AND ol.d_id = {d} AND ol.o_id >= {lo} AND ol.o_id < {next} "
        "AND s.s_quantity < {threshold}"
    ),
}


def _param_type(value: Any) -> Any:
    return param_types.STRING if isinstance(value, str) else param_types.INT64


@dataclass(frozen=True)
class Rendered:
    sql: str
    names: tuple[str, ...]  # the template's parameter names, in the order of the wire names
    wire: tuple[str, ...]  # the names the statement's parameters have on Spanner's wire


def render(query: Query, postgresql: bool) -> Rendered:
    names: list[str] = []
    for name in _PARAM.findall(query.template):
        if name != "hint" and name not in names:
            names.append(name)
    if postgresql:
        marks = {n: f"${i + 1}" for i, n in enumerate(names)}
        wire = tuple(f"p{i + 1}" for i in range(len(names)))
        hint = f" /*@ FORCE_INDEX={query.index} */" if query.index else ""
    else:
        marks = {n: f"@{n}" for n in names}
        wire = tuple(names)
        hint = f"@{{FORCE_INDEX={query.index}}}" if query.index else ""
    return Rendered(query.template.format(hint=hint, **marks), tuple(names), wire)


class Statements:
    """The queries in one dialect, run on a transaction or snapshot of either client."""

    def __init__(self, postgresql: bool = False) -> None:
        self.postgresql = postgresql
        self.rendered = {name: render(q, postgresql) for name, q in QUERIES.items()}

    def rows(self, snapshot: Any, name: str, **values: Any) -> list[tuple[Any, ...]]:
        r = self.rendered[name]
        params = {wire: values[n] for wire, n in zip(r.wire, r.names, strict=True)}
        types = {wire: _param_type(params[wire]) for wire in r.wire}
        return [tuple(row) for row in snapshot.execute_sql(r.sql, params=params, param_types=types)]


GOOGLESQL = Statements(postgresql=False)
POSTGRESQL = Statements(postgresql=True)
