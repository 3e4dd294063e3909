"""Stock-Level (clause 2.8): a read-only transaction (one strong snapshot) counting the distinct
items of the district's last 20 orders whose stock is below a threshold of 10..20."""

from __future__ import annotations

from spanload.workers.tpcc.common import Database, Outcome, Terminal, must_row

RECENT_ORDERS = 20


def stock_level(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id, d_id = t.w_id, t.district()
    threshold = t.rng.randint(10, 20)
    with database.snapshot(multi_use=True) as snapshot:
        (next_o_id,) = must_row(snapshot, "district", ("d_next_o_id",), (w_id, d_id))
        lo = next_o_id - RECENT_ORDERS
        rows = t.sql.rows(snapshot, "low_stock", w=w_id, d=d_id, lo=lo, next=next_o_id, threshold=threshold)
        outcome.details["low_stock"] = int(rows[0][0])
