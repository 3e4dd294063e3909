"""TPC-C's initial population (clause 4.3.3.1), one unit (:func:`spanload.model.tpcc.load_units`)
per commit, through the preload phase.

Sizes per warehouse are the spec's unless ``tpcc.items`` / ``tpcc.customers_per_district`` scale
them down; everything else follows the spec: 10 districts (D_NEXT_O_ID = customers + 1), one
history row per customer, one order per customer (a random permutation of the customers), the
first 70 % of them delivered, the newest 30 % undelivered with a new-order row. Writes are
insert-or-update, so a retried or resumed unit rewrites its rows rather than failing.

Each unit has a *sentinel*, a row its commit writes; a unit is present when its sentinel is, which
is how a load is skipped or resumed (:func:`count_units`).
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from spanload.model.config import TpccConfig
from spanload.model.tpcc import DISTRICTS, NEW_ORDER_FRACTION, Unit, UnitKind, load_units
from spanload.spanner import deadline, mutations
from spanload.workers.tpcc.common import keyset
from spanload.workers.tpcc.rand import (
    A_LAST,
    C_LAST_LOAD,
    NAMES,
    astring,
    data_field,
    last_name,
    money,
    nstring,
    nurand,
    rate,
    zip_code,
)

Database = Any
Mutations = list[tuple[str, tuple[str, ...], list[tuple[Any, ...]]]]  # (table, columns, rows)

MIN_UNIT_TIMEOUT_S = 60.0  # a unit's commit into a busy server outlives a measured operation's deadline
WAREHOUSE_YTD = Decimal("300000.00")
DISTRICT_YTD = Decimal("30000.00")
CUSTOMER_COLUMNS = (
    "w_id", "d_id", "c_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state",
    "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment",
    "c_payment_cnt", "c_delivery_cnt", "c_data",
)  # fmt: skip
STOCK_COLUMNS = (
    "w_id", "i_id", "s_quantity", *(f"s_dist_{d:02d}" for d in range(1, DISTRICTS + 1)), "s_ytd", "s_order_cnt",
    "s_remote_cnt", "s_data",
)  # fmt: skip


def _address(rng: random.Random) -> tuple[str, str, str, str, str]:
    return astring(rng, 10, 20), astring(rng, 10, 20), astring(rng, 10, 20), astring(rng, 2, 2), zip_code(rng)


def delivered_below(customers: int) -> int:
    """Initial orders numbered below this are delivered (2,101 of 3,000 in the spec)."""
    return customers - round(customers * NEW_ORDER_FRACTION) + 1


def unit_mutations(unit: Unit, tpcc: TpccConfig, now: dt.datetime) -> Mutations:
    """The rows of one unit. Random but repeatable: the same unit always gets the same rows."""
    rng = random.Random(f"{unit.kind.value}/{unit.w}/{unit.d}/{unit.lo}")
    match unit.kind:
        case UnitKind.ITEMS:
            rows: list[tuple[Any, ...]] = [
                (i, rng.randint(1, 10_000), astring(rng, 14, 24), money(rng, 100, 10_000), data_field(rng))
                for i in range(unit.lo, unit.hi + 1)
            ]
            return [("item", ("i_id", "i_im_id", "i_name", "i_price", "i_data"), rows)]
        case UnitKind.WAREHOUSE:
            columns = ("w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd")
            warehouse = [(unit.w, astring(rng, 6, 10), *_address(rng), rate(rng, 0, 2000), WAREHOUSE_YTD)]
            next_o_id = tpcc.customers_per_district + 1
            districts = [
                (unit.w, d, astring(rng, 6, 10), *_address(rng), rate(rng, 0, 2000), DISTRICT_YTD, next_o_id)
                for d in range(1, DISTRICTS + 1)
            ]
            district_columns = ("w_id", "d_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip")
            return [
                ("warehouse", columns, warehouse),
                ("district", (*district_columns, "d_tax", "d_ytd", "d_next_o_id"), districts),
            ]
        case UnitKind.STOCK:
            rows = [
                (
                    unit.w,
                    i,
                    rng.randint(10, 100),
                    *(astring(rng, 24, 24) for _ in range(DISTRICTS)),
                    0,
                    0,
                    0,
                    data_field(rng),
                )
                for i in range(unit.lo, unit.hi + 1)
            ]
            return [("stock", STOCK_COLUMNS, rows)]
        case UnitKind.CUSTOMERS:
            return _customers(unit, rng, now)
        case UnitKind.ORDERS:
            return _orders(unit, tpcc, rng, now)


def _customers(unit: Unit, rng: random.Random, now: dt.datetime) -> Mutations:
    customers: list[tuple[Any, ...]] = []
    history: list[tuple[Any, ...]] = []
    for c in range(unit.lo, unit.hi + 1):
        name = last_name(c - 1) if c <= NAMES else last_name(nurand(rng, A_LAST, 0, NAMES - 1, C_LAST_LOAD))
        credit = "BC" if rng.random() < 0.1 else "GC"
        customers.append(
            (unit.w, unit.d, c, astring(rng, 8, 16), "OE", name, *_address(rng), nstring(rng, 16, 16), now, credit,
             Decimal("50000.00"), rate(rng, 0, 5000), Decimal("-10.00"), Decimal("10.00"), 1, 0, astring(rng, 300, 500))
        )  # fmt: skip
        history.append(
            (unit.w, unit.d, c, rng.getrandbits(63), unit.w, unit.d, now, Decimal("10.00"), astring(rng, 12, 24))
        )
    history_columns = ("w_id", "d_id", "c_id", "h_id", "h_w_id", "h_d_id", "h_date", "h_amount", "h_data")
    return [("customer", CUSTOMER_COLUMNS, customers), ("history", history_columns, history)]


def _orders(unit: Unit, tpcc: TpccConfig, rng: random.Random, now: dt.datetime) -> Mutations:
    customers = tpcc.customers_per_district
    # O_C_ID is a permutation of the customers, per district: the same one for every chunk
    permutation = list(range(1, customers + 1))
    random.Random(f"permutation/{unit.w}/{unit.d}").shuffle(permutation)
    delivered = delivered_below(customers)
    orders: list[tuple[Any, ...]] = []
    lines: list[tuple[Any, ...]] = []
    new_orders: list[tuple[Any, ...]] = []
    for o in range(unit.lo, unit.hi + 1):
        count = rng.randint(5, 15)
        done = o < delivered
        orders.append((unit.w, unit.d, o, permutation[o - 1], now, rng.randint(1, 10) if done else None, count, 1))
        for n in range(1, count + 1):
            amount = Decimal("0.00") if done else money(rng, 1, 999_999)
            item = rng.randint(1, tpcc.items)
            lines.append((unit.w, unit.d, o, n, item, unit.w, now if done else None, 5, amount, astring(rng, 24, 24)))
        if not done:
            new_orders.append((unit.w, unit.d, o))
    order_columns = ("w_id", "d_id", "o_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local")
    line_columns = (
        "w_id", "d_id", "o_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity",
        "ol_amount", "ol_dist_info",
    )  # fmt: skip
    out: Mutations = [("orders", order_columns, orders), ("order_line", line_columns, lines)]
    if new_orders:
        out.append(("new_order", ("w_id", "d_id", "o_id"), new_orders))
    return out


def sentinel(unit: Unit) -> tuple[str, tuple[int, ...]]:
    """(table, key) of a row the unit's commit writes."""
    match unit.kind:
        case UnitKind.ITEMS:
            return "item", (unit.hi,)
        case UnitKind.WAREHOUSE:
            return "district", (unit.w, DISTRICTS)
        case UnitKind.STOCK:
            return "stock", (unit.w, unit.hi)
        case UnitKind.CUSTOMERS:
            return "customer", (unit.w, unit.d, unit.hi)
        case UnitKind.ORDERS:
            return "orders", (unit.w, unit.d, unit.hi)


KEY_COLUMNS = {
    "item": ("i_id",),
    "district": ("w_id", "d_id"),
    "stock": ("w_id", "i_id"),
    "customer": ("w_id", "d_id", "c_id"),
    "orders": ("w_id", "d_id", "o_id"),
}


def count_units(database: Database, units: list[Unit]) -> int:
    """How many of ``units`` are present (their sentinel row exists): one read per table."""
    wanted: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    for unit in units:
        table, key = sentinel(unit)
        wanted[table].append(key)
    present = 0
    with (
        deadline.operation(max(deadline.timeout_s(), MIN_UNIT_TIMEOUT_S)),
        database.snapshot(multi_use=True) as snapshot,
    ):
        for table, keys in wanted.items():
            present += len(list(snapshot.read(table, KEY_COLUMNS[table][:1], keyset(keys))))
    return present


def loader_functions(
    tpcc: TpccConfig,
) -> tuple[Callable[[Database, int, int], None], Callable[[Database, int, int | None], int]]:
    """(write, count) for the preload phase: ``write(db, lo, hi)`` commits units ``[lo, hi)``;
    ``count(db, lo, hi)`` counts those present (every unit when ``hi`` is None)."""
    units = load_units(tpcc)

    def write(database: Database, lo: int, hi: int) -> None:
        now = dt.datetime.now(dt.UTC)
        built = [
            mutations.insert_or_update(table, columns, rows)
            for unit in units[lo:hi]
            for table, columns, rows in unit_mutations(unit, tpcc, now)
        ]
        timeout = max(deadline.timeout_s(), MIN_UNIT_TIMEOUT_S)
        with deadline.operation(timeout), database.batch(timeout_secs=timeout) as batch:
            for mutation in built:
                mutations.add_to_batch(batch, mutation)

    def count(database: Database, lo: int, hi: int | None) -> int:
        return count_units(database, units[lo:hi])

    return write, count
