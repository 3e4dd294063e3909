"""Issue 24, "Proof, end to end": workloads/shop_pg.yaml (shop.yaml in the PostgreSQL dialect, with a
commit-timestamp watch) under the real supervisor against the local Spanner, on the two PostgreSQL
interfaces: ``postgresql`` (the official client on a PostgreSQL-dialect database) and ``pgadapter``
(psycopg through a PGAdapter the engine starts for the run and stops with it), in the Python worker,
and ``postgresql`` in the Go worker too.

Expected figures come from the database, read afterwards with the official client, and from the
definition: the watcher received each order exactly once (received changes = COUNT(*) of orders =
the orders placed), and money is kept (balances + order amounts = what the load put there, drawn by
hand from SplitMix64 as the README says).

And workloads/change_watcher_pg.yaml (the Change Watcher's PG twin) with light's shape of load on
both interfaces in both runtimes: its poll forced through singers_by_shard_last_updated
(``/*@ FORCE_INDEX=... */``) and split by the generated shard_id, reconciling exactly.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from google.cloud.spanner_admin_database_v1 import DatabaseDialect

from spanload.engine import pgadapter_run
from spanload.engine.supervisor import Supervisor
from spanload.model.breakdown import Part, Source, pgadapter_ms
from spanload.model.config import ClientInterface, RunConfig, WorkerRuntime
from spanload.model.op_metrics import OpHistogram, name
from spanload.model.samples import Op
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.model.workload import DEFAULT_ALPHABET
from spanload.model.workload_file import parse_definition
from spanload.spanner import client as spanner_client
from spanload.workers.interp.prng import stream
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly
from tests.engine.test_definition_e2e import SEED, WORKLOADS, count, run
from tests.engine.test_preload import PreloadRecorder

pytestmark = pytest.mark.timeout(240)

CUSTOMERS = 500


def shop_pg(local: LocalTarget, interface: ClientInterface, runtime: WorkerRuntime) -> RunConfig:
    definition = parse_definition((WORKLOADS / "shop_pg.yaml").read_text(), "shop_pg.yaml")
    return local.config(
        {
            "workload": "definition",
            "definition": definition.model_dump(mode="json", exclude_unset=True),
            "seed": SEED,
            # a deadline that outlasts this shared 2-core machine's worst moments: an order that Spanner
            # aborts (zipf customers collide) is run again until it commits, through PGAdapter too
            "client": {"interface": interface.value, "timeout_ms": 30_000},
            "knobs": {"customers": CUSTOMERS, "order_rate": 5.0},
            "operations": {"recent_orders": {"rate": 5}},
            "duration_s": 3.0,
        },
        runtime=runtime,
    )


def customer_balance(i: int) -> Decimal:
    """Row i of shop_pg's customers load: name {string: {length: [8, 24]}}, then balance {decimal:
    {min: 0, max: 1000, scale: 2}}, from the stream "load/customers"."""
    g = stream(SEED, "load/customers", i)
    for _ in range(g.between(8, 24)):
        g.below(len(DEFAULT_ALPHABET))
    return Decimal(g.between(0, 100_000)) / 100


def query(local: LocalTarget, config: RunConfig, sql: str) -> list[list[Any]]:
    client = spanner_client.make_client(config.target, local.address)
    try:
        database = client.instance(config.target.instance).database(config.target.database)
        database.reload()
        assert database.database_dialect == DatabaseDialect.POSTGRESQL
        with database.snapshot() as snapshot:
            return [list(row) for row in snapshot.execute_sql(sql)]
    finally:
        client.close()


# Every runtime on every PostgreSQL interface. The Go worker's pgadapter is pgx with named prepared
# statements, whose parameter types PGAdapter learns by asking Spanner to plan the statement
# without them (undeclared_parameters of a PLAN-mode ExecuteSql); psycopg states the types itself.
CASES = [
    (WorkerRuntime.PYTHON, ClientInterface.POSTGRESQL),
    (WorkerRuntime.PYTHON, ClientInterface.PGADAPTER),
    (WorkerRuntime.GO, ClientInterface.POSTGRESQL),
    (WorkerRuntime.GO, ClientInterface.PGADAPTER),
]


@pytest.mark.parametrize(("runtime", "interface"), CASES, ids=lambda v: str(v.value))
def test_shop_pg_reconciles_exactly_and_keeps_its_money(
    local_spanner: LocalTarget, interface: ClientInterface, runtime: WorkerRuntime
) -> None:
    config = shop_pg(local_spanner, interface, runtime)
    assert config.runtime is runtime
    pgadapters: list[Any] = []
    health: list[bool] = []

    async def scenario() -> PreloadRecorder:
        sink = PreloadRecorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("shop-pg", config)
        run = supervisor._runs["shop-pg"]
        while run.state is RunState.STARTING and run.pgadapter is None:
            await asyncio.sleep(0.05)
        pgadapters.append(run.pgadapter)
        health.append("shop-pg" in pgadapter_run.running())  # what GET /api/health lists
        await asyncio.wait_for(supervisor.wait_finished("shop-pg"), 180)
        health.append("shop-pg" in pgadapter_run.running())
        return sink

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    summary = sink.summary
    assert summary is not None and summary.totals.errors == 0, summary and summary.errors_by_code

    ((orders, spent),) = query(local_spanner, config, "SELECT count(*), coalesce(sum(amount), 0) FROM orders")
    ((balances, customers),) = query(local_spanner, config, "SELECT sum(balance), count(*) FROM customers")
    assert customers == CUSTOMERS
    assert orders == count(summary, "place_order") > 0
    assert balances + spent == sum(customer_balance(i) for i in range(CUSTOMERS))
    assert count(summary, "recent_orders") > 0
    # the watch saw every order once, by its commit timestamp
    assert summary.totals.received_changes == orders
    assert summary.latency[Op.WATCHER_NOTIFY].count == orders

    # where the time goes: the parts add up to the driver's round trip; through PGAdapter, PGAdapter's
    # own part (derived) is the round trip less the queue, session wait and the server-measured parts
    for op in ("place_order", "recent_orders"):
        b = summary.breakdown[name(OpHistogram.LATENCY, op)]
        parts = {p.part: p for p in b.parts}
        assert b.count == count(summary, op)
        assert sum(p.ms for p in b.parts) == pytest.approx(b.round_trip_ms, abs=1e-6)
        if interface is ClientInterface.PGADAPTER:
            measured = [p.ms for p in b.parts if p.source in (Source.MEASURED, Source.SPANNER_SYS)]
            server = sum(parts[k].ms for k in (Part.SERVER, Part.SERVER_FRONTEND, Part.QUERY_COMMIT) if k in parts)
            expected, _ = pgadapter_ms(b.round_trip_ms, parts[Part.QUEUE].ms, parts[Part.SESSION_WAIT].ms, server)
            assert parts[Part.PGADAPTER].source is Source.DERIVED
            assert parts[Part.PGADAPTER].ms == pytest.approx(b.round_trip_ms - sum(measured), abs=1e-6)
            assert parts[Part.PGADAPTER].ms == pytest.approx(expected, abs=1e-6) and expected > 0
            assert parts[Part.CLIENT].source is Source.NOT_MEASURED
        else:
            assert Part.PGADAPTER not in parts

    (server,) = pgadapters
    if interface is ClientInterface.PGADAPTER:  # the run's own PGAdapter, gone with the run
        assert server is not None and server.state.value == "down" and server.restarts == 0
        assert health == [True, False]
    else:
        assert server is None and health == [False, False]


@pytest.mark.parametrize(("runtime", "interface"), CASES, ids=lambda v: str(v.value))
def test_change_watcher_pg_reconciles_exactly_on_every_interface(
    local_spanner: LocalTarget, interface: ClientInterface, runtime: WorkerRuntime
) -> None:
    """The Change Watcher's PG twin with light's shape of load (single-use upserts of 1..max_mutations
    versioned keys, plus batch inserts of new keys) on both PostgreSQL interfaces in both runtimes:
    every final version received once (engine/reconcile.py over the writers' and the watcher's
    ledgers), and the keys written are exactly the table's rows. The poll is forced through
    singers_by_shard_last_updated and split between 2 watchers by shard_id, a generated column: a
    row whose shard_id were not computed (NULL) would be missed."""
    definition = parse_definition((WORKLOADS / "change_watcher_pg.yaml").read_text(), "change_watcher_pg.yaml")
    config = local_spanner.config(
        {
            "workload": "definition",
            "definition": definition.model_dump(mode="json", exclude_unset=True),
            "seed": SEED,
            "client": {"interface": interface.value, "timeout_ms": 30_000},
            "knobs": {
                "transactions_per_second": 10.0,
                "max_mutations": 10,
                "key_space": 1000,
                "batch_rows": 3,
                "parallelism": 4,
                "watchers": 2,
                "poll_interval": 200,
            },
            "operations": {"batch_insert": {"enabled": True}},
            "duration_s": 3.0,
        },
        runtime=runtime,
    )
    assert config.knob_values()["table_hint"] is True
    summary, _ = run(config, f"change-watcher-pg-{runtime.value}-{interface.value}")
    assert [w.runtime for w in summary.workers] == [runtime.value]
    assert summary.totals.errors == 0, summary.errors_by_code
    assert Op.WATCHER_POLL_FAILED not in summary.latency
    r = assert_reconciled_exactly(summary)
    ((rows, stamped),) = query(local_spanner, config, "SELECT count(*), count(last_updated) FROM singers")
    ((sharded,),) = query(local_spanner, config, "SELECT count(*) FROM singers WHERE shard_id BETWEEN -18 AND 18")
    assert r.keys_written == rows == stamped == sharded
    assert count(summary, "write") > 0 and count(summary, "batch_insert") > 0
    assert summary.latency[Op.WATCHER_NOTIFY].count == summary.totals.received_changes


LAST_ROW_WINS = """
name: last_row_wins
dialect: postgresql
ddl:
  - CREATE TABLE kv (k bigint NOT NULL, v bigint, PRIMARY KEY (k))
operations:
  put:
    concurrency: 1
    steps:
      - insert_or_update:
          table: kv
          rows: 3
          columns:
            k: 1
            v: {sequence: {start: 1}}
"""


@pytest.mark.parametrize("runtime", [WorkerRuntime.PYTHON, WorkerRuntime.GO], ids=lambda v: str(v.value))
def test_a_steps_rows_through_pgadapter_apply_in_order(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    """Through PGAdapter a mutation step's rows go as one pipeline (psycopg executemany, a pgx batch),
    each row still its own statement, applied in order: one writer puts key 1 three times an execution
    (v = 1, 2, 3, then 4, 5, 6 ...), so after N executions v is 3N, the last row of the last one."""
    definition = parse_definition(LAST_ROW_WINS, "last_row_wins.yaml")
    config = local_spanner.config(
        {
            "workload": "definition",
            "definition": definition.model_dump(mode="json", exclude_unset=True),
            "client": {"interface": "pgadapter", "timeout_ms": 30_000},
            "duration_s": 2.0,
        },
        runtime=runtime,
    )
    summary, _ = run(config, f"last-row-wins-{runtime.value}")
    assert summary.totals.errors == 0, summary.errors_by_code
    executions = count(summary, "put")
    assert executions > 0
    assert query(local_spanner, config, "SELECT k, v FROM kv") == [[1, 3 * executions]]
