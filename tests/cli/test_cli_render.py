"""What `spanload run` prints: the stop's short last interval gets no status block (its per-second
rates are noise), and a latency average in seconds prints in ms like every other latency."""

from __future__ import annotations

import io
import re

import pytest

from spanload.cli.render import PrintingSink, summary_table, totals_line
from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import RunConfig
from spanload.model.samples import Gauge, Sample, Summary, Totals
from spanload.model.state import RunState


def _sample(seq: int, interval_s: float, transactions: int) -> Sample:
    tps = transactions / interval_s
    return Sample(
        seq=seq, t=1000.0 + seq, elapsed_s=seq + interval_s, interval_s=interval_s, gauges={Gauge.UPDATER_TPS: tps}
    )


def test_the_stops_short_last_interval_prints_no_status_block_a_whole_one_does() -> None:
    out = io.StringIO()
    sink = PrintingSink(out)
    sink.config = RunConfig(report_interval_s=1.0)
    sink.on_state("r", RunState.RUNNING, None)
    sink.on_sample("r", _sample(0, 1.0, 5))
    sink.on_state("r", RunState.STOPPING, None)
    sink.on_sample("r", _sample(1, 0.9, 4))  # a last interval near a whole one still prints
    sink.on_sample("r", _sample(2, 0.2, 4))
    printed = out.getvalue()
    rates = [line.split()[1] for line in printed.splitlines() if line.startswith("Updater:")]
    assert rates == ["5.0", "4.4"], printed
    assert len(sink.samples) == 3  # kept for the summary and --json all the same


def test_a_latency_average_in_seconds_prints_in_ms() -> None:
    lines = summary_table(Summary(rates={"server.commit_latency_s": 0.00235, "updater.tps": 4.87}))
    averages = next(line for line in lines if line.startswith("averages:"))
    assert averages == "averages: server.commit_latency 2.4 ms  updater.tps 4.87"


def test_a_definition_runs_status_block_has_a_line_per_operation_and_no_updater_figures() -> None:
    from pathlib import Path

    from spanload.cli.render import status_block
    from spanload.model.samples import Percentiles
    from spanload.model.workload_file import parse_definition

    shop = parse_definition((Path(__file__).parents[2] / "workloads" / "shop.yaml").read_text())
    config = RunConfig.model_validate({"workload": "definition", "definition": shop.model_dump(mode="json")})
    sample = Sample(
        seq=3,
        t=0,
        elapsed_s=4,
        interval_s=1,
        latency={
            "op.place_order": Percentiles(count=9, p50=2.5, p99=9.0),
            "watcher.notify": Percentiles(count=9, p50=400, p99=900),
        },
        gauges={
            "op.place_order.ps": 9.0,
            "op.place_order.target_ps": 10.0,
            "op.place_order.behind": 2.0,
            "watcher.changes_ps": 9.0,
        },
        errors_by_code={"ABORTED": 1},
    )
    assert status_block(sample, config) == [
        "Test duration:               00:00:04",
        "place_order:       9.0/s (target 10.0)  p50 2.5 ms  p99 9.0 ms  from intended -  behind 2",
        "recent_orders:     0.0/s (target 0.0)  -  from intended -  behind 0",
        "Watcher:     9.0 changes/s  notify p50 400.0 ms  p99 900.0 ms  lag -",
        "Errors this interval:        ABORTED 1",
    ]


def test_a_server_figure_without_a_minute_of_its_own_prints_as_n_a_with_its_reason() -> None:
    unavailable = dict.fromkeys(
        ("server.poll_cpu_fraction", "server.poll_avg_latency_s"), "no complete minute inside the run yet"
    )
    lines = summary_table(Summary(rates={"updater.tps": 4.87}, unavailable=unavailable))
    assert [line for line in lines if line.startswith("n/a")] == [
        "n/a (no complete minute inside the run yet): server.poll_avg_latency_s, server.poll_cpu_fraction"
    ]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_rich_redraws_the_block_in_place_and_news_prints_below_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    out = _Terminal()
    sink = PrintingSink(out)
    sink.config = RunConfig(report_interval_s=1.0)
    sink.on_state("r", RunState.RUNNING, None)
    sink.on_sample("r", _sample(0, 1.0, 5))
    sink.on_sample("r", _sample(1, 1.0, 7))
    sink.on_state("r", RunState.STOPPING, None)
    printed = out.getvalue()
    first, second = printed.index("Updater:     5.0 tx/s"), printed.index("Updater:     7.0 tx/s")
    # between the two blocks Rich moves the cursor up over the first (CSI n A), which it then overwrites
    assert re.search(r"\x1b\[\d*A", printed[first:second]), repr(printed[first:second])
    # each block drawn once, the last once more as the block ends (Rich's final refresh) under its title
    assert (printed.count("Updater:     5.0 tx/s"), printed.count("Updater:     7.0 tx/s")) == (1, 2)
    assert printed.count("╭─ run r: running ─") == 3
    assert printed.rstrip().endswith("run r: stopping")  # the news after the block, below it
    assert "\x1b[3" not in printed and "\x1b[9" not in printed  # NO_COLOR: no colour codes


def test_the_summary_prints_only_the_totals_that_apply() -> None:
    summary = Summary(totals=Totals(transactions=12, mutations=130, received_changes=125, polls=9, errors=1))
    watcher = builtin_definition("change_watcher")
    assert totals_line(summary, watcher) == (
        "transactions 12  mutations 130  received changes 125  polls 9  errors 1  aborts 0"
    )
    unwatched = watcher.model_copy(update={"watch": None})
    assert totals_line(summary, unwatched) == "transactions 12  mutations 130  errors 1  aborts 0"
    reads_only = Summary(totals=Totals(errors=0))
    shop = builtin_definition("shop").model_copy(update={"watch": None})
    reader = shop.model_copy(update={"operations": {"recent_orders": shop.operations["recent_orders"]}})
    assert totals_line(reads_only, reader) == "errors 0  aborts 0"  # no "received changes 0, polls 0"
    legacy = totals_line(Summary(totals=Totals(transactions=3, reads=4)))
    assert legacy == "transactions 3  mutations 0  received changes 0  polls 0  reads 4  errors 0  aborts 0"
