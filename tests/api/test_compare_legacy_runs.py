"""A run saved before the report workloads became definitions compared with a new run of the same
workload (issue 22): the old run's updater and reader figures line up with the operations that took
their roles (model/builtin_knobs.py LEGACY_FIGURES), so the compare shows one write latency with
both runs' values, not two half-empty rows."""

from __future__ import annotations

from spanload.control import compare
from spanload.model.builtin_convert import as_definition
from spanload.model.config import RunConfig
from spanload.model.samples import Percentiles, Sample, Summary

OLD = {"schema": "singers", "updater": {"transactions_per_second": 5, "mode": "dml"}}  # as an old run stored it


def _sample(latency: dict[str, Percentiles], gauges: dict[str, float]) -> Sample:
    return Sample(seq=0, t=1000.0, elapsed_s=1.0, interval_s=1.0, latency=latency, gauges=gauges)


def test_an_old_runs_updater_figures_line_up_with_the_definitions_write() -> None:
    new = as_definition(RunConfig.model_validate({"updater": {"mode": "dml"}})).model_dump(mode="json")
    old_summary = Summary(latency={"updater.txn": Percentiles(count=50, p99=12.0)}, rates={"updater.tps": 5.0})
    new_summary = Summary(latency={"op.write_dml": Percentiles(count=48, p99=15.0)}, rates={"op.write_dml.ps": 4.8})
    old_samples = [_sample({"updater.txn": Percentiles(count=5, p99=12.0)}, {"updater.target_tps": 5.0})]
    summaries, samples = compare.in_definition_terms([OLD, new], [old_summary, new_summary], [old_samples, []])
    deltas = {m.metric: m for m in compare.metric_deltas(summaries)}
    assert deltas["latency.op.write_dml.p99"].values == [12.0, 15.0]
    assert deltas["latency.op.write_dml.p99"].delta == [0.0, 3.0]
    assert deltas["rates.op.write_dml.ps"].values == [5.0, 4.8]
    assert "latency.updater.txn.p99" not in deltas
    assert set(samples[0][0].latency) == {"op.write_dml"} and samples[0][0].gauges == {"op.write_dml.target_ps": 5.0}


def test_two_old_runs_compare_as_they_always_did() -> None:
    summary = Summary(latency={"updater.txn": Percentiles(count=50, p99=12.0)})
    summaries, _ = compare.in_definition_terms([OLD, OLD], [summary, summary], [[], []])
    assert summaries == [summary, summary]
