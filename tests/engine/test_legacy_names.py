"""A report workload's run is now its built-in definition's (issue 22): the names users' scripts and
CI jobs judge it by (``--abort-on 'updater.p99_ms>500'``, ``--threshold 'reader.p99_ms<50'``,
``updater.target_tps``) answer with the figures of the operation that took the updater's or the
reader's role."""

from __future__ import annotations

from spanload.engine import thresholds
from spanload.engine.abort_rules import AbortWatch
from spanload.model.builtin_convert import as_definition
from spanload.model.config import RunConfig
from spanload.model.presets import get_preset
from spanload.model.samples import Percentiles, Sample, Summary


def _converted(body: dict[str, object]) -> RunConfig:
    return as_definition(RunConfig.model_validate(body))


def test_an_abort_rule_on_the_updater_judges_the_write_operation() -> None:
    config = as_definition(get_preset("light").config)
    legacy = thresholds.legacy_names(config)
    watch = AbortWatch(["updater.p99_ms>500 for 2s"], legacy)

    def sample(seq: int, p99: float) -> Sample:
        latency = {"op.write": Percentiles(count=10, p99=p99), "op.write_intended": Percentiles(count=10, p99=1.0)}
        return Sample(seq=seq, t=1000.0 + seq, elapsed_s=seq + 1.0, interval_s=1.0, latency=latency)

    assert watch.observe(sample(0, 600)) is None
    fired = watch.observe(sample(1, 700))
    assert fired is not None and (fired["metric"], fired["value"]) == ("updater.txn.p99_ms", 700)
    assert AbortWatch(["updater.p99_ms>500"]).observe(sample(2, 900)) is None  # without the names: nothing


def test_thresholds_read_the_operations_that_took_the_roles() -> None:
    config = _converted({"updater": {"mode": "dml"}, "reader": {"enabled": True, "query": "recent_changes"}})
    summary = Summary(
        duration_s=10.0,
        latency={
            "op.write_dml": Percentiles(count=5, p50=3.0, p99=9.0),
            "op.recent_changes": Percentiles(count=4, p99=4.5),
            "watcher.notify": Percentiles(count=5, p50=800.0),
        },
        rates={"op.write_dml.ps": 0.5, "op.recent_changes.target_ps": 10.0},
    )
    figures = thresholds.metrics_of(summary, thresholds.legacy_names(config))
    assert (figures["updater.txn.p99_ms"], figures["updater.txn.p50_ms"], figures["reader.read.p99_ms"]) == (
        9.0,
        3.0,
        4.5,
    )
    assert (figures["updater.tps"], figures["reader.target_rps"]) == (0.5, 10.0)
    check = thresholds.parse("updater.p99_ms<5")
    assert check.check(figures) is not None  # 9 ms breaks it
    assert thresholds.parse("notify.p50_ms<1000").check(figures) is None
    known = thresholds.known_metrics(config)
    assert {"updater.txn.p99_ms", "reader.read.p99_ms", "op.write_dml.p99_ms", "updater.tps"} <= set(known)


def test_the_presets_of_built_in_definitions_answer_to_the_updaters_names() -> None:
    bench = thresholds.legacy_names(get_preset("write-benchmark").config)
    assert (bench["updater.txn"], bench["reader.read"]) == ("op.write", "op.point_read")
    lab = thresholds.legacy_names(get_preset("2pc-participants").config)
    assert lab["updater.txn"] == "op.batch_insert" and "reader.read" not in lab


def test_a_definition_of_ones_own_has_no_legacy_names() -> None:
    assert thresholds.legacy_names(get_preset("shop-googlesql").config) == {}
    assert thresholds.legacy_names(get_preset("tpcc-1w").config) == {}
