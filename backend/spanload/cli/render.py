"""What `spanload run` shows: the live status block every interval (like the Change Watcher
benchmark's), the end-of-run summary table, and the ``--json`` document."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.live import Live
from rich.panel import Panel
from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn
from rich.text import Text

from spanload.cli.console import console
from spanload.model import op_metrics, tpcc
from spanload.model.breakdown import Source
from spanload.model.capacity import CapacityResult
from spanload.model.config import ConfigPatch, RunConfig, Workload
from spanload.model.events import EventKind, PreloadStatus
from spanload.model.op_metrics import OpGauge, OpHistogram
from spanload.model.samples import Gauge, Op, Percentiles, Sample, Summary
from spanload.model.state import RunState
from spanload.model.workload import WorkloadDefinition


def _fmt_ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f} ms" if value < 1000 else f"{value / 1000:,.2f} s"


def _hms(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _lat(latency: dict[str, Percentiles], op: str) -> str:
    p = latency.get(op)
    if p is None or not p.count:
        return "-"
    return f"p50 {_fmt_ms(p.p50)}  p99 {_fmt_ms(p.p99)}"


def _tpcc_status(sample: Sample) -> list[str]:
    g = sample.gauges
    lines = [
        f"Test duration:               {_hms(sample.elapsed_s)}",
        f"# Transactions:              {sample.totals.transactions:,}",
        f"tpmC (this interval):        {g.get(tpcc.TPMC_GAUGE, 0.0):,.0f}",
    ]
    for kind in tpcc.TxType:
        lines.append(f"{kind.value + ':':<29}{_lat(sample.latency, kind.op)}")
    return lines


def _definition_status(sample: Sample, definition: WorkloadDefinition) -> list[str]:
    """One line per operation of a definition, then its watcher's."""
    g = sample.gauges
    lines = [f"Test duration:               {_hms(sample.elapsed_s)}"]
    width = max(len(name) for name in definition.operations) + 1
    for name, op in definition.operations.items():
        rate = g.get(op_metrics.name(OpGauge.PS, name), 0.0)
        pacing = (
            f"(target {g.get(op_metrics.name(OpGauge.TARGET_PS, name), 0.0):.1f})"
            if op.rate is not None
            else f"({g.get(op_metrics.name(OpGauge.IN_FLIGHT, name), 0.0):.0f} in flight)"
        )
        latency = _lat(sample.latency, op_metrics.name(OpHistogram.LATENCY, name))
        lines.append(
            f"{name + ':':<{width}} {rate:7.1f}/s {pacing}  {latency}"
            f"  from intended {_lat(sample.latency, op_metrics.name(OpHistogram.INTENDED, name))}"
            + (f"  behind {g.get(op_metrics.name(OpGauge.BEHIND, name), 0.0):.0f}" if op.rate is not None else "")
        )
    if definition.watch is not None:
        lines.append(
            f"Watcher: {g.get(Gauge.WATCHER_CHANGES_PS, 0.0):7.1f} changes/s  notify "
            f"{_lat(sample.latency, Op.WATCHER_NOTIFY)}  lag {_fmt_ms(g.get(Gauge.WATCHER_LAG_MS))}"
        )
    return lines


def status_block(sample: Sample, config: RunConfig) -> list[str]:
    """The live status lines for one interval."""
    errors = ", ".join(f"{code} {n}" for code, n in sorted(sample.errors_by_code.items())) or "none"
    if config.workload is Workload.TPCC:
        return [*_tpcc_status(sample), f"Errors this interval:        {errors}"]
    if config.definition is not None:
        return [*_definition_status(sample, config.definition), f"Errors this interval:        {errors}"]
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


def _average(name: str, value: float) -> str:
    """One summary average; a latency in seconds (``server.commit_latency_s``) in ms, like every
    other latency the CLI prints (a 2 ms commit read ``0.00`` in seconds)."""
    if name.endswith("latency_s"):
        return f"{name.removesuffix('_s')} {_fmt_ms(value * 1000)}"
    return f"{name} {value:,.2f}"


def capacity_table(result: CapacityResult) -> list[str]:
    """A capacity search's knee, what broke and who was the limit, then one line per step."""
    knee = "none (the first step broke)" if result.knee is None else f"{result.knee:g}/s"
    lines = ["", f"capacity: knee {knee}, limited by {result.limited_by.value}"]
    if result.broke_by:
        lines.append("  the next step broke: " + "; ".join(result.broke_by))
    if result.note:
        lines.append(f"  {result.note}")
    header = (
        f"{'rate':>9}{'achieved':>10}{'p50':>9}{'p95':>9}{'p99':>9}{'errors':>8}{'server':>8}{'client':>8}  verdict"
    )
    lines += [header, "-" * len(header)]
    for s in result.steps:
        server = "-" if s.server_cpu is None else f"{s.server_cpu:.0%}"
        client = "-" if s.client_cpu is None else f"{s.client_cpu:.0%}"
        verdict = "held" if s.held else "broke"
        lines.append(
            f"{s.rate:>9g}{s.achieved:>10.1f}{_fmt_ms(s.p50):>9}{_fmt_ms(s.p95):>9}{_fmt_ms(s.p99):>9}"
            f"{s.errors_pct:>7.2f}%{server:>8}{client:>8}  {verdict}{'' if s.stable else ' (not stable)'}"
        )
    return lines


def totals_line(summary: Summary, definition: WorkloadDefinition | None = None) -> str:
    """The run's totals that apply to it: a definition's writes only if it writes, its watch's only if
    it watches (a run of the report workloads has them all). Without the ``definition`` (an old
    caller), a run with per-operation figures is taken for a definition that watches."""
    t = summary.totals
    per_op = any(op_metrics.split(op) is not None for op in summary.latency)
    writes = watches = reads = True
    if definition is not None:
        writes = any(op.writes for op in definition.operations.values()) or t.transactions > 0
        watches, reads = definition.watch is not None, False
    elif per_op:
        writes, reads = False, False
    parts = [f"transactions {t.transactions:,}", f"mutations {t.mutations:,}"] if writes else []
    parts += [f"received changes {t.received_changes:,}", f"polls {t.polls:,}"] if watches else []
    parts += [f"reads {t.reads:,}"] if reads else []
    return "  ".join([*parts, f"errors {t.errors:,}", f"aborts {t.aborts:,}"])


def summary_table(summary: Summary, definition: WorkloadDefinition | None = None) -> list[str]:
    """The end-of-run table: latency percentiles per operation, rates and totals (those that apply to
    ``definition``'s run, when given), reconciliation."""
    lines = [f"Summary ({_hms(summary.duration_s)})", ""]
    width = max([22, *(len(op) + 2 for op in summary.latency)])
    header = f"{'operation':<{width}}{'count':>9}{'p50':>11}{'p90':>11}{'p99':>11}{'p99.9':>11}{'max':>11}"
    lines.append(header)
    lines.append("-" * len(header))
    known = [op.value for op in Op]
    for op in [*known, *sorted(set(summary.latency) - set(known))]:  # then other kinds: tpcc.new_order...
        p = summary.latency.get(op)
        if p is None or not p.count:
            continue
        lines.append(
            f"{op:<{width}}{p.count:>9,}{_fmt_ms(p.p50):>11}{_fmt_ms(p.p90):>11}{_fmt_ms(p.p99):>11}"
            f"{_fmt_ms(p.p999):>11}{_fmt_ms(p.max):>11}"
        )
    lines.append("")
    lines.append(totals_line(summary, definition))
    rates = "  ".join(_average(k, v) for k, v in sorted(summary.rates.items()))
    lines.append(f"averages: {rates}")
    by_reason: dict[str, list[str]] = {}
    for name, reason in sorted(summary.unavailable.items()):
        by_reason.setdefault(reason, []).append(name)
    lines += [f"n/a ({reason}): {', '.join(names)}" for reason, names in by_reason.items()]
    if summary.errors_by_code:
        lines.append("errors by code: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.errors_by_code.items())))
    r = summary.reconciliation
    if r is not None:
        lines.append(f"reconciliation: {'OK' if r.ok else 'FAILED'}: {r.detail}")
    if summary.tpcc is not None:
        lines += tpcc_table(summary.tpcc)
    if summary.capacity is not None:
        lines += capacity_table(summary.capacity)
    lines += breakdown_table(summary)
    stop = summary.stop
    if stop is not None and not stop.graceful:
        lines.append(f"stop: not graceful: killed workers {stop.killed_workers} ({stop.detail or 'they did not exit'})")
    for w in summary.workers:
        cost = "-" if w.cpu_ms_per_op is None else f"{w.cpu_ms_per_op:.3f} ms CPU/op"
        cpu = "-" if w.cpu_s is None else f"{w.cpu_s:.2f} s CPU"
        lines.append(
            f"worker {w.index}: {w.runtime} pid {w.pid} on {w.node or w.host}  {w.operations:,} ops  {cpu}  {cost}"
        )
    return lines


SOURCE_MARKS = {
    Source.MEASURED: "",
    Source.DERIVED: " (derived)",
    Source.SPANNER_SYS: " (SPANNER_SYS)",
    Source.NOT_APPLICABLE: " (n/a)",
    Source.NOT_MEASURED: " (not measured)",
}


def breakdown_table(summary: Summary) -> list[str]:
    """Where the time goes: per operation kind, its mean round trip and each part's share of it."""
    ops = [op for op, b in sorted(summary.breakdown.items()) if b.count]
    if not ops:
        return []
    lines = ["", "where the time goes (mean per operation, from its intended start):"]
    for op in ops:
        b = summary.breakdown[op]
        parts = ", ".join(
            f"{p.part.value} {100 * p.ms / b.round_trip_ms if b.round_trip_ms else 0.0:.1f}%{SOURCE_MARKS[p.source]}"
            for p in b.parts
        )
        lines.append(f"{op:<22}{_fmt_ms(b.round_trip_ms):>11} = {parts}")
    return lines


def tpcc_table(summary: tpcc.TpccSummary) -> list[str]:
    """TPC-C's figures: tpmC, the mix against the standard, aborts and retries, consistency."""
    lines = ["", f"TPC-C, {summary.warehouses} warehouse(s): tpmC {summary.tpmc:,.1f}"]
    header = (
        f"{'type':<14}{'done':>8}{'share':>9}{'standard':>10}{'rolled back':>13}{'aborts':>8}{'retries':>9}"
        f"{'errors':>8}"
    )
    lines += [header, "-" * len(header)]
    for kind, f in summary.by_type.items():
        lines.append(
            f"{kind:<14}{f.completed:>8,}{f.share_pct:>8.1f}%{f.standard_pct:>9.1f}%{f.rollbacks:>13,}"
            f"{f.aborts:>8,}{f.retries:>9,}{f.errors:>8,}"
        )
    lines.append(consistency_line(summary))
    return lines


def consistency_line(summary: tpcc.TpccSummary) -> str:
    """TPC-C's consistency conditions 1-4 as the run's end found them, or why they were not checked."""
    verdicts = "  ".join(f"{name} {verdict}" for name, verdict in sorted(summary.consistency.items()))
    return f"consistency: {verdicts or summary.consistency_error or 'not checked'}"


def _eta(seconds: float | None) -> str:
    return "-" if seconds is None else _hms(seconds)


class PreloadBar:
    """The load phase's progress bar (rich): percent, rows, rows/s and ETA. On a terminal it redraws
    in place; elsewhere it prints its final state when the phase ends."""

    def __init__(self, out: TextIO, rows: int) -> None:
        self.progress = Progress(
            TextColumn("preload"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.completed:,}/{task.total:,} rows"),
            TextColumn("{task.fields[rate]:,.0f} rows/s"),
            TextColumn("ETA {task.fields[eta]}"),
            console=Console(file=out, width=110),
        )
        self.task: TaskID = self.progress.add_task("preload", total=rows, rate=0.0, eta="-")
        self.progress.start()

    def update(self, status: PreloadStatus) -> None:
        self.progress.update(self.task, completed=status.rows_done, rate=status.rows_per_s, eta=_eta(status.eta_s))
        if status.done:
            self.progress.stop()


PARTIAL_INTERVAL = 0.5  # of the report interval: a shorter last interval gets no status block


class PrintingSink:
    """A RunSink that prints: the status block every interval, state changes, and keeps everything."""

    def __init__(self, out: TextIO, quiet: bool = False) -> None:
        self.out = out
        self.quiet = quiet
        self.config: RunConfig | None = None
        self.samples: list[Sample] = []
        self.summary: Summary | None = None
        self.events: list[tuple[EventKind, dict[str, object]]] = []
        self.state = RunState.PENDING
        self.reason: str | None = None
        self._live: Live | None = None
        self._tty = out.isatty()
        self._preload: PreloadBar | None = None

    def on_sample(self, run_id: str, sample: Sample) -> None:
        self.samples.append(sample)
        if self.quiet or self.config is None:
            return
        # The stop's short last interval: its rates are noise (4 tx in 0.2 s "is" 19 tx/s); the summary follows.
        if self.state is RunState.STOPPING and sample.interval_s < PARTIAL_INTERVAL * self.config.report_interval_s:
            return
        lines = status_block(sample, self.config)
        if not self._tty:  # a pipe or a CI log: each block in turn, plain, a blank line between
            self.out.write("\n".join(lines) + "\n\n")
            self.out.flush()
            return
        block = Panel(Text("\n".join(lines)), title=f"run {run_id}: {self.state.value}", title_align="left")
        if self._live is None:  # Rich redraws the block in place until a line of news ends it
            self._live = Live(block, console=console(self.out), auto_refresh=False)
            self._live.start()
        self._live.update(block, refresh=True)

    def _end_block(self) -> None:
        """The live block stays as last drawn; what comes next prints below it."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    def on_state(self, run_id: str, state: RunState, reason: str | None) -> None:
        self.state = state
        self.reason = reason
        self._end_block()
        if not self.quiet:
            self.out.write(f"run {run_id}: {state.value}\n")  # a failure's reason is printed once, at the end
            self.out.flush()

    def on_config_change(self, run_id: str, patch: ConfigPatch, who: str) -> None:
        self._end_block()
        self.out.write(f"config change by {who}: {patch.changed_fields()}\n")

    def on_summary(self, run_id: str, summary: Summary) -> None:
        self.summary = summary

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        self.events.append((kind, changes))
        worker = f"worker {changes.get('worker')} (pid {changes.get('pid')})"
        match kind:
            case EventKind.STALLED:
                line = f"{worker} stalled: silent for {changes.get('silent_s')} s"
            case EventKind.RECOVERED:
                line = f"{worker} reports again after {changes.get('silent_s')} s"
            case EventKind.PRELOAD_SKIPPED:
                line = str(changes.get("message"))
            case EventKind.PRELOAD_STARTED:
                rows, held = changes.get("rows"), changes.get("table_rows")
                line = f"preload: loading up to {rows:,} rows (the table holds {held:,})"
            case EventKind.PRELOAD_FINISHED:
                line = (
                    f"preload finished: {changes.get('loaded'):,} rows loaded, {changes.get('skipped'):,} present, "
                    f"in {changes.get('seconds')} s ({changes.get('rows_per_s'):,} rows/s)"
                )
            case EventKind.TARGET_DOWN:
                line = f"target down: {changes.get('reason')}; starting it again in {changes.get('restart_in_s')} s"
            case EventKind.TARGET_UP:
                line = f"target up: {changes.get('address')} is back after {changes.get('down_s')} s"
            case _:
                line = f"{kind.value}: {changes}"
        self._end_block()
        self.out.write(line + "\n")
        self.out.flush()

    def on_preload(self, run_id: str, status: PreloadStatus) -> None:
        if self.quiet:
            return
        if self._preload is None:
            self._end_block()
            self._preload = PreloadBar(self.out, status.rows)
        self._preload.update(status)
        if status.done:
            self._preload = None


def write_json(path: Path, document: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=1))
