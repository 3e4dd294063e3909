"""Order-Status (clause 2.6): a read-only transaction (one strong snapshot) that finds a customer,
by last name 60 % of the time, and shows its newest order and that order's lines."""

from __future__ import annotations

from spanload.workers.tpcc.common import (
    BY_NAME_PCT,
    Database,
    MissingRow,
    Outcome,
    Terminal,
    customer_by_name,
    must_row,
)


def order_status(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id, d_id = t.w_id, t.district()
    by_name = t.pct(BY_NAME_PCT)
    last = t.rand.last_name() if by_name else ""
    chosen = 0 if by_name else t.rand.customer_id()
    with database.snapshot(multi_use=True) as snapshot:
        c_id = customer_by_name(t, snapshot, w_id, d_id, last) if by_name else chosen
        if c_id is None:
            raise MissingRow(f"no customer named {last} in warehouse {w_id} district {d_id}")
        must_row(snapshot, "customer", ("c_balance", "c_first", "c_middle", "c_last"), (w_id, d_id, c_id))
        newest = t.sql.rows(snapshot, "last_order", w=w_id, d=d_id, c=c_id)
        if newest:
            o_id = newest[0][0]
            must_row(snapshot, "orders", ("o_entry_d", "o_carrier_id"), (w_id, d_id, o_id))
            outcome.details["lines"] = len(t.sql.rows(snapshot, "status_lines", w=w_id, d=d_id, o=o_id))
