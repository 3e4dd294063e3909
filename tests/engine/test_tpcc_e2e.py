"""TPC-C end to end (issue 15's Proof): the ``tpcc-1w`` preset for 30 s against the local Spanner
through real worker processes and the official client; its load through the preload phase; the
consistency conditions 1-4 read from the database, passing after a run and failing on data broken
on purpose, and a run on a broken database marked failed.

The preset is the spec's 1 warehouse (100,000 items, 3,000 customers a district: ~70 s to load on
this machine); here its data is scaled to 10,000 items and 300 customers a district (~10x fewer
rows) so the load takes seconds: the transactions, the mix and the checks are the same.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from spanload.model.config import RunConfig, TpccMode
from spanload.model.events import EventKind
from spanload.model.presets import get_preset
from spanload.model.state import RunState
from spanload.model.tpcc import DECK_SIZE, MIX, TPMC_GAUGE, TxType, load_units
from spanload.spanner import client as spanner_client
from spanload.spanner import deadline
from spanload.spanner.tpcc_schema import ensure_tpcc_schema
from spanload.workers.tpcc.consistency import check, read_aggregates
from spanload.workers.tpcc.load import loader_functions
from tests.engine.conftest import LocalTarget
from tests.engine.test_breakdown import assert_breakdown_adds_up
from tests.engine.test_preload import PreloadRecorder, _run

pytestmark = pytest.mark.timeout(300)

SCALED = {"items": 10_000, "customers_per_district": 300}
TINY = {"items": 100, "customers_per_district": 30}


def _tpcc_config(local: LocalTarget, database: str, duration_s: float, tpcc: dict[str, Any]) -> RunConfig:
    preset = get_preset("tpcc-1w").config
    return preset.merged(
        {
            "duration_s": duration_s,
            "warmup_s": 0.0,  # these check consistency and counts over every transaction, not a fair compare
            "target": local.config(database=database).target.model_dump(),
            "tpcc": tpcc,
        }
    )


def assert_dealt_from_decks(by_type: dict[str, Any], processes: int, terminals: int) -> None:
    """The mix is dealt from decks of DECK_SIZE cards, MIX[t] of type t, one deck a worker process:
    with D cards dealt, each process has dealt its full decks and part of one more, so a type's count
    lies between its cards in the full decks and those in one more deck a process. D is what ended
    (completed or failed) plus at most one card in flight a terminal when the run stopped. Exact
    bounds whatever the machine's speed, unlike a share within some points of the standard."""
    ended = {t: by_type[t.value].completed + by_type[t.value].errors for t in TxType}
    total = sum(ended.values())
    full_decks = max(0, -(-(total - (DECK_SIZE - 1) * processes) // DECK_SIZE))  # at least, over every process
    most_decks = (total + terminals) // DECK_SIZE + processes
    for kind in TxType:
        low, high = full_decks * MIX[kind] - terminals, most_decks * MIX[kind]
        assert low <= ended[kind] <= high, (kind, ended, low, high)


def _database(local: LocalTarget, config: RunConfig) -> Any:
    admin = spanner_client.make_client(config.target, local.address)
    ensure_tpcc_schema(admin, config.target)
    admin.close()
    deadline.configure(60_000)
    return spanner_client.connect(config.target, config.client, local.address).database


def test_tpcc_1w_for_30s_lands_the_mix_keeps_the_database_consistent_and_times_every_type(
    local_spanner: LocalTarget,
) -> None:
    config = _tpcc_config(local_spanner, "tpcc-30s", 30.0, SCALED)
    assert (config.workload.value, config.tpcc.warehouses, config.tpcc.terminals) == ("tpcc", 1, 8)
    sink = asyncio.run(_run(config, "tpcc-30s"))
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    # the load went through the preload phase, every unit of it
    units = len(load_units(config.tpcc))
    assert sink.event(EventKind.PRELOAD_FINISHED)["rows"] == units
    assert sink.progress[-1].done and sink.progress[-1].rows_done == units
    summary = sink.summary
    assert summary is not None and summary.tpcc is not None
    tpcc = summary.tpcc
    assert tpcc.consistency == {f"condition_{n}": "ok" for n in (1, 2, 3, 4)}, tpcc.consistency
    total = sum(t.completed for t in tpcc.by_type.values())
    assert total == summary.totals.transactions, (total, summary.totals.transactions)
    # the mix is checked against the decks dealt, which says something once each process has dealt
    # a full deck (at least): a count, however slow this machine is
    assert total >= DECK_SIZE * config.processes, f"{total} transactions in 30 s: not one deck of {DECK_SIZE}"
    assert_dealt_from_decks(tpcc.by_type, config.processes, config.tpcc.terminals)
    for kind in TxType:
        figures = tpcc.by_type[kind.value]
        # every type has its histogram, holding exactly its completed transactions
        assert summary.latency[kind.op].count == figures.completed > 0, kind
        # the server's time of each completed one (every RPC carries server-timing); failures are not timed there
        assert summary.latency[kind.op_server].count == figures.completed, kind
        assert figures.errors == summary.latency.get(kind.op_failed, type(summary.latency[kind.op])()).count
        # where the time goes: its parts add up to its round trip, measured apart (issue 15)
        assert_breakdown_adds_up(summary, kind.op, paced=config.tpcc.mode is TpccMode.OPEN)
    new_orders = tpcc.by_type["new_order"]
    committed = new_orders.completed - new_orders.rollbacks
    assert tpcc.tpmc == pytest.approx(committed * 60 / summary.duration_s, rel=1e-3)
    # the whole run's tpmC rate is that count over the measured time (no warm-up here), as the other rates
    assert summary.rates[TPMC_GAUGE] == pytest.approx(committed * 60 / summary.duration_s, rel=1e-9)
    # the database agrees with the counts: each committed New-Order took one order number
    database = _database(local_spanner, config)
    with database.snapshot() as snapshot:
        ((orders,),) = list(snapshot.execute_sql("SELECT COUNT(*) FROM orders"))
    assert orders == 10 * SCALED["customers_per_district"] + committed


def test_the_consistency_checks_fail_on_data_broken_on_purpose(local_spanner: LocalTarget) -> None:
    config = _tpcc_config(local_spanner, "tpcc-broken-checks", 1.0, TINY)
    database = _database(local_spanner, config)
    write, count = loader_functions(config.tpcc)
    units = len(load_units(config.tpcc))
    write(database, 0, units)
    assert count(database, 0, None) == units
    assert check(read_aggregates(database)) == {f"condition_{n}": "ok" for n in (1, 2, 3, 4)}

    def change(apply: Any) -> dict[str, str]:
        database.run_in_transaction(apply)
        return check(read_aggregates(database))

    verdicts = change(lambda tx: tx.update("warehouse", ("w_id", "w_ytd"), [(1, Decimal("300000.01"))]))
    assert verdicts["condition_1"] == "failed: warehouse 1: W_YTD 300000.01 != sum(D_YTD) 300000"
    verdicts = change(lambda tx: tx.update("district", ("w_id", "d_id", "d_next_o_id"), [(1, 3, 40)]))
    assert verdicts["condition_2"] == (
        "failed: warehouse 1 district 3: D_NEXT_O_ID - 1 = 39, max(O_ID) = 30, max(NO_O_ID) = 30"
    )
    verdicts = change(lambda tx: tx.execute_update("DELETE FROM new_order WHERE w_id = 1 AND d_id = 4 AND o_id = 25"))
    assert verdicts["condition_3"] == "failed: warehouse 1 district 4: max - min + 1 of NO_O_ID = 9, new-order rows = 8"
    verdicts = change(
        lambda tx: tx.execute_update(
            "DELETE FROM order_line WHERE w_id = 1 AND d_id = 5 AND o_id = 7 AND ol_number = 1"
        )
    )
    assert verdicts["condition_4"].startswith("failed: warehouse 1 district 5: sum(O_OL_CNT) = ")
    assert list(verdicts.values())[:2] == [verdicts["condition_1"], verdicts["condition_2"]]


def test_a_run_on_an_inconsistent_database_ends_failed_naming_the_condition(local_spanner: LocalTarget) -> None:
    config = _tpcc_config(local_spanner, "tpcc-broken-run", 2.0, TINY)
    database = _database(local_spanner, config)
    write, _ = loader_functions(config.tpcc)
    write(database, 0, len(load_units(config.tpcc)))
    now = dt.datetime.now(dt.UTC)
    # an order line with no order line count behind it: condition 4 fails whatever the run does
    columns = ("w_id", "d_id", "o_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity")
    row = (1, 2, 1, 99, 1, 1, now, 1, Decimal("1.00"), "x" * 24)
    database.run_in_transaction(lambda tx: tx.insert("order_line", (*columns, "ol_amount", "ol_dist_info"), [row]))
    sink = asyncio.run(_run(config, "tpcc-broken-run"))
    assert isinstance(sink, PreloadRecorder)
    state, reason = sink.states[-1]
    assert state is RunState.FAILED and reason is not None
    assert reason.startswith("TPC-C consistency: condition_4 failed: warehouse 1 district 2: sum(O_OL_CNT) = ")
    assert EventKind.PRELOAD_SKIPPED in [kind for kind, _ in sink.events]  # loaded already: the phase is skipped
    assert sink.summary is not None and sink.summary.tpcc is not None
    assert sink.summary.tpcc.consistency["condition_1"] == "ok"
    assert sink.summary.stop is not None and sink.summary.stop.graceful  # it stopped normally, then failed the check
