"""Issue 24: TPC-C's statements in the PostgreSQL dialect, against the local Spanner, through both
PostgreSQL interfaces on one PostgreSQL-dialect database: the official client (``postgresql``) and
psycopg through the session's PGAdapter (``pgadapter``, prepared statements). The schema is
:data:`~spanload.spanner.tpcc_schema.PG_DDL`, loaded by the TPC-C loader; every transaction type
runs on each interface, then TPC-C's consistency conditions 1-4 (clause 3.3.2) hold and the orders
table holds the loaded orders plus each committed New-Order. The PostgreSQL dialect's texts of the
queries are checked against the form Spanner's documentation gives them (``$n`` parameters, the
``/*@ FORCE_INDEX=... */`` table hint)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from google.cloud.spanner_admin_database_v1 import DatabaseDialect
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from spanload.model.config import TpccConfig
from spanload.model.tpcc import DISTRICTS, TxType, load_units
from spanload.spanner import deadline
from spanload.spanner.local_server import LocalSpanner
from spanload.spanner.pgadapter import warm_up
from spanload.spanner.tpcc_schema import PG_DDL
from spanload.workers.interp.pg_driver import PgDatabase
from spanload.workers.tpcc.common import Outcome, Terminal
from spanload.workers.tpcc.consistency import check, read_aggregates
from spanload.workers.tpcc.driver import TRANSACTIONS
from spanload.workers.tpcc.load import loader_functions
from spanload.workers.tpcc.rand import RunRandom
from spanload.workers.tpcc.statements import POSTGRESQL

from .pg import create_pg_database

TPCC = TpccConfig(warehouses=1, terminals=1, items=100, customers_per_district=30)
RUNS = 2  # of each transaction type, on each interface


@pytest.fixture(scope="module")
def tpcc_pg(instance: Instance) -> Iterator[Database]:
    database = create_pg_database(instance, list(PG_DDL))
    database.reload()
    assert database.database_dialect == DatabaseDialect.POSTGRESQL
    deadline.configure(60_000)
    write, count = loader_functions(TPCC)
    units = len(load_units(TPCC))
    write(database, 0, units)
    assert count(database, 0, None) == units
    yield database
    database.drop()


def test_the_queries_take_the_pg_dialect_forms() -> None:
    by_name = POSTGRESQL.rendered["customer_by_name"]
    assert by_name.sql == (
        "SELECT c_id FROM customer /*@ FORCE_INDEX=customer_by_last_name */ "
        "WHERE w_id = $1 AND d_id = $2 AND c_last = $3 ORDER BY c_first"
    )
    assert by_name.wire == ("p1", "p2", "p3")
    assert "@" not in POSTGRESQL.rendered["low_stock"].sql.replace("/*@", "")


def _run_every_type(database: Any, seed: int) -> dict[TxType, list[Outcome]]:
    terminal = Terminal(1, 1, RunRandom(TPCC.items, TPCC.customers_per_district, random.Random(seed)), POSTGRESQL)
    outcomes: dict[TxType, list[Outcome]] = {}
    for kind, run in TRANSACTIONS.items():
        for _ in range(RUNS):
            outcome = Outcome()
            with deadline.operation():
                run(database, terminal, outcome)
            outcomes.setdefault(kind, []).append(outcome)
    return outcomes


def _orders(database: Database) -> int:
    with database.snapshot() as snapshot:
        ((orders,),) = list(snapshot.execute_sql("SELECT count(*) FROM orders"))
    return int(orders)


def test_every_transaction_runs_on_both_pg_interfaces_and_the_database_stays_consistent(
    tpcc_pg: Database, pgadapter: LocalSpanner
) -> None:
    before = _orders(tpcc_pg)
    assert before == DISTRICTS * TPCC.customers_per_district
    warm_up(pgadapter.address, tpcc_pg.database_id)  # PGAdapter's first connection to it starts its client
    pg = PgDatabase(pgadapter.address, tpcc_pg.database_id)
    try:
        by_interface = {"postgresql": _run_every_type(tpcc_pg, 1), "pgadapter": _run_every_type(pg, 2)}
    finally:
        pg.close()
    committed = 0
    for outcomes in by_interface.values():
        committed += sum(not o.rolled_back for o in outcomes[TxType.NEW_ORDER])
        # Order-Status found an order with 5..15 lines; Delivery delivered one order a district
        assert all(5 <= o.details["lines"] <= 15 for o in outcomes[TxType.ORDER_STATUS]), outcomes
        assert [o.skipped for o in outcomes[TxType.DELIVERY]] == [0] * RUNS
        assert all(0 <= o.details["low_stock"] <= 15 * 20 for o in outcomes[TxType.STOCK_LEVEL])
    assert _orders(tpcc_pg) == before + committed
    assert check(read_aggregates(tpcc_pg)) == {f"condition_{n}": "ok" for n in (1, 2, 3, 4)}
