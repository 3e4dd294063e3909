"""A workload definition run end to end by the Python interpreter under the real supervisor,
against the local Spanner, on a schema the project never saw: ``workloads/inventory.yaml``.

Expected figures come from the database (read with the official client afterwards) and from the
definition, never from what the interpreter says about itself: the total stock is what the load
put there; every transfer logged one movement, so COUNT(*) of Movements is the transfer
histogram's count; each audit execution wrote ``audit_rows`` rows through BatchWrite; each sweep
(Partitioned DML) added 1 to ``Sweeps`` of items 1..10.

Until the control plane runs a definition's ``ddl`` itself, the test creates the schema with the
official client (``database.update_ddl``).
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.events import EventKind
from spanload.model.op_metrics import OpHistogram, name
from spanload.model.samples import Gauge, Op, Summary
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.model.workload import DEFAULT_ALPHABET, DEFAULT_MAX_IN_FLIGHT, WorkloadDefinition
from spanload.model.workload_file import parse_definition
from spanload.spanner import client as spanner_client
from spanload.workers.interp.prng import stream
from tests.engine.conftest import LocalTarget, run_with_patch
from tests.engine.test_preload import PreloadRecorder

pytestmark = pytest.mark.timeout(240)

WORKLOADS = Path(__file__).parents[2] / "workloads"
SEED = 20261125


def inventory() -> WorkloadDefinition:
    return parse_definition((WORKLOADS / "inventory.yaml").read_text(), "inventory.yaml")


def prepared(local: LocalTarget, definition: WorkloadDefinition, fields: dict[str, Any]) -> RunConfig:
    """A config that runs ``definition`` with ``fields`` and SEED, on a fresh database holding its schema."""
    data = definition.model_dump(mode="json", exclude_unset=True)
    config = local.config({"workload": "definition", "definition": data, "seed": SEED, **fields})
    create_schema(local, config, definition)
    return config


def create_schema(local: LocalTarget, config: RunConfig, definition: WorkloadDefinition) -> None:
    client = spanner_client.make_client(config.target, local.address)
    try:
        instance = client.instance(config.target.instance)
        database = instance.database(config.target.database)
        database.create().result(60)
        database.update_ddl(definition.ddl).result(60)
    finally:
        client.close()


def query(local: LocalTarget, config: RunConfig, sql: str) -> list[list[Any]]:
    client = spanner_client.make_client(config.target, local.address)
    try:
        database = client.instance(config.target.instance).database(config.target.database)
        with database.snapshot() as snapshot:
            return [list(row) for row in snapshot.execute_sql(sql)]
    finally:
        client.close()


def run(config: RunConfig, run_id: str) -> tuple[Summary, PreloadRecorder]:
    async def scenario() -> PreloadRecorder:
        sink = PreloadRecorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start(run_id, config)
        await asyncio.wait_for(supervisor.wait_finished(run_id), 180)
        return sink

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    assert sink.summary is not None
    return sink.summary, sink


def item_row(i: int) -> list[Any]:
    """Row i of the Items load as the README draws it: Name {string: {length: [8, 24]}}, then
    Price {decimal: {min: 1, max: 500, scale: 2}}; ItemId is a sequence (no draw)."""
    g = stream(SEED, "load/Items", i)
    length = g.between(8, 24)
    name_ = "".join(DEFAULT_ALPHABET[g.below(len(DEFAULT_ALPHABET))] for _ in range(length))
    return [name_, Decimal(g.between(100, 50_000)) / 100]


def count(summary: Summary, op: str) -> int:
    latency = summary.latency.get(name(OpHistogram.LATENCY, op))
    return 0 if latency is None else latency.count


def test_inventory_keeps_its_total_stock_and_every_operation_matches_the_database(local_spanner: LocalTarget) -> None:
    definition = inventory()
    config = prepared(
        local_spanner,
        definition,
        {"knobs": {"transfer_rate": 40.0, "max_move": 400}, "duration_s": 5.0, "processes": 2},
    )
    summary, sink = run(config, "inventory")
    assert sink.event(EventKind.PRELOAD_FINISHED)["rows"] == 4 + 100 + 400

    initial = definition.knobs["initial_quantity"].default
    ((units, stock_rows, lowest),) = query(
        local_spanner, config, "SELECT SUM(Quantity), COUNT(*), MIN(Quantity) FROM Stock"
    )
    assert (stock_rows, units) == (400, 400 * initial)  # moved around, never made or lost
    assert lowest >= 0  # a transfer moves at most what it read
    # the load drew each row from its own stream: Items row i (ItemId i + 1) by hand from SplitMix64
    loaded = query(
        local_spanner, config, "SELECT ItemId, Name, Price FROM Items WHERE ItemId IN (1, 2, 50, 100) ORDER BY ItemId"
    )
    assert loaded == [[i + 1, *item_row(i)] for i in (0, 1, 49, 99)]
    ((warehouses,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Warehouses")
    ((items,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Items")
    assert (warehouses, items) == (4, 100)

    errors = {
        op: summary.latency[name(OpHistogram.FAILED, op)].count
        for op in definition.operations
        if name(OpHistogram.FAILED, op) in summary.latency
    }
    assert not errors, (errors, summary.errors_by_code)
    ((movements,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Movements")
    assert count(summary, "transfer") == movements > 0
    # stock actually left the warehouses it was read from: a transfer out of one warehouse into another
    ((changed,),) = query(local_spanner, config, f"SELECT COUNTIF(Quantity != {initial}) FROM Stock")
    assert changed > 0

    ((audits,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Audits")
    assert audits == count(summary, "audit") * definition.knobs["audit_rows"].default and audits > 0

    ((sweeps, swept),) = query(local_spanner, config, "SELECT SUM(Sweeps), COUNTIF(Sweeps > 0) FROM Items")
    assert sweeps == 10 * count(summary, "sweep") and swept == 10

    # the closed-loop report reads one sum and one warehouse row an execution; the price lookup one item
    report = count(summary, "stock_report")
    assert report > 0 and summary.totals.errors == 0
    assert count(summary, "price") > 0

    # the watcher saw the movements (each change once per poller; one poller)
    assert summary.totals.received_changes == movements
    assert summary.latency[Op.WATCHER_NOTIFY].count == movements
    # worker 0 reads the local Spanner's own counters for a definition as for the built-ins
    assert any(
        Gauge.SERVER_SPLITS in sample.gauges and Gauge.SERVER_CPU_FRACTION in sample.gauges for sample in sink.samples
    )
    # client CPU per operation counts every operation of the definition, and the watcher's polls
    ops = sum(count(summary, op) for op in definition.operations)
    assert sum(w.operations for w in summary.workers) == ops + summary.totals.polls


def test_a_live_patch_changes_knobs_and_pacing_from_the_next_execution_and_a_second_run_loads_what_is_missing(
    local_spanner: LocalTarget,
) -> None:
    definition = inventory()
    config = prepared(
        local_spanner,
        definition,
        {
            "knobs": {"transfer_rate": 5.0},
            "operations": {"price": {"enabled": False}, "sweep": {"enabled": False}, "audit": {"rate": 20}},
        },
    )

    sink = PreloadRecorder()
    patch = {"knobs": {"audit_rows": 5, "transfer_rate": 7.0}, "operations": {"stock_report": {"enabled": False}}}
    asyncio.run(run_with_patch(sink, config, "patch", patch, before=3, after=3))
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None
    # one BatchWrite group commits at one timestamp: 2 rows a group before the patch, 5 after, never mixed.
    # Groups are ordered by commit: an execution that drew 2 before the patch may commit after the
    # first 5, but only one of those in flight at the patch (at most max_in_flight of them).
    groups = [n for (n,) in query(local_spanner, config, "SELECT COUNT(*) FROM Audits GROUP BY Logged ORDER BY Logged")]
    switch = groups.index(5)
    assert set(groups) == {2, 5} and groups[0] == 2 and groups[-1] == 5, groups
    assert groups[switch:].count(2) <= DEFAULT_MAX_IN_FLIGHT, groups
    assert len(groups) == count(sink.summary, "audit")
    last = sink.samples[-1].gauges
    assert last["op.transfer.target_ps"] == 7.0 and last["op.audit.target_ps"] == 20.0
    assert "op.price.ps" not in last and count(sink.summary, "price") == count(sink.summary, "sweep") == 0
    assert last.get("op.stock_report.ps", 0.0) == 0.0  # disabled by the patch

    # a second run on the same database: the load fills only what is missing
    with_missing = config.model_copy(update={"duration_s": 1.0, "operations": {}})
    delete(local_spanner, config, "DELETE FROM Stock WHERE StockId > 300")
    _, again = run(with_missing, "again")
    assert again.event(EventKind.PRELOAD_STARTED) == {"rows": 504, "table_rows": 404}
    ((stock_rows,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Stock")
    assert stock_rows == 400


def delete(local: LocalTarget, config: RunConfig, dml: str) -> None:
    client = spanner_client.make_client(config.target, local.address)
    try:
        database = client.instance(config.target.instance).database(config.target.database)
        database.run_in_transaction(lambda txn: txn.execute_update(dml))
    finally:
        client.close()


def test_pause_holds_every_operation_still_and_resume_goes_on(local_spanner: LocalTarget) -> None:
    definition = inventory()
    config = prepared(
        local_spanner,
        definition,
        {"knobs": {"transfer_rate": 30.0}, "operations": {"price": {"enabled": False}, "sweep": {"enabled": False}}},
    )
    counts: list[tuple[int, int]] = []

    def written() -> tuple[int, int]:
        ((movements,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Movements")
        ((audits,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Audits")
        return movements, audits

    async def scenario() -> PreloadRecorder:
        sink = PreloadRecorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("pause", config)
        while len(sink.samples) < 2:
            await asyncio.sleep(0.05)
        await supervisor.pause("pause")
        # two intervals later, a sample that says nothing runs any more: from then on nothing can start
        seen = len(sink.samples)
        while len(sink.samples) < seen + 2 or not idle(sink.samples[-1].gauges):
            await asyncio.sleep(0.05)
        counts.append(await asyncio.to_thread(written))
        seen = len(sink.samples)
        while len(sink.samples) < seen + 2:
            await asyncio.sleep(0.05)
        counts.append(await asyncio.to_thread(written))
        await supervisor.resume("pause")
        seen = len(sink.samples)
        while len(sink.samples) < seen + 2:
            await asyncio.sleep(0.05)
        await supervisor.stop("pause")
        counts.append(await asyncio.to_thread(written))
        return sink

    def idle(gauges: dict[str, float]) -> bool:
        return all(gauges.get(f"op.{op}.in_flight", 0.0) == 0.0 for op in definition.operations)

    sink = asyncio.run(scenario())
    assert sink.states[-1] == (RunState.FINISHED, None) and sink.summary is not None
    paused, still, after = counts
    assert paused == still and paused[0] > 0 and paused[1] > 0
    assert after[0] > still[0] and after[1] > still[1]
    assert after[0] == count(sink.summary, "transfer")


def test_failed_executions_count_by_code_in_their_own_histogram(local_spanner: LocalTarget) -> None:
    """Every execution inserts the same key: the first commits, every other one fails ALREADY_EXISTS."""
    definition = WorkloadDefinition.model_validate(
        {
            "name": "one_key",
            "ddl": ["CREATE TABLE OneKey (K INT64 NOT NULL, V STRING(16)) PRIMARY KEY (K)"],
            "operations": {
                "put": {
                    "rate": 20,
                    "transaction": "single_use",
                    "steps": [{"insert": {"table": "OneKey", "columns": {"K": 1, "V": {"string": {"length": 8}}}}}],
                }
            },
        }
    )
    config = prepared(local_spanner, definition, {"duration_s": 3.0})
    summary, _ = run(config, "one-key")
    ((rows,),) = query(local_spanner, config, "SELECT COUNT(*) FROM OneKey")
    failed = summary.latency[name(OpHistogram.FAILED, "put")].count
    assert rows == count(summary, "put") == 1
    assert failed > 0 and summary.errors_by_code == {"ALREADY_EXISTS": failed} and summary.totals.errors == failed


def test_the_issues_shop_example_keeps_its_money(local_spanner: LocalTarget) -> None:
    """workloads/shop.yaml, the issue's example: every order takes its amount off the customer's
    balance in the same read-write transaction, so balances plus order amounts are what the load
    put there (NUMERIC parameters, an interleaved table, uuid keys, zipf customers, stale reads)."""
    definition = parse_definition((WORKLOADS / "shop.yaml").read_text(), "shop.yaml")
    customers = 200
    config = prepared(
        local_spanner,
        definition,
        {
            "knobs": {"customers": customers, "order_rate": 30.0},
            "operations": {"recent_orders": {"rate": 20}},
            "duration_s": 3.0,
        },
    )
    summary, _ = run(config, "shop")
    assert summary.totals.errors == 0, summary.errors_by_code
    ((orders, spent),) = query(local_spanner, config, "SELECT COUNT(*), COALESCE(SUM(Amount), 0) FROM Orders")
    ((balances, rows),) = query(local_spanner, config, "SELECT SUM(Balance), COUNT(*) FROM Customers")
    assert orders == count(summary, "place_order") > 0 and rows == customers
    assert balances + spent == sum(customer_balance(i) for i in range(customers))
    assert count(summary, "recent_orders") > 0


def customer_balance(i: int) -> Decimal:
    """Row i of shop's Customers load: Name {string: {length: [8, 24]}}, then Balance {decimal:
    {min: 0, max: 1000, scale: 2}}."""
    g = stream(SEED, "load/Customers", i)
    for _ in range(g.between(8, 24)):
        g.below(len(DEFAULT_ALPHABET))
    return Decimal(g.between(0, 100_000)) / 100


def test_read_write_transactions_the_client_re_runs_after_aborts_write_once(local_spanner: LocalTarget) -> None:
    """inventory's transfers, all on one item between two warehouses, from two processes: they
    conflict, the client re-runs the aborted ones, and still each transfer wrote one movement and
    the stock is whole (everything an execution draws is drawn before its first attempt)."""
    data = inventory().model_dump(mode="json", exclude_unset=True)
    data["values"]["item"] = {"uniform": {"min": 1, "max": 1}}
    data["values"]["from_wh"] = data["values"]["to_wh"] = {"uniform": {"min": 1, "max": 2}}
    for op in ("stock_report", "price", "audit", "sweep"):
        data["operations"][op]["enabled"] = False
    definition = WorkloadDefinition.model_validate(data)
    config = prepared(
        local_spanner, definition, {"knobs": {"transfer_rate": 200.0, "max_move": 3}, "duration_s": 4.0, "processes": 2}
    )
    summary, _ = run(config, "contended")
    ((units,),) = query(local_spanner, config, "SELECT SUM(Quantity) FROM Stock")
    ((movements,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Movements")
    assert units == 400 * definition.knobs["initial_quantity"].default
    failed = summary.latency.get(name(OpHistogram.FAILED, "transfer"))
    assert movements == count(summary, "transfer") > 0, (failed, summary.errors_by_code)
    assert summary.rates.get(Gauge.RETRIES_PS, 0.0) > 0  # the conflicts did happen
