"""A report workload's run is now its built-in definition's (issue 22): the names users' scripts and
CI jobs judge it by (``--abort-on 'updater.p99_ms>500'``, ``--threshold 'reader.p99_ms<50'``,
``updater.target_tps``) and that a compare with a run saved before lines up on are the figures of
the operation that took the updater's or the reader's role, which the aggregator carries under
both names."""

from __future__ import annotations

from spanload.control import compare
from spanload.engine import thresholds
from spanload.engine.abort_rules import AbortWatch
from spanload.engine.aggregator import Aggregator
from spanload.model import metrics
from spanload.model.builtin_convert import as_definition
from spanload.model.config import RunConfig
from spanload.model.presets import get_preset
from spanload.model.protocol import Report
from spanload.model.samples import Percentiles, Sample, Summary

T0 = 1000.0


def _report(seq: int, op: str, millis: list[float], **gauges: float) -> Report:
    h = metrics.new_histogram()
    for ms in millis:
        h.record_value(int(ms * 1000))
    counters = {f"op.{op}.done": len(millis)}
    hdr = {f"op.{op}": metrics.encode(h)}
    return Report(worker=0, seq=seq, t=T0 + seq + 1, interval_s=1.0, counters=counters, gauges=gauges, hdr=hdr)


def _samples(config: RunConfig, op: str, per_interval: list[list[float]]) -> tuple[list[Sample], Summary]:
    agg = Aggregator(T0, 1.0, workers=1, legacy=thresholds.legacy_names(config))
    out = [s for seq, ms in enumerate(per_interval) for s in agg.add(_report(seq, op, ms))]
    return out, agg.summary()


def test_an_abort_rule_on_the_updater_judges_the_write_operation() -> None:
    config = as_definition(get_preset("light").config)
    samples, _ = _samples(config, "write", [[600.0] * 3, [700.0] * 3])
    watch = AbortWatch(["updater.p99_ms>500 for 2s"])
    assert watch.observe(samples[0]) is None
    fired = watch.observe(samples[1])
    assert fired is not None and fired["metric"] == "updater.txn.p99_ms"
    assert abs(float(fired["value"]) - 700.0) < 1.0  # the write operation's p99 (HdrHistogram's precision)


def test_thresholds_read_the_operations_that_took_the_roles() -> None:
    config = as_definition(
        RunConfig.model_validate({"updater": {"mode": "dml"}, "reader": {"enabled": True, "query": "recent_changes"}})
    )
    _, summary = _samples(config, "write_dml", [[9.0] * 5])
    figures = thresholds.metrics_of(summary)
    assert (
        abs(figures["updater.txn.p99_ms"] - 9.0) < 0.01
        and figures["updater.txn.p99_ms"] == figures["op.write_dml.p99_ms"]
    )
    assert thresholds.parse("updater.p99_ms<5").check(figures) is not None  # 9 ms breaks it
    known = thresholds.known_metrics(config)
    assert {"updater.txn.p99_ms", "reader.read.p99_ms", "op.write_dml.p99_ms", "updater.tps"} <= set(known)


def test_a_new_run_lines_up_with_an_old_saved_run_in_a_compare() -> None:
    old = Summary(latency={"updater.txn": Percentiles(count=50, p50=12.0, p99=12.0)})  # a run saved before
    _, new = _samples(as_definition(get_preset("light").config), "write", [[15.0] * 4])
    deltas = {m.metric: m for m in compare.metric_deltas([old, new])}
    values = deltas["latency.updater.txn.p99"].values
    assert values[0] == 12.0 and values[1] is not None and abs(values[1] - 15.0) < 0.02


def test_the_presets_of_built_in_definitions_answer_to_the_updaters_names() -> None:
    bench = thresholds.legacy_names(get_preset("write-benchmark").config)
    assert (bench["updater.txn"], bench["reader.read"]) == ("op.write", "op.point_read")
    lab = thresholds.legacy_names(get_preset("2pc-participants").config)
    assert lab["updater.txn"] == "op.batch_insert" and "reader.read" not in lab


def test_a_definition_of_ones_own_has_no_legacy_names() -> None:
    assert thresholds.legacy_names(get_preset("shop-googlesql").config) == {}
    assert thresholds.legacy_names(get_preset("tpcc-1w").config) == {}


def test_a_compare_opens_with_the_report_workloads_key_figures() -> None:
    bench = get_preset("write-benchmark").config.model_dump(mode="json")
    assert compare.workload_of(bench).value == "write_benchmark"
    light = as_definition(get_preset("light").config).model_dump(mode="json")
    assert compare.workload_of(light).value == "change_watcher"
    assert compare.workload_of(get_preset("shop-googlesql").config.model_dump(mode="json")).value == "definition"
