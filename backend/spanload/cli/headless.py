"""`spanload run`: a load test without the web UI (for CI).

It drives the same :class:`~spanload.engine.supervisor.Supervisor` as the dashboard, with a sink
that prints a status block every interval (like the Change Watcher benchmark's), then a summary
table; ``--json FILE`` writes the config, the whole-run figures and every interval sample;
``--threshold`` checks fail the exit code. Ctrl-C stops the run cleanly and still reports.

Exit codes: 0 passed, 1 a threshold failed or the run failed, 2 bad flags, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import uuid
from pathlib import Path
from typing import TextIO

from spanload.cli.flags import add_knob_flags, overrides_from
from spanload.engine import thresholds
from spanload.engine.runtimes import worker_command
from spanload.engine.supervisor import Supervisor
from spanload.model import presets
from spanload.model.config import (
    ConfigPatch,
    RunConfig,
    TargetKind,
)
from spanload.model.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, RunError
from spanload.model.samples import Gauge, Op, Percentiles, Sample, Summary
from spanload.model.settings import Settings, get_settings
from spanload.model.state import RunState


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `spanload run`."""
    parser.add_argument("--preset", help="start from a preset (see --list-presets); knob flags override it")
    parser.add_argument("--list-presets", action="store_true", help="print the presets and exit")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write config, summary and every sample here")
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="EXPR",
        help="fail unless it holds, e.g. 'updater.p99_ms<50', 'watcher.changes_ps>10', 'reconciliation.ok==1'",
    )
    parser.add_argument("--quiet", action="store_true", help="no live status block")

    add_knob_flags(parser)


def build_config(args: argparse.Namespace) -> RunConfig:
    """The run's config from ``--preset`` and knob flags. Raises :class:`RunInvalid`."""
    return presets.make_config(args.preset, overrides_from(args), prefix="invalid run configuration: ")


# -- output -------------------------------------------------------------------------------------------


def _fmt_ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f} ms" if value < 1000 else f"{value / 1000:,.2f} s"


def _hms(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _lat(latency: dict[str, Percentiles], op: Op) -> str:
    p = latency.get(op)
    if p is None or not p.count:
        return "-"
    return f"p50 {_fmt_ms(p.p50)}  p99 {_fmt_ms(p.p99)}"


def status_block(sample: Sample, config: RunConfig) -> list[str]:
    """The live status lines for one interval."""
    g = sample.gauges
    t = sample.totals
    lines = [
        f"Test duration:               {_hms(sample.elapsed_s)}",
        f"# Transactions:              {t.transactions:,}",
        f"# Mutations:                 {t.mutations:,}",
        f"# Received changes:          {t.received_changes:,}",
        f"Change notification latency: {_lat(sample.latency, Op.WATCHER_NOTIFY)}",
        f"Poll time:                   {_lat(sample.latency, Op.WATCHER_POLL)}",
    ]
    if Gauge.SERVER_POLL_AVG_LATENCY_S in g:
        lines.append(
            f"Avg poll time last minute:   {g[Gauge.SERVER_POLL_AVG_LATENCY_S]:.4f} s   "
            f"Spanner CPU last minute: {g.get(Gauge.SERVER_POLL_CPU_FRACTION, 0.0):.0%}"
        )
    if config.updater.enabled:
        lines.append(
            f"Updater: {g.get(Gauge.UPDATER_TPS, 0.0):7.1f} tx/s (target {g.get(Gauge.UPDATER_TARGET_TPS, 0.0):.1f})"
            f"  {_lat(sample.latency, Op.UPDATER_TXN)}  from intended {_lat(sample.latency, Op.UPDATER_TXN_INTENDED)}"
            f"  behind {g.get(Gauge.UPDATER_BEHIND, 0.0):.0f}"
        )
    if config.watcher.enabled:
        lines.append(
            f"Watcher: {g.get(Gauge.WATCHER_POLLS_PS, 0.0):7.1f} polls/s  "
            f"{g.get(Gauge.WATCHER_ROWS_PER_POLL, 0.0):.1f} rows/poll  lag {_fmt_ms(g.get(Gauge.WATCHER_LAG_MS))}"
        )
    if config.reader.enabled:
        lines.append(
            f"Reader:  {g.get(Gauge.READER_RPS, 0.0):7.1f} reads/s (target {g.get(Gauge.READER_TARGET_RPS, 0.0):.1f})"
            f"  {_lat(sample.latency, Op.READER_READ)}"
        )
    if Gauge.SESSIONS_IN_USE in g:
        lines.append(
            f"Sessions: {g[Gauge.SESSIONS_IN_USE]:.0f} in use, {g.get(Gauge.SESSIONS_IDLE, 0):.0f} idle, "
            f"{g.get(Gauge.SESSIONS_WAITING, 0):.0f} waiting"
        )
    errors = ", ".join(f"{code} {n}" for code, n in sorted(sample.errors_by_code.items())) or "none"
    lines.append(f"Errors this interval:        {errors}")
    return lines


def summary_table(summary: Summary) -> list[str]:
    """The end-of-run table: latency percentiles per operation, rates and totals, reconciliation."""
    lines = [f"Summary ({_hms(summary.duration_s)})", ""]
    header = f"{'operation':<22}{'count':>9}{'p50':>11}{'p90':>11}{'p99':>11}{'p99.9':>11}{'max':>11}"
    lines.append(header)
    lines.append("-" * len(header))
    for op in Op:
        p = summary.latency.get(op)
        if p is None or not p.count:
            continue
        lines.append(
            f"{op.value:<22}{p.count:>9,}{_fmt_ms(p.p50):>11}{_fmt_ms(p.p90):>11}{_fmt_ms(p.p99):>11}"
            f"{_fmt_ms(p.p999):>11}{_fmt_ms(p.max):>11}"
        )
    lines.append("")
    t = summary.totals
    lines.append(
        f"transactions {t.transactions:,}  mutations {t.mutations:,}  received changes {t.received_changes:,}  "
        f"polls {t.polls:,}  reads {t.reads:,}  errors {t.errors:,}  aborts {t.aborts:,}"
    )
    rates = "  ".join(f"{k} {v:,.2f}" for k, v in sorted(summary.rates.items()))
    lines.append(f"averages: {rates}")
    if summary.errors_by_code:
        lines.append("errors by code: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.errors_by_code.items())))
    r = summary.reconciliation
    if r is not None:
        lines.append(f"reconciliation: {'OK' if r.ok else 'FAILED'}: {r.detail}")
    for w in summary.workers:
        cost = "-" if w.cpu_ms_per_op is None else f"{w.cpu_ms_per_op:.3f} ms CPU/op"
        cpu = "-" if w.cpu_s is None else f"{w.cpu_s:.2f} s CPU"
        lines.append(
            f"worker {w.index}: {w.runtime} pid {w.pid} on {w.node or w.host}  {w.operations:,} ops  {cpu}  {cost}"
        )
    return lines


class PrintingSink:
    """A RunSink that prints: the status block every interval, state changes, and keeps everything."""

    def __init__(self, out: TextIO, quiet: bool = False) -> None:
        self.out = out
        self.quiet = quiet
        self.config: RunConfig | None = None
        self.samples: list[Sample] = []
        self.summary: Summary | None = None
        self.state = RunState.PENDING
        self.reason: str | None = None
        self._drawn = 0
        self._tty = out.isatty()

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self.samples.append(sample)
        if self.quiet or self.config is None:
            return
        lines = status_block(sample, self.config)
        if self._tty and self._drawn:
            self.out.write(f"\x1b[{self._drawn}F\x1b[J")
        self.out.write("\n".join(lines) + "\n" + ("" if self._tty else "\n"))
        self.out.flush()
        self._drawn = len(lines)

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        self.state = state
        self.reason = reason
        self._drawn = 0
        if not self.quiet:
            self.out.write(f"run {run_id}: {state.value}\n")  # a failure's reason is printed once, at the end
            self.out.flush()

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None:
        self.out.write(f"config change by {who}: {patch.changed_fields()}\n")

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.summary = summary


def write_json(path: Path, config: RunConfig, sink: PrintingSink) -> None:
    document = {
        "config": config.model_dump(mode="json", by_alias=True),
        "state": sink.state.value,
        "reason": sink.reason,
        "summary": sink.summary.model_dump(mode="json") if sink.summary else None,
        "samples": [s.model_dump(mode="json") for s in sink.samples],
    }
    path.write_text(json.dumps(document, indent=1))


async def run_headless(config: RunConfig, settings: Settings, sink: PrintingSink) -> bool:
    """Run until the duration ends, the run fails, or SIGINT/SIGTERM; True if interrupted."""
    supervisor = Supervisor(settings, sink)
    run_id = f"cli-{uuid.uuid4().hex[:12]}"
    loop = asyncio.get_running_loop()
    interrupted = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupted.set)
    try:
        await supervisor.start(run_id, config)
        finished = asyncio.ensure_future(supervisor.wait_finished(run_id))
        interrupt = asyncio.ensure_future(interrupted.wait())
        await asyncio.wait({finished, interrupt}, return_when=asyncio.FIRST_COMPLETED)
        if interrupt.done() and not finished.done():
            sink.out.write("stopping: writers stop, the watcher drains, then the summary...\n")
            sink.out.flush()
            await supervisor.stop(run_id)
        interrupt.cancel()
        await finished
        return interrupted.is_set()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await supervisor.shutdown()


def main(args: argparse.Namespace) -> int:
    """`spanload run`. Returns the exit code; a :class:`RunError` (bad flags, no local Spanner, a run
    that could not start) goes up to the command line, which prints it and exits with its code."""
    out = sys.stdout
    if args.list_presets:
        for preset in presets.all_presets():
            out.write(f"{preset.name:<28}{preset.description}\n")
        return EXIT_OK
    config = build_config(args)
    checks = [thresholds.parse(t) for t in args.threshold]
    settings = get_settings()
    worker_command(config.runtime, settings.go_worker_binary)  # a missing runtime fails before any server starts
    server = None
    if config.target.kind is TargetKind.LOCAL and not config.target.emulator_host:
        from spanload.spanner.local_server import ensure_local_spanner

        data_dir = None if settings.local_spanner_in_memory else settings.data_dir / "local-spanner"
        address, server = ensure_local_spanner(
            settings.local_spanner_host, settings.local_spanner_port, data_dir, settings.local_spanner_binary
        )
        config = config.model_copy(update={"target": config.target.model_copy(update={"emulator_host": address})})
    sink = PrintingSink(out, quiet=args.quiet)
    sink.config = config
    try:
        interrupted = asyncio.run(run_headless(config, settings, sink))
    finally:
        if server is not None:
            server.stop()
    if sink.summary is not None:
        out.write("\n".join(summary_table(sink.summary)) + "\n")
    if args.json:
        try:
            write_json(args.json, config, sink)
        except OSError as err:
            raise RunError(f"could not write {args.json}: {err.strerror}") from None
    failures = (
        [] if sink.summary is None else [f for c in checks if (f := c.check(thresholds.metrics_of(sink.summary)))]
    )
    for failure in failures:
        out.write(failure + "\n")
    if sink.state is RunState.FAILED:
        raise RunError(f"the run failed: {sink.reason}")
    if failures:
        return EXIT_FAILED
    return EXIT_INTERRUPTED if interrupted else EXIT_OK
