"""New-Order (clause 2.4): a read-write transaction that takes the district's next order number,
prices 5..15 lines from the items and their stock, and inserts the order, its new-order row and
its lines. 1 % of them name an unused item as their last line and roll back (the spec's
deliberate user abort); 1 % of lines come from another warehouse when there is one."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from spanload.workers.tpcc.common import REMOTE_LINE_PCT, Database, Outcome, Terminal, keyset, must_row, read_write

ROLLBACK_PCT = 1
STOCK_COLUMNS = ("w_id", "i_id", "s_quantity", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data")
CENTS = Decimal("0.01")


class RolledBack(Exception):
    """An order line names an unused item: the transaction rolls back, as the spec requires."""


def dist_column(d_id: int) -> str:
    return f"s_dist_{d_id:02d}"


def inputs(t: Terminal) -> tuple[int, int, list[tuple[int, int, int]]]:
    """(district, customer, lines of (item, supplying warehouse, quantity))."""
    d_id, c_id = t.district(), t.rand.customer_id()
    count = t.rng.randint(5, 15)
    rollback = t.pct(ROLLBACK_PCT)
    lines = []
    for n in range(count):
        item = t.rand.items + 1 if rollback and n == count - 1 else t.rand.item_id()
        remote = t.warehouses > 1 and t.pct(REMOTE_LINE_PCT)
        lines.append((item, t.other_warehouse() if remote else t.w_id, t.rng.randint(1, 10)))
    return d_id, c_id, lines


def new_order(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id = t.w_id
    d_id, c_id, lines = inputs(t)
    all_local = int(all(supply == w_id for _, supply, _ in lines))

    def work(tx: Any) -> None:
        (w_tax,) = must_row(tx, "warehouse", ("w_tax",), (w_id,))
        d_tax, o_id = must_row(tx, "district", ("d_tax", "d_next_o_id"), (w_id, d_id))
        discount, _last, _credit = must_row(tx, "customer", ("c_discount", "c_last", "c_credit"), (w_id, d_id, c_id))
        item_ids = sorted({item for item, _, _ in lines})
        items = {
            row[0]: row
            for row in tx.read("item", ("i_id", "i_price", "i_name", "i_data"), keyset((i,) for i in item_ids))
        }
        if len(items) < len(item_ids):
            raise RolledBack(f"item {max(set(item_ids) - set(items))} is not used")
        stock_keys = sorted({(supply, item) for item, supply, _ in lines})
        columns = (*STOCK_COLUMNS, dist_column(d_id))
        stock = {(r[0], r[1]): list(r) for r in tx.read("stock", columns, keyset(stock_keys))}
        now = dt.datetime.now(dt.UTC)
        tx.update("district", ("w_id", "d_id", "d_next_o_id"), [(w_id, d_id, o_id + 1)])
        tx.insert(
            "orders",
            ("w_id", "d_id", "o_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"),
            [(w_id, d_id, o_id, c_id, now, None, len(lines), all_local)],
        )
        tx.insert("new_order", ("w_id", "d_id", "o_id"), [(w_id, d_id, o_id)])
        order_lines = []
        total = Decimal(0)
        for number, (item, supply, quantity) in enumerate(lines, start=1):
            _, price, _name, _data = items[item]
            row = stock[(supply, item)]
            s_quantity = row[2]
            row[2] = s_quantity - quantity if s_quantity >= quantity + 10 else s_quantity - quantity + 91
            row[3] += quantity
            row[4] += 1
            row[5] += int(supply != w_id)
            amount = (price * quantity).quantize(CENTS)
            total += amount
            order_lines.append((w_id, d_id, o_id, number, item, supply, None, quantity, amount, row[7]))
        tx.update(
            "stock",
            ("w_id", "i_id", "s_quantity", "s_ytd", "s_order_cnt", "s_remote_cnt"),
            [tuple(row[:6]) for row in stock.values()],
        )
        tx.insert(
            "order_line",
            ("w_id", "d_id", "o_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity",
             "ol_amount", "ol_dist_info"),
            order_lines,
        )  # fmt: skip
        outcome.details["total"] = total * (1 - discount) * (1 + w_tax + d_tax)
        outcome.details["o_id"] = o_id

    try:
        read_write(database, outcome, work)
    except RolledBack:
        outcome.rolled_back = True
