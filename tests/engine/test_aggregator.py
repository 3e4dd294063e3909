"""The aggregator merges the processes' interval reports into one sample per interval."""

from __future__ import annotations

import pytest

from spanload.engine.aggregator import Aggregator, operations_in
from spanload.model import metrics
from spanload.model.protocol import Counter, Report
from spanload.model.samples import Gauge, Op
from spanload.model.tpcc import ROLLBACKS, TPMC_GAUGE, TxType

T0 = 1000.0


def _hdr(values: list[int]) -> str:
    h = metrics.new_histogram()
    for v in values:
        h.record_value(v)
    return metrics.encode(h)


def _report(worker: int, seq: int, txns: int, latencies: list[int], **gauges: float) -> Report:
    return Report(
        worker=worker,
        seq=seq,
        t=T0 + seq + 1,
        interval_s=1.0,
        counters={Counter.TRANSACTIONS: txns, Counter.MUTATIONS: 3 * txns},
        gauges=gauges,
        errors_by_code={"ABORTED": 1} if worker else {},
        hdr={Op.UPDATER_TXN: _hdr(latencies)},
    )


def test_one_sample_per_interval_once_every_worker_reported() -> None:
    agg = Aggregator(T0, 1.0, workers=2)
    first = {Gauge.UPDATER_TARGET_TPS: 5, Gauge.WATCHER_LAG_MS: 30, Gauge.TPCC_TERMINALS: 2}
    assert agg.add(_report(0, 0, 5, [1000] * 5, **first)) == []
    second = {Gauge.UPDATER_TARGET_TPS: 5, Gauge.WATCHER_LAG_MS: 10, Gauge.TPCC_TERMINALS: 1}
    [sample] = agg.add(_report(1, 0, 3, [9000] * 3, **second))
    assert sample.seq == 0
    assert sample.elapsed_s == pytest.approx(1.0)
    assert sample.totals.transactions == 8 and sample.totals.mutations == 24
    assert sample.gauges[Gauge.UPDATER_TPS] == pytest.approx(8.0)
    assert sample.gauges[Gauge.UPDATER_TARGET_TPS] == 10  # summed across processes
    assert sample.gauges[Gauge.TPCC_TERMINALS] == 3  # each process runs its share of the terminals
    assert sample.gauges[Gauge.WATCHER_LAG_MS] == 30  # the worst process
    assert sample.errors_by_code == {"ABORTED": 1}
    p = sample.latency[Op.UPDATER_TXN]
    assert p.count == 8
    assert p.p99 == pytest.approx(9.0, rel=0.001)  # from merged counts
    assert metrics.decode(sample.hdr[Op.UPDATER_TXN]).get_total_count() == 8
    assert sample.by_worker == {
        "0": {Gauge.UPDATER_TPS: 5.0, Gauge.UPDATER_TARGET_TPS: 5.0},
        "1": {Gauge.UPDATER_TPS: 3.0, Gauge.UPDATER_TARGET_TPS: 5.0},
    }


def test_totals_accumulate_and_the_summary_merges_every_interval() -> None:
    agg = Aggregator(T0, 1.0, workers=1)
    agg.add(_report(0, 0, 10, [1000] * 10))
    [second] = agg.add(_report(0, 1, 10, [100_000] * 10))
    assert second.totals.transactions == 20
    summary = agg.summary()
    assert summary.duration_s == pytest.approx(2.0)
    assert summary.latency[Op.UPDATER_TXN].count == 20
    assert summary.latency[Op.UPDATER_TXN].max == pytest.approx(100.0, rel=0.001)
    assert summary.rates[Gauge.UPDATER_TPS] == pytest.approx(10.0)


def test_a_late_worker_is_flushed_when_overdue_and_its_report_lands_in_the_next_interval() -> None:
    agg = Aggregator(T0, 1.0, workers=2)
    agg.add(_report(0, 0, 4, [1000] * 4))
    assert agg.flush_overdue(now=T0 + 1.5) == []  # not yet overdue
    [partial] = agg.flush_overdue(now=T0 + 3.0)
    assert partial.totals.transactions == 4
    agg.add(_report(1, 0, 6, [1000] * 6))  # late for seq 0: folded into seq 1
    agg.add(_report(1, 1, 2, [1000] * 2))
    [next_sample] = agg.add(_report(0, 1, 1, [1000]))
    assert next_sample.seq == 1
    assert next_sample.totals.transactions == 13  # nothing lost, nothing twice
    # the late report adds to its own worker's rate
    assert {w: v[Gauge.UPDATER_TPS] for w, v in next_sample.by_worker.items()} == {"0": 1.0, "1": 8.0}


def test_flush_all_emits_what_is_pending_at_the_end() -> None:
    agg = Aggregator(T0, 1.0, workers=2)
    agg.add(_report(0, 0, 2, [500, 600]))
    [last] = agg.flush_all()
    assert last.totals.transactions == 2
    assert agg.flush_all() == []


def test_the_whole_runs_tpmc_is_committed_new_orders_over_the_time_not_a_mean_of_intervals() -> None:
    """As the other counter rates: a short last interval (a stop) weighs by its length."""
    agg = Aggregator(T0, 1.0, workers=1)
    new_order = TxType.NEW_ORDER
    for seq, (completed, rolled_back, interval_s) in enumerate([(10, 1, 1.0), (1, 0, 0.25)]):
        counters = {new_order.counter(): completed, new_order.counter(ROLLBACKS): rolled_back}
        agg.add(Report(worker=0, seq=seq, t=T0 + seq + interval_s, interval_s=interval_s, counters=counters))
    # intervals: 9 committed in 1 s (540/min), 1 in 0.25 s (240/min); their mean would be 390
    assert agg.summary().rates[TPMC_GAUGE] == pytest.approx(10 * 60 / 1.25)


def test_summary_averages_each_gauge_over_the_intervals_that_have_it() -> None:
    """Server stats arrive in few intervals (no commits in the others): missing values, not zeros.
    (The SPANNER_SYS minute gauges follow model.server_minute's rule: test_server_minute_rule.py.)"""
    agg = Aggregator(T0, 1.0, workers=1)
    server = {
        1: {
            Gauge.SERVER_COMMIT_PARTICIPANTS: 1.0,
            Gauge.SERVER_COMMIT_LATENCY_S: 0.004,
            Gauge.SERVER_CPU_PER_COMMIT_MS: 0.002,
            Gauge.SERVER_CPU_FRACTION: 0.5,
        },
        3: {
            Gauge.SERVER_COMMIT_PARTICIPANTS: 2.0,
            Gauge.SERVER_COMMIT_LATENCY_S: 0.008,
        },
    }
    for seq in range(5):
        gauges = {Gauge.WATCHER_LAG_MS: 10.0 * (seq + 1), **server.get(seq, {})}
        agg.add(_report(0, seq, 2, [1000, 1000], **gauges))
    rates = agg.summary().rates
    assert rates[Gauge.SERVER_COMMIT_PARTICIPANTS] == pytest.approx(1.5)  # not 3.0 / 5 = 0.6
    assert rates[Gauge.SERVER_COMMIT_LATENCY_S] == pytest.approx(0.006)
    assert rates[Gauge.SERVER_CPU_PER_COMMIT_MS] == pytest.approx(0.002)  # one interval had it
    assert rates[Gauge.SERVER_CPU_FRACTION] == pytest.approx(0.5)
    assert rates[Gauge.WATCHER_LAG_MS] == pytest.approx(30.0)  # in every interval: (10+...+50) / 5
    assert rates[Gauge.UPDATER_TPS] == pytest.approx(2.0)  # rates still come from the counters
    assert Gauge.READER_RPS not in rates  # no interval had it: no value, not 0


def test_a_definitions_operations_get_rates_summed_gauges_and_count_as_operations() -> None:
    def report(worker: int, seq: int, done: int, scheduled: int, target: float, behind: float, lag: float) -> Report:
        return Report(
            worker=worker,
            seq=seq,
            t=T0 + seq + 1,
            interval_s=1.0,
            counters={
                "op.move_stock.done": done,
                "op.move_stock.scheduled": scheduled,
                "op.move_stock.rows": 3 * done,
                Counter.POLLS: 1,
            },
            gauges={"op.move_stock.target_ps": target, "op.move_stock.behind": behind, Gauge.WATCHER_LAG_MS: lag},
            hdr={"op.move_stock": _hdr([1000] * done)},
        )

    agg = Aggregator(T0, 1.0, workers=2)
    agg.add(report(0, 0, 4, 5, 10.0, 1.0, 7.0))
    [sample] = agg.add(report(1, 0, 6, 6, 10.0, 0.0, 9.0))
    assert sample.gauges["op.move_stock.ps"] == pytest.approx(10.0)
    assert sample.gauges["op.move_stock.scheduled_ps"] == pytest.approx(11.0)
    assert (sample.gauges["op.move_stock.target_ps"], sample.gauges["op.move_stock.behind"]) == (20.0, 1.0)
    assert sample.gauges[Gauge.WATCHER_LAG_MS] == 9.0  # other gauges: the worst process
    assert "op.move_stock.rows.ps" not in sample.gauges and "op.move_stock.done" not in sample.gauges
    agg.add(report(0, 1, 2, 2, 10.0, 0.0, 1.0))
    agg.add(report(1, 1, 0, 0, 10.0, 0.0, 1.0))
    assert agg.worker_usage(0)[0] == 4 + 1 + 2 + 1 and agg.worker_usage(1)[0] == 6 + 1 + 0 + 1  # executions + polls
    summary = agg.summary()
    assert summary.rates["op.move_stock.ps"] == pytest.approx(12 / 2.0)
    assert summary.latency["op.move_stock"].count == 12


def test_a_built_in_definitions_run_also_carries_the_updaters_names() -> None:
    """Issue 22: the write operation's figures under the legacy names too (the live page, profiles,
    capacity searches and compares read them), never replacing one the workers sent."""
    legacy = {"updater.txn": "op.write", "updater.target_tps": "op.write.target_ps", "reader.read": "op.point_read"}
    agg = Aggregator(T0, 1.0, workers=1, legacy=legacy)
    for seq, values in enumerate(([2000] * 4, [6000] * 2)):
        report = Report(
            worker=0,
            seq=seq,
            t=T0 + seq + 1,
            interval_s=1.0,
            counters={"op.write.done": len(values)},
            gauges={"op.write.target_ps": 5.0},
            hdr={"op.write": _hdr(values)},
        )
        [sample] = agg.add(report)
        assert sample.latency["updater.txn"] == sample.latency["op.write"]
        assert sample.latency["updater.txn"].count == len(values)
        assert sample.gauges["updater.target_tps"] == 5.0
        assert "reader.read" not in sample.latency  # no point read ran
    summary = agg.summary()
    assert summary.latency["updater.txn"].count == summary.latency["op.write"].count == 6
    assert summary.latency["updater.txn"].max == pytest.approx(6.0, rel=0.001)
    assert summary.rates["updater.target_tps"] == 5.0


def test_a_definitions_writing_executions_are_operations_once_though_they_also_count_transactions() -> None:
    # 3 executions of a definition (2 of them wrote: transactions 2), 4 polls
    assert operations_in({"op.a.done": 3, "transactions": 2, "mutations": 9, "polls": 4}) == 7
    # the built-in updater: its transactions are its operations
    assert operations_in({"transactions": 5, "reads": 1, "mutations": 20}) == 6
