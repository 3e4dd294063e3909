"""TPC-C's consistency conditions 1 to 4 (clause 3.3.2.1 - 3.3.2.4), checked after a run from one
strong snapshot:

1. each warehouse's W_YTD is the sum of its districts' D_YTD;
2. each district's D_NEXT_O_ID - 1 is the largest O_ID of its orders and the largest NO_O_ID of
   its new-order rows (when it has any);
3. each district's new-order rows number max(NO_O_ID) - min(NO_O_ID) + 1 (no gaps);
4. each district's orders' O_OL_CNT add up to its order-line rows.

:func:`check` judges the aggregates (so a test can hand it broken ones); :func:`read_aggregates`
reads them with GROUP BY queries.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from spanload.model.tpcc import ConditionResult

District = tuple[int, int]
MAX_EXAMPLES = 3  # offending warehouses/districts named in a failure's detail

QUERIES = {
    "warehouses": "SELECT w_id, w_ytd FROM warehouse",
    "districts": "SELECT w_id, d_id, d_ytd, d_next_o_id FROM district",
    "orders": "SELECT w_id, d_id, MAX(o_id), SUM(o_ol_cnt) FROM orders GROUP BY w_id, d_id",
    "new_orders": "SELECT w_id, d_id, MAX(o_id), MIN(o_id), COUNT(*) FROM new_order GROUP BY w_id, d_id",
    "order_lines": "SELECT w_id, d_id, COUNT(*) FROM order_line GROUP BY w_id, d_id",
}


@dataclass
class Aggregates:
    w_ytd: dict[int, Decimal] = field(default_factory=dict)
    d_ytd: dict[District, Decimal] = field(default_factory=dict)
    d_next_o_id: dict[District, int] = field(default_factory=dict)
    max_o_id: dict[District, int] = field(default_factory=dict)
    ol_cnt_sum: dict[District, int] = field(default_factory=dict)
    new_order_max: dict[District, int] = field(default_factory=dict)
    new_order_min: dict[District, int] = field(default_factory=dict)
    new_order_count: dict[District, int] = field(default_factory=dict)
    order_lines: dict[District, int] = field(default_factory=dict)


def read_aggregates(database: Any) -> Aggregates:
    """The figures the four conditions compare, from one strong read-only snapshot."""
    out = Aggregates()
    with database.snapshot(multi_use=True) as snapshot:
        rows = {name: [tuple(r) for r in snapshot.execute_sql(sql)] for name, sql in QUERIES.items()}
    out.w_ytd = {w: Decimal(ytd) for w, ytd in rows["warehouses"]}
    for w, d, ytd, next_o_id in rows["districts"]:
        out.d_ytd[(w, d)], out.d_next_o_id[(w, d)] = Decimal(ytd), next_o_id
    for w, d, max_o, ol_sum in rows["orders"]:
        out.max_o_id[(w, d)], out.ol_cnt_sum[(w, d)] = max_o, ol_sum
    for w, d, hi, lo, count in rows["new_orders"]:
        out.new_order_max[(w, d)], out.new_order_min[(w, d)], out.new_order_count[(w, d)] = hi, lo, count
    out.order_lines = {(w, d): count for w, d, count in rows["order_lines"]}
    return out


def _verdict(problems: list[str], checked: int, what: str) -> str:
    if not checked:
        return f"{ConditionResult.FAILED.value}: no {what} to check"
    if not problems:
        return ConditionResult.OK.value
    more = f" (and {len(problems) - MAX_EXAMPLES} more)" if len(problems) > MAX_EXAMPLES else ""
    return f"{ConditionResult.FAILED.value}: " + "; ".join(problems[:MAX_EXAMPLES]) + more


def _name(district: District) -> str:
    return f"warehouse {district[0]} district {district[1]}"


def check(a: Aggregates) -> dict[str, str]:
    """``{"condition_1": "ok" | "failed: <detail>", ...}`` for conditions 1 to 4."""
    sums: dict[int, Decimal] = defaultdict(Decimal)
    for (w, _), ytd in a.d_ytd.items():
        sums[w] += ytd
    one = [
        f"warehouse {w}: W_YTD {ytd} != sum(D_YTD) {sums.get(w, Decimal(0))}"
        for w, ytd in sorted(a.w_ytd.items())
        if ytd != sums.get(w, Decimal(0))
    ]
    two, three, four = [], [], []
    for district, next_o_id in sorted(a.d_next_o_id.items()):
        max_o = a.max_o_id.get(district)
        max_no = a.new_order_max.get(district)
        if max_o != next_o_id - 1 or (max_no is not None and max_no != next_o_id - 1):
            two.append(
                f"{_name(district)}: D_NEXT_O_ID - 1 = {next_o_id - 1}, max(O_ID) = {max_o}, max(NO_O_ID) = {max_no}"
            )
        if max_no is not None:
            span = max_no - a.new_order_min[district] + 1
            rows = a.new_order_count[district]
            if span != rows:
                three.append(f"{_name(district)}: max - min + 1 of NO_O_ID = {span}, new-order rows = {rows}")
        ol_sum, lines = a.ol_cnt_sum.get(district, 0), a.order_lines.get(district, 0)
        if ol_sum != lines:
            four.append(f"{_name(district)}: sum(O_OL_CNT) = {ol_sum}, order-line rows = {lines}")
    districts = len(a.d_next_o_id)
    return {
        "condition_1": _verdict(one, len(a.w_ytd), "warehouses"),
        "condition_2": _verdict(two, districts, "districts"),
        "condition_3": _verdict(three, districts, "districts"),
        "condition_4": _verdict(four, districts, "districts"),
    }
