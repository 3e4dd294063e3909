"""Delivery (clause 2.7): for each of the warehouse's 10 districts, one read-write transaction
that takes the oldest undelivered order (its new-order row), gives it a carrier, dates its lines
and credits their amount to the customer's balance. A district with no undelivered order is
skipped (and counted). The business transaction's latency covers all 10."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from spanload.model.tpcc import DISTRICTS
from spanload.workers.tpcc.common import Database, Outcome, Terminal, keyset, must_row, read_write


def delivery(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id = t.w_id
    carrier = t.rng.randint(1, 10)
    for d_id in range(1, DISTRICTS + 1):

        def work(tx: Any, d_id: int = d_id) -> bool:
            oldest = t.sql.rows(tx, "oldest_new_order", w=w_id, d=d_id)
            if not oldest:
                return False
            o_id = oldest[0][0]
            (c_id,) = must_row(tx, "orders", ("o_c_id",), (w_id, d_id, o_id))
            lines = t.sql.rows(tx, "delivery_lines", w=w_id, d=d_id, o=o_id)
            balance, deliveries = must_row(tx, "customer", ("c_balance", "c_delivery_cnt"), (w_id, d_id, c_id))
            now = dt.datetime.now(dt.UTC)
            tx.delete("new_order", keyset([(w_id, d_id, o_id)]))
            tx.update("orders", ("w_id", "d_id", "o_id", "o_carrier_id"), [(w_id, d_id, o_id, carrier)])
            tx.update(
                "order_line",
                ("w_id", "d_id", "o_id", "ol_number", "ol_delivery_d"),
                [(w_id, d_id, o_id, number, now) for number, _ in lines],
            )
            total = sum((amount for _, amount in lines), Decimal(0))
            tx.update(
                "customer",
                ("w_id", "d_id", "c_id", "c_balance", "c_delivery_cnt"),
                [(w_id, d_id, c_id, balance + total, deliveries + 1)],
            )
            return True

        if not read_write(database, outcome, work):
            outcome.skipped += 1
