"""Stock-Level (clause 2.8): a read-only transaction (one strong snapshot) counting the distinct
items of the district's last 20 orders whose stock is below a threshold of 10..20."""

from __future__ import annotations

from google.cloud.spanner_v1 import param_types

from spanload.workers.tpcc.common import Database, Outcome, Terminal, must_row

RECENT_ORDERS = 20
LOW_STOCK = (
    "SELECT COUNT(DISTINCT s.i_id) FROM order_line AS ol JOIN stock AS s "
    "ON s.w_id = ol.w_id AND s.i_id = ol.ol_i_id "
    "WHERE ol.w_id = @w AND ol.d_id = @d AND ol.o_id >= @lo AND ol.o_id < @next AND s.s_quantity < @threshold"
)
_TYPES = {k: param_types.INT64 for k in ("w", "d", "lo", "next", "threshold")}


def stock_level(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id, d_id = t.w_id, t.district()
    threshold = t.rng.randint(10, 20)
    with database.snapshot(multi_use=True) as snapshot:
        (next_o_id,) = must_row(snapshot, "district", ("d_next_o_id",), (w_id, d_id))
        params = {"w": w_id, "d": d_id, "lo": next_o_id - RECENT_ORDERS, "next": next_o_id, "threshold": threshold}
        rows = list(snapshot.execute_sql(LOW_STOCK, params=params, param_types=_TYPES))
        outcome.details["low_stock"] = int(rows[0][0])
