"""The nine TPC-C tables in Spanner's idiom (``workload: tpcc``), declared once and written out in
either dialect: GoogleSQL (:data:`DDL`) and PostgreSQL (:data:`PG_DDL`, for the ``postgresql`` and
``pgadapter`` interfaces).

Every table under a warehouse is interleaved in its parent, so that one warehouse's rows sit
together and a transaction touches one split where the keys allow: district in warehouse,
customer and orders and new_order in district, history in customer, order_line in orders, stock
in warehouse. The key columns keep one name down the hierarchy (``w_id``, ``d_id``, ``c_id``,
``o_id``), as Spanner requires of an interleaved child's key prefix. Money is NUMERIC, so the
consistency conditions compare exact sums. ``item`` is the one table outside the hierarchy.

Secondary indexes, interleaved in district like the rows they index: customers by last name
(Payment and Order-Status by name), and orders by customer, newest first (Order-Status).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spanload.model.config import Target
from spanload.spanner.schemas import ensure_ddl

TABLES = ("warehouse", "district", "customer", "history", "orders", "new_order", "order_line", "item", "stock")

# A column's type in each dialect: (GoogleSQL, PostgreSQL); "{n}" is a string's length.
_TYPES = {
    "int": ("INT64", "bigint"),
    "str": ("STRING({n})", "varchar({n})"),
    "num": ("NUMERIC", "numeric"),
    "ts": ("TIMESTAMP", "timestamptz"),
}


@dataclass(frozen=True)
class _Table:
    name: str
    key: tuple[str, ...]
    columns: tuple[str, ...]  # "name type" with type int, num, ts or str<n>; the key columns first
    parent: str = ""


@dataclass(frozen=True)
class _Index:
    name: str
    table: str
    columns: str  # the key, as both dialects write it
    parent: str


def _cols(spec: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in spec.split(",") if c.strip())


_ADDRESS = "street_1 str20, street_2 str20, city str20, state str2, zip str9"


def _prefixed(prefix: str, spec: str) -> str:
    return ", ".join(f"{prefix}{c.strip()}" for c in spec.split(","))


_SCHEMA: tuple[_Table | _Index, ...] = (
    _Table("warehouse", ("w_id",), _cols(f"w_id int, w_name str10, {_prefixed('w_', _ADDRESS)}, w_tax num, w_ytd num")),
    _Table(
        "district",
        ("w_id", "d_id"),
        _cols(f"w_id int, d_id int, d_name str10, {_prefixed('d_', _ADDRESS)}, d_tax num, d_ytd num, d_next_o_id int"),
        "warehouse",
    ),
    _Table(
        "customer",
        ("w_id", "d_id", "c_id"),
        _cols(
            f"w_id int, d_id int, c_id int, c_first str16, c_middle str2, c_last str16, {_prefixed('c_', _ADDRESS)}, "
            "c_phone str16, c_since ts, c_credit str2, c_credit_lim num, c_discount num, c_balance num, "
            "c_ytd_payment num, c_payment_cnt int, c_delivery_cnt int, c_data str500"
        ),
        "district",
    ),
    _Index("customer_by_last_name", "customer", "w_id, d_id, c_last, c_first", "district"),
    # TPC-C's HISTORY has no key; h_id (random) makes one, under the paying customer.
    _Table(
        "history",
        ("w_id", "d_id", "c_id", "h_id"),
        _cols("w_id int, d_id int, c_id int, h_id int, h_w_id int, h_d_id int, h_date ts, h_amount num, h_data str24"),
        "customer",
    ),
    _Table(
        "orders",
        ("w_id", "d_id", "o_id"),
        _cols(
            "w_id int, d_id int, o_id int, o_c_id int, o_entry_d ts, o_carrier_id int, o_ol_cnt int, o_all_local int"
        ),
        "district",
    ),
    _Index("orders_by_customer", "orders", "w_id, d_id, o_c_id, o_id DESC", "district"),
    _Table("new_order", ("w_id", "d_id", "o_id"), _cols("w_id int, d_id int, o_id int"), "district"),
    _Table(
        "order_line",
        ("w_id", "d_id", "o_id", "ol_number"),
        _cols(
            "w_id int, d_id int, o_id int, ol_number int, ol_i_id int, ol_supply_w_id int, ol_delivery_d ts, "
            "ol_quantity int, ol_amount num, ol_dist_info str24"
        ),
        "orders",
    ),
    _Table("item", ("i_id",), _cols("i_id int, i_im_id int, i_name str24, i_price num, i_data str50")),
    _Table(
        "stock",
        ("w_id", "i_id"),
        _cols(
            "w_id int, i_id int, s_quantity int, "
            + ", ".join(f"s_dist_{d:02d} str24" for d in range(1, 11))
            + ", s_ytd int, s_order_cnt int, s_remote_cnt int, s_data str50"
        ),
        "warehouse",
    ),
)


def _type(kind: str, pg: bool) -> str:
    if kind.startswith("str"):
        return _TYPES["str"][pg].format(n=kind[3:])
    return _TYPES[kind][pg]


def _statement(obj: _Table | _Index, pg: bool) -> str:
    if isinstance(obj, _Index):
        comma = "" if pg else ","  # GoogleSQL: "(...), INTERLEAVE IN"; PostgreSQL: "(...) INTERLEAVE IN"
        return f"CREATE INDEX {obj.name} ON {obj.table} ({obj.columns}){comma} INTERLEAVE IN {obj.parent}"
    lines = []
    for column in obj.columns:
        name, kind = column.split()
        lines.append(f"  {name} {_type(kind, pg)}{' NOT NULL' if name in obj.key else ''},")
    key = ", ".join(obj.key)
    parent = f"INTERLEAVE IN PARENT {obj.parent} ON DELETE CASCADE" if obj.parent else ""
    if pg:
        body = "\n".join(lines) + f"\n  PRIMARY KEY ({key})"
        return f"CREATE TABLE {obj.name} (\n{body}\n)" + (f" {parent}" if parent else "")
    tail = f", {parent}" if parent else ""
    return f"CREATE TABLE {obj.name} (\n" + "\n".join(lines) + f"\n) PRIMARY KEY ({key}){tail}"


DDL: tuple[str, ...] = tuple(_statement(obj, pg=False) for obj in _SCHEMA)
PG_DDL: tuple[str, ...] = tuple(_statement(obj, pg=True) for obj in _SCHEMA)


def tpcc_ddl(postgresql: bool) -> tuple[str, ...]:
    return PG_DDL if postgresql else DDL


def ensure_tpcc_schema(client: Any, target: Target, postgresql: bool = False) -> None:
    """Create what is missing of the nine tables and two indexes (idempotent, like the report schemas),
    on a PostgreSQL-dialect database when ``postgresql``."""
    ensure_ddl(client, target, tpcc_ddl(postgresql), "tpcc", postgresql=postgresql)
