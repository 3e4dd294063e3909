"""What `spanload run` prints: the stop's short last interval gets no status block (its per-second
rates are noise), and a latency average in seconds prints in ms like every other latency."""

from __future__ import annotations

import io

from spanload.cli.render import PrintingSink, summary_table
from spanload.model.config import RunConfig
from spanload.model.samples import Gauge, Sample, Summary
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


def test_a_server_figure_without_a_minute_of_its_own_prints_as_n_a_with_its_reason() -> None:
    unavailable = dict.fromkeys(
        ("server.poll_cpu_fraction", "server.poll_avg_latency_s"), "no complete minute inside the run yet"
    )
    lines = summary_table(Summary(rates={"updater.tps": 4.87}, unavailable=unavailable))
    assert [line for line in lines if line.startswith("n/a")] == [
        "n/a (no complete minute inside the run yet): server.poll_avg_latency_s, server.poll_cpu_fraction"
    ]
