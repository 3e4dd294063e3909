"""`spanload experiment NAME` (cli/experiment.py): a report's variants back to back on one database,
preloaded once, then their key figures side by side with ratios to the first variant."""

from __future__ import annotations

import io
import re
import uuid
from types import SimpleNamespace

import pytest

from spanload.cli import commands
from spanload.cli.experiment import (
    VariantRun,
    _figure,
    consistency_lines,
    figures_table,
    run_experiment,
    variant_configs,
)
from spanload.cli.render import PrintingSink
from spanload.engine.thresholds import known_metrics, metrics_of
from spanload.model.config import ClientInterface, LatencyModel, RunConfig, WorkerRuntime
from spanload.model.events import EventKind
from spanload.model.experiments import CHANGE_STREAMS, EXPERIMENTS, HINT, PG, TPCC, TWO_PC, Experiment
from spanload.model.presets import get_preset
from spanload.model.samples import Summary
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.model.tpcc import TpccSummary, preload_rows
from tests.engine.conftest import LocalTarget

PRELOAD_ROWS = 3000


def test_every_experiment_names_presets_and_a_figure_first() -> None:
    for experiment in EXPERIMENTS.values():
        assert [get_preset(v).name for v in experiment.variants] == list(experiment.variants)
        assert len(experiment.variants) >= 2 and experiment.figures


def _configs(experiment: Experiment) -> list[RunConfig]:
    """The variants' configs as `spanload experiment NAME` runs them without flags."""
    return variant_configs(
        experiment, SimpleNamespace(duration=None, preload_rows=None, runtime=None, emulator_host=None)
    )


def _unreported(experiment: Experiment, configs: list[RunConfig]) -> list[str]:
    """The experiment's figures that a run of some variant does not report (thresholds' names)."""
    return [f.metric for f in experiment.figures for c in configs if f.metric not in known_metrics(c)]


def test_the_change_streams_experiment_sets_polling_against_a_stream_on_the_light_load() -> None:
    configs = _configs(CHANGE_STREAMS)
    assert CHANGE_STREAMS.variants == ("light-poll", "light-change-stream")
    assert [c.watch_mode() for c in configs] == [
        "poll",
        "change_stream",
    ]
    assert {c.target.database for c in configs} == {"spanload-exp-change-streams"}
    knobs = [c.knob_values() for c in configs]
    assert [k.pop("watch_mode") for k in knobs] == ["poll", "change_stream"]
    assert knobs[0] == knobs[1]
    assert configs[0].knob_values()["transactions_per_second"] == 5  # the report's light row
    assert [f.metric for f in CHANGE_STREAMS.figures] == [
        "watcher.notify.p50_ms",
        "watcher.notify.p99_ms",
        "server.cpu_per_change_ms",
        "server.watch_cpu_per_change_ms",
        "watcher.lag_ms",
        "reconciliation.ok",
        "reconciliation.final_versions_missing",
        "totals.received_changes",
        "op.write.ps",
    ]
    assert not _unreported(CHANGE_STREAMS, configs)


def test_the_two_pc_experiment_differs_in_participants_alone() -> None:
    configs = _configs(TWO_PC)
    assert TWO_PC.variants == ("2pc-participants", "2pc-participants-preloaded")
    assert {c.target.database for c in configs} == {"spanload-exp-two-pc"}
    assert {c.target.latency_model for c in configs} == {LatencyModel.PRODUCTION_LIKE}
    # an empty table (one split) against one preloaded past the local Spanner's 50,000-row splits
    assert [preload_rows(c) for c in configs] == [0, 150_000]
    knobs = [{k: v for k, v in c.knob_values().items() if k != "preload_rows"} for c in configs]
    assert knobs[0] == knobs[1]
    load = {k: knobs[0][k] for k in ("commits_per_second", "in_flight", "batch_rows")}
    assert load == {"commits_per_second": 42.0, "in_flight": 1, "batch_rows": 6}
    # no watcher polls the table: its scans would add server CPU to what the two compare
    assert all(c.definition is not None and c.definition.watch is None for c in configs)
    assert [f.metric for f in TWO_PC.figures][:2] == ["server.commit_participants", "server.commit_latency_s"]
    assert not _unreported(TWO_PC, configs)


def test_the_tpcc_experiment_runs_one_warehouse_from_one_process_and_from_two() -> None:
    configs = _configs(TPCC)
    assert {c.target.database for c in configs} == {"spanload-exp-tpcc"}
    assert [c.processes for c in configs] == [1, 2]
    assert configs[0].tpcc == configs[1].tpcc and configs[0].tpcc.terminals == 8
    assert {(c.runtime, c.duration_s) for c in configs} == {(WorkerRuntime.PYTHON, 60)}
    assert TPCC.figures[0].metric == "tpcc.tpmc"
    assert not _unreported(TPCC, configs)


def test_the_pg_experiment_runs_the_shop_on_googlesql_and_its_twin_on_both_postgresql_interfaces() -> None:
    configs = _configs(PG)
    assert [(c.definition and c.definition.name, c.client.interface, c.target.database) for c in configs] == [
        ("shop", ClientInterface.GOOGLESQL, "spanload-shop"),
        ("shop_pg", ClientInterface.POSTGRESQL, "spanload-shop-pg"),
        ("shop_pg", ClientInterface.PGADAPTER, "spanload-shop-pg"),
    ]
    assert {c.runtime for c in configs} == {WorkerRuntime.PYTHON}
    assert configs[0].knob_values() == configs[1].knob_values() == configs[2].knob_values()
    assert "TPC-C" in PG.report and "shop" in PG.report
    assert not _unreported(PG, configs)


def test_a_figure_in_seconds_keeps_its_digits() -> None:
    # the two-pc experiment's server commit latency is in seconds: 0.0036 printed as 0.00 hid it
    assert [_figure(v) for v in (0.003598, 0.0, 6.095, 249.123)] == ["0.0036", "0.00", "6.09", "249.12"]


def test_a_tpcc_variant_says_what_its_consistency_check_found() -> None:
    runs = []
    for variant, tpcc in (
        ("tpcc-1w", TpccSummary(warehouses=1, tpmc=376.0, consistency={"condition_1": "ok"})),
        ("medium", None),
    ):
        sink = PrintingSink(io.StringIO(), quiet=True)
        sink.summary = Summary(tpcc=tpcc)
        runs.append(VariantRun(variant, get_preset(variant).config, sink))
    assert consistency_lines(runs) == ["tpcc-1w: consistency: condition_1 ok"]


def test_a_figure_a_variant_lacks_is_n_a_with_the_summarys_reason() -> None:
    """Issue 29: the change-streams experiment on a target without the server's CPU (here the emulator's
    reasons): n/a in the table, and why under it, never a blank or 0."""
    runs = []
    reasons = {
        "server.cpu_per_change_ms": "the emulator counts no server CPU",
        "server.watch_cpu_per_change_ms": "the emulator has no SPANNER_SYS statistics",
    }
    for variant in CHANGE_STREAMS.variants:
        sink = PrintingSink(io.StringIO(), quiet=True)
        sink.summary = Summary(rates={"watcher.lag_ms": 5.0}, unavailable=reasons)
        runs.append(VariantRun(variant, get_preset(variant).config, sink))
    table = figures_table(CHANGE_STREAMS, runs)
    assert table[3:] == [
        f"n/a: {v} {label}: {why}"
        for v in CHANGE_STREAMS.variants
        for label, why in (
            ("server CPU ms per change", "the emulator counts no server CPU"),
            ("watcher SYS CPU ms/change", "the emulator has no SPANNER_SYS statistics"),
        )
    ]


def test_experiment_list_names_the_change_streams_experiment(capsys: pytest.CaptureFixture[str]) -> None:
    assert commands.main(["experiment", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(EXPERIMENTS)
    assert "shop-googlesql, shop-pg-postgresql, shop-pg-pgadapter" in lines[-1]


@pytest.mark.parametrize(
    ("argv", "sentence"),
    [
        (
            ["experiment", "nope"],
            f"spanload experiment: unknown experiment 'nope'; experiments are: {', '.join(EXPERIMENTS)}\n",
        ),
        (
            ["experiment"],
            f"spanload experiment: name an experiment: {', '.join(EXPERIMENTS)} (or --list)\n",
        ),
    ],
)
def test_a_bad_experiment_is_exit_2_with_a_sentence(
    argv: list[str], sentence: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert commands.main(argv) == 2
    assert capsys.readouterr().err == sentence


def test_the_hint_experiment_runs_its_variants_in_order_on_one_table_loaded_once(local_spanner: LocalTarget) -> None:
    args = SimpleNamespace(duration=3.0, preload_rows=PRELOAD_ROWS, runtime=None, emulator_host=local_spanner.address)
    database = f"exp-{uuid.uuid4().hex[:8]}"
    configs = [
        c.model_copy(update={"target": c.target.model_copy(update={"database": database})})
        for c in variant_configs(HINT, args)
    ]
    # the variants differ where their presets do, and nowhere else that matters here
    # (each the change watcher definition's run: the hint a knob, not_null the watch's one filter)
    assert [(c.knob_values()["table_hint"], c.definition and c.definition.watch and c.definition.watch.filter)
            for c in configs] == [(True, None), (False, None), (True, "ShardId IS NOT NULL")]  # fmt: skip
    out = io.StringIO()
    runs = run_experiment(HINT, configs, Settings(), out)
    assert [r.variant for r in runs] == ["medium", "medium-no-hint", "medium-not-null"]
    assert [r.sink.state for r in runs] == [RunState.FINISHED] * 3
    preloads = [[(kind, changes) for kind, changes in r.sink.events if kind.value.startswith("preload_")] for r in runs]
    assert [kind for kind, _ in preloads[0]] == [EventKind.PRELOAD_STARTED, EventKind.PRELOAD_FINISHED]
    assert preloads[0][1][1]["loaded"] == PRELOAD_ROWS
    assert [[kind for kind, _ in p] for p in preloads[1:]] == [[EventKind.PRELOAD_SKIPPED]] * 2

    table = figures_table(HINT, runs)[1 : len(runs) + 1]  # then why a figure is n/a, if one is
    assert [line.split()[0] for line in table] == ["medium", "medium-no-hint", "medium-not-null"]
    first_metric = HINT.figures[0].metric
    values = [metrics_of(r.sink.summary)[first_metric] for r in runs if r.sink.summary]
    ratios = [re.findall(r"(\d+\.\d\d)x", line)[0] for line in table]
    assert ratios == [f"{v / values[0]:.2f}" for v in values]
    assert ratios[0] == "1.00"
