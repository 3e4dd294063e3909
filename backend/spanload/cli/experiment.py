"""`spanload experiment NAME`: a seed report's variants back to back on one database
(model/experiments.py), then their key figures side by side, each with its ratio to the first
variant, and what the report found.

Exit codes: 0 every variant ran, 1 one failed, 2 bad flags or an unknown experiment, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, TextIO

from spanload.cli.headless import local_target, run_headless
from spanload.cli.render import PrintingSink, consistency_line, write_json
from spanload.engine.placement import check_start
from spanload.engine.thresholds import metrics_of
from spanload.model import presets
from spanload.model.config import RunConfig
from spanload.model.errors import EXIT_INTERRUPTED, EXIT_OK, RunError, RunInvalid
from spanload.model.experiments import EXPERIMENTS, Experiment, get_experiment
from spanload.model.settings import Settings, get_settings
from spanload.model.state import RunState
from spanload.model.tpcc import preload_rows


@dataclass
class VariantRun:
    variant: str
    config: RunConfig
    sink: PrintingSink


def variant_configs(experiment: Experiment, args: SimpleNamespace) -> list[RunConfig]:
    """Each variant's config: its preset, the experiment's overrides and the flags'. Raises RunInvalid."""
    overrides: dict[str, Any] = {**experiment.overrides}
    if args.duration is not None:
        overrides["duration_s"] = args.duration
    if args.preload_rows is not None:
        overrides["preload"] = {"rows": args.preload_rows}
    if args.runtime is not None:
        overrides["runtime"] = args.runtime
    if args.emulator_host is not None:
        overrides["target"] = {**overrides.get("target", {}), "emulator_host": args.emulator_host}
    return [
        presets.make_config(v, overrides, prefix=f"experiment {experiment.name}, variant {v}: ")
        for v in experiment.variants
    ]


def run_experiment(
    experiment: Experiment, configs: list[RunConfig], settings: Settings, out: TextIO
) -> list[VariantRun]:
    """Run the variants in order on one local Spanner; stops at the first that fails or is interrupted."""
    runs: list[VariantRun] = []
    with local_target(configs[0], settings) as (first, local):
        target = first.target
        for variant, config in zip(experiment.variants, configs, strict=True):
            config = config.model_copy(
                update={"target": config.target.model_copy(update={"emulator_host": target.emulator_host})}
            )
            out.write(f"[{len(runs) + 1}/{len(configs)}] {variant}: {presets.get_preset(variant).description}\n")
            out.flush()
            sink = PrintingSink(out, quiet=True)
            sink.config = config
            interrupted = asyncio.run(run_headless(f"cli-{uuid.uuid4().hex[:12]}", config, settings, sink, local=local))
            runs.append(VariantRun(variant, config, sink))
            if interrupted or sink.state is RunState.FAILED:
                break
    return runs


def _figure(value: float) -> str:
    """Two decimals, or three significant digits under 0.1 (a latency in seconds: 0.00360, not 0.00)."""
    return f"{value:.3g}" if 0 < abs(value) < 0.1 else f"{value:.2f}"


def figures_table(experiment: Experiment, runs: list[VariantRun]) -> list[str]:
    """One row per variant: each key figure and its ratio to the first variant's; then, for a figure
    a variant's summary says it lacks (``Summary.unavailable``), why it is n/a."""
    values = [metrics_of(r.sink.summary) if r.sink.summary else {} for r in runs]
    width = max(len(v) for v in experiment.variants) + 2
    head = f"{'variant':<{width}}" + "".join(f"{f.label:>28}{'ratio':>8}" for f in experiment.figures)
    lines = [head]
    reasons: list[str] = []
    for run, figures in zip(runs, values, strict=True):
        row = f"{run.variant:<{width}}"
        unavailable = run.sink.summary.unavailable if run.sink.summary else {}
        for f in experiment.figures:
            value, base = figures.get(f.metric), values[0].get(f.metric)
            ratio = f"{value / base:.2f}x" if value is not None and base else "n/a"
            row += f"{_figure(value):>28}{ratio:>8}" if value is not None else f"{'n/a':>28}{'n/a':>8}"
            if value is None and (why := unavailable.get(f.metric)):
                reasons.append(f"n/a: {run.variant} {f.label}: {why}")
        lines.append(row)
    return lines + reasons


def consistency_lines(runs: list[VariantRun]) -> list[str]:
    """A TPC-C variant's consistency conditions, which no figure can carry."""
    return [
        f"{r.variant}: {consistency_line(r.sink.summary.tpcc)}" for r in runs if r.sink.summary and r.sink.summary.tpcc
    ]


def main(args: SimpleNamespace) -> int:
    out = sys.stdout
    if args.list:
        for experiment in EXPERIMENTS.values():
            out.write(f"{experiment.name:<16}{experiment.description} ({', '.join(experiment.variants)})\n")
        return EXIT_OK
    if args.name is None:
        raise RunInvalid(f"name an experiment: {', '.join(EXPERIMENTS)} (or --list)")
    experiment = get_experiment(args.name)
    configs = variant_configs(experiment, args)
    settings = get_settings()
    # report workloads as their built-in definitions, the rate cap, a missing runtime: before anything runs
    configs = [check_start(config, settings).config for config in configs]
    out.write(
        f"experiment {experiment.name}: {experiment.description}; {configs[0].duration_s:g} s each on database "
        f"{configs[0].target.database}, preloaded to {preload_rows(configs[0]):,} rows\n"
    )
    runs = run_experiment(experiment, configs, settings, out)
    out.write("\n".join([*figures_table(experiment, runs), *consistency_lines(runs)]) + "\n" + experiment.report + "\n")
    if args.json:
        args.json.mkdir(parents=True, exist_ok=True)
        for run in runs:
            sink = run.sink
            document = {
                "config": run.config.model_dump(mode="json", by_alias=True),
                "state": sink.state.value,
                "reason": sink.reason,
                "summary": sink.summary.model_dump(mode="json") if sink.summary else None,
                "samples": [s.model_dump(mode="json") for s in sink.samples],
            }
            write_json(args.json / f"{run.variant}.json", document)
    last = runs[-1].sink
    if last.state is RunState.FAILED:
        raise RunError(f"variant {runs[-1].variant} failed: {last.reason}")
    return EXIT_INTERRUPTED if len(runs) < len(configs) else EXIT_OK
