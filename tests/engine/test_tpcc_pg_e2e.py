"""Issue 24, "TPC-C's consistency conditions hold on the PG dialect": TPC-C under the real supervisor
on a PostgreSQL-dialect database through the official client (``postgresql``). The run ends with
worker 0's consistency check (clause 3.3.2.1 - 3.3.2.4, the same code as GoogleSQL's) and the orders
in the database agree with the committed New-Orders; the check itself fails on a PostgreSQL database
broken on purpose. The ``pgadapter`` interface runs the same transactions through the session's
PGAdapter in tests/localspanner/test_pg_tpcc.py (a PGAdapter of its own would cost a run seconds).

The data is the GoogleSQL tests' TINY scale (100 items, 30 customers a district): what differs is
the dialect of the schema and the statements, not the mix.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from google.cloud.spanner_admin_database_v1 import DatabaseDialect

from spanload.model.config import ClientInterface, RunConfig
from spanload.model.state import RunState
from spanload.model.tpcc import TxType, load_units
from spanload.spanner import client as spanner_client
from spanload.spanner import deadline
from spanload.spanner.tpcc_schema import ensure_tpcc_schema
from spanload.workers.tpcc.consistency import check, read_aggregates
from spanload.workers.tpcc.load import loader_functions
from tests.engine.conftest import LocalTarget
from tests.engine.test_preload import _run
from tests.engine.test_tpcc_e2e import TINY, _tpcc_config

pytestmark = pytest.mark.timeout(300)

OK = {f"condition_{n}": "ok" for n in (1, 2, 3, 4)}


def _pg_config(local: LocalTarget, database: str, interface: ClientInterface, duration_s: float) -> RunConfig:
    config = _tpcc_config(local, database, duration_s, TINY)
    return config.merged({"client": {"interface": interface.value, "timeout_ms": 5_000}})


def _pg_database(local: LocalTarget, config: RunConfig) -> Any:
    admin = spanner_client.make_client(config.target, local.address)
    ensure_tpcc_schema(admin, config.target, postgresql=True)
    admin.close()
    deadline.configure(60_000)
    database = spanner_client.connect(config.target, config.client, local.address).database
    database.reload()
    assert database.database_dialect == DatabaseDialect.POSTGRESQL
    return database


def test_tpcc_on_the_pg_dialect_keeps_the_consistency_conditions(local_spanner: LocalTarget) -> None:
    interface = ClientInterface.POSTGRESQL
    config = _pg_config(local_spanner, f"tpcc-pg-{interface.value}", interface, 6.0)
    assert config.target.database == f"tpcc-pg-{interface.value}"
    sink = asyncio.run(_run(config, f"tpcc-pg-{interface.value}"))
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    summary = sink.summary
    assert summary is not None and summary.tpcc is not None
    tpcc = summary.tpcc
    assert tpcc.consistency == OK, (tpcc.consistency, tpcc.consistency_error)
    errors = {t: tpcc.by_type[t.value].errors for t in TxType}
    assert errors == dict.fromkeys(TxType, 0), (errors, summary.errors_by_code)
    for kind in TxType:  # every statement of every type ran in the PostgreSQL dialect
        assert tpcc.by_type[kind.value].completed > 0, kind
    new_orders = tpcc.by_type["new_order"]
    committed = new_orders.completed - new_orders.rollbacks
    database = _pg_database(local_spanner, config)
    with database.snapshot() as snapshot:
        ((orders,),) = list(snapshot.execute_sql("SELECT count(*) FROM orders"))
    assert orders == 10 * TINY["customers_per_district"] + committed


def test_the_consistency_checks_fail_on_a_pg_database_broken_on_purpose(local_spanner: LocalTarget) -> None:
    config = _pg_config(local_spanner, "tpcc-pg-broken", ClientInterface.POSTGRESQL, 1.0)
    database = _pg_database(local_spanner, config)
    write, count = loader_functions(config.tpcc)
    units = len(load_units(config.tpcc))
    write(database, 0, units)
    assert count(database, 0, None) == units
    assert check(read_aggregates(database)) == OK

    def change(apply: Any) -> dict[str, str]:
        database.run_in_transaction(apply)
        return check(read_aggregates(database))

    verdicts = change(lambda tx: tx.update("warehouse", ("w_id", "w_ytd"), [(1, Decimal("300000.01"))]))
    assert verdicts["condition_1"] == "failed: warehouse 1: W_YTD 300000.01 != sum(D_YTD) 300000"
    verdicts = change(lambda tx: tx.execute_update("DELETE FROM new_order WHERE w_id = 1 AND d_id = 4 AND o_id = 25"))
    assert verdicts["condition_3"] == "failed: warehouse 1 district 4: max - min + 1 of NO_O_ID = 9, new-order rows = 8"
