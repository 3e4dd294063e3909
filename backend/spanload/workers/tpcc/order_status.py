"""Order-Status (clause 2.6): a read-only transaction (one strong snapshot) that finds a customer,
by last name 60 % of the time, and shows its newest order and that order's lines."""

from __future__ import annotations

from google.cloud.spanner_v1 import param_types

from spanload.workers.tpcc.common import (
    BY_NAME_PCT,
    Database,
    MissingRow,
    Outcome,
    Terminal,
    customer_by_name,
    must_row,
)

LAST_ORDER = (
    "SELECT o_id FROM orders@{FORCE_INDEX=orders_by_customer} "
    "WHERE w_id = @w AND d_id = @d AND o_c_id = @c ORDER BY o_id DESC LIMIT 1"
)
LINES = (
    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
    "WHERE w_id = @w AND d_id = @d AND o_id = @o"
)
_TYPES = {"w": param_types.INT64, "d": param_types.INT64, "c": param_types.INT64, "o": param_types.INT64}


def order_status(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id, d_id = t.w_id, t.district()
    by_name = t.pct(BY_NAME_PCT)
    last = t.rand.last_name() if by_name else ""
    chosen = 0 if by_name else t.rand.customer_id()
    with database.snapshot(multi_use=True) as snapshot:
        c_id = customer_by_name(snapshot, w_id, d_id, last) if by_name else chosen
        if c_id is None:
            raise MissingRow(f"no customer named {last} in warehouse {w_id} district {d_id}")
        must_row(snapshot, "customer", ("c_balance", "c_first", "c_middle", "c_last"), (w_id, d_id, c_id))
        params = {"w": w_id, "d": d_id, "c": c_id}
        newest = list(snapshot.execute_sql(LAST_ORDER, params=params, param_types=_TYPES))
        if newest:
            o_id = newest[0][0]
            must_row(snapshot, "orders", ("o_entry_d", "o_carrier_id"), (w_id, d_id, o_id))
            params = {"w": w_id, "d": d_id, "o": o_id}
            outcome.details["lines"] = len(list(snapshot.execute_sql(LINES, params=params, param_types=_TYPES)))
