"""Payment (clause 2.5): a read-write transaction that adds the amount to the warehouse's and the
district's year-to-date, takes it from the customer's balance (a bad-credit customer's data gets
the payment prepended) and inserts a history row. The customer is chosen by last name 60 % of the
time, else by id; 15 % of customers belong to another warehouse when there is one."""

from __future__ import annotations

import datetime as dt
from typing import Any

from spanload.workers.tpcc.common import (
    BY_NAME_PCT,
    REMOTE_PAYMENT_PCT,
    Database,
    MissingRow,
    Outcome,
    Terminal,
    customer_by_name,
    must_row,
    read_write,
)
from spanload.workers.tpcc.rand import money

C_DATA_MAX = 500
CUSTOMER_COLUMNS = ("c_balance", "c_ytd_payment", "c_payment_cnt", "c_credit", "c_data")


def payment(database: Database, t: Terminal, outcome: Outcome) -> None:
    w_id, d_id = t.w_id, t.district()
    if t.warehouses > 1 and t.pct(REMOTE_PAYMENT_PCT):
        c_w_id, c_d_id = t.other_warehouse(), t.district()
    else:
        c_w_id, c_d_id = w_id, d_id
    by_name = t.pct(BY_NAME_PCT)
    last = t.rand.last_name() if by_name else ""
    chosen = 0 if by_name else t.rand.customer_id()
    amount = money(t.rng, 100, 500_000)

    def work(tx: Any) -> None:
        w_name, w_ytd = must_row(tx, "warehouse", ("w_name", "w_ytd"), (w_id,))
        d_name, d_ytd = must_row(tx, "district", ("d_name", "d_ytd"), (w_id, d_id))
        c_id = customer_by_name(t, tx, c_w_id, c_d_id, last) if by_name else chosen
        if c_id is None:
            raise MissingRow(f"no customer named {last} in warehouse {c_w_id} district {c_d_id}")
        balance, ytd, count, credit, data = must_row(tx, "customer", CUSTOMER_COLUMNS, (c_w_id, c_d_id, c_id))
        if credit == "BC":
            data = f"{c_id} {c_d_id} {c_w_id} {d_id} {w_id} {amount}|{data}"[:C_DATA_MAX]
        tx.update("warehouse", ("w_id", "w_ytd"), [(w_id, w_ytd + amount)])
        tx.update("district", ("w_id", "d_id", "d_ytd"), [(w_id, d_id, d_ytd + amount)])
        tx.update(
            "customer",
            ("w_id", "d_id", "c_id", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_data"),
            [(c_w_id, c_d_id, c_id, balance - amount, ytd + amount, count + 1, data)],
        )
        tx.insert(
            "history",
            ("w_id", "d_id", "c_id", "h_id", "h_w_id", "h_d_id", "h_date", "h_amount", "h_data"),
            [(c_w_id, c_d_id, c_id, t.rng.getrandbits(63), w_id, d_id, dt.datetime.now(dt.UTC), amount,
              f"{w_name}    {d_name}"[:24])],
        )  # fmt: skip

    read_write(database, outcome, work)
