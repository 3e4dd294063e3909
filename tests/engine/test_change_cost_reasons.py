"""Issue 29: a run that watched shows its server CPU per change (server.cpu_per_change_ms, and the
watcher's own server.watch_cpu_per_change_ms) where the target gives it, and n/a with the reason
where it does not, in the summary (the aggregator's, and the one recomputed from stored samples):
the emulator, Cloud Spanner without access to SPANNER_SYS, no changes received, no closed minute.
Never a blank or a 0."""

from __future__ import annotations

import pytest

from spanload.engine.aggregator import Aggregator
from spanload.model.config import TargetKind, WorkerRuntime
from spanload.model.protocol import Counter, Report
from spanload.model.samples import Gauge
from spanload.model.workload_file import validate_data
from tests.engine.conftest import LocalTarget
from tests.engine.test_definition_e2e import create_schema, run
from tests.engine.test_watch_stream_e2e import TABLE

BEGIN = 1_800_000_030.0  # half a minute past a minute boundary
CPU = "server.cpu_per_change_ms"
WATCH_CPU = "server.watch_cpu_per_change_ms"
DENIED = "PERMISSION_DENIED: Caller is missing IAM permission spanner.databases.select on resource db"


def _summary(
    target: TargetKind,
    changes: int,
    seconds: int = 10,
    gauges: dict[str, float] | None = None,
    sys_error: str | None = None,
    watches: bool = True,
) -> tuple[dict[str, float], dict[str, str]]:
    agg = Aggregator(BEGIN, 1.0, workers=1, target=target, watches=watches)
    for seq in range(seconds):
        report = Report(
            worker=0,
            seq=seq,
            t=BEGIN + seq + 1,
            interval_s=1.0,
            counters={Counter.RECEIVED_CHANGES: changes, Counter.POLLS: 2},
            gauges=gauges or {},
            sys_error=sys_error,
        )
        agg.add(report)
    summary = agg.summary()
    return summary.rates, summary.unavailable


def test_the_local_spanner_gives_the_servers_cpu_per_change() -> None:
    """0.05 of a CPU over 1 s intervals with 10 changes each: 5 ms a change."""
    rates, unavailable = _summary(TargetKind.LOCAL, 10, gauges={Gauge.SERVER_CPU_FRACTION: 0.05})
    assert rates[CPU] == pytest.approx(5.0)
    assert CPU not in unavailable
    assert unavailable[WATCH_CPU] == "no complete minute inside the run yet"  # a 10 s run


@pytest.mark.parametrize(
    ("target", "changes", "sys_error", "cpu_why", "watch_why"),
    [
        (
            TargetKind.EMULATOR,
            10,
            None,
            "the emulator counts no server CPU",
            "the emulator has no SPANNER_SYS statistics",
        ),
        (
            TargetKind.CLOUD,
            10,
            DENIED,
            "Cloud Spanner counts no server CPU per interval (the local Spanner's counters do); "
            "see server.watch_cpu_per_change_ms",
            f"SPANNER_SYS could not be read: {DENIED}",
        ),
        (TargetKind.LOCAL, 0, None, "no changes were received", "no changes were received"),
    ],
    ids=["emulator", "cloud without SPANNER_SYS access", "no changes delivered"],
)
def test_a_target_or_run_without_the_figure_says_why(
    target: TargetKind, changes: int, sys_error: str | None, cpu_why: str, watch_why: str
) -> None:
    # only the local Spanner counts its CPU; it does in the no-changes case: 0 changes still give no figure
    gauges = {Gauge.SERVER_CPU_FRACTION: 0.05} if target is TargetKind.LOCAL else {}
    rates, unavailable = _summary(target, changes, gauges=gauges, sys_error=sys_error)
    assert CPU not in rates and WATCH_CPU not in rates
    assert (unavailable[CPU], unavailable[WATCH_CPU]) == (cpu_why, watch_why)


def test_a_whole_minute_the_target_gave_no_figure_of_says_so() -> None:
    """A 100 s run holds a whole minute; the local Spanner's SPANNER_SYS gave none of its poll's CPU."""
    _, unavailable = _summary(TargetKind.LOCAL, 10, seconds=100, gauges={Gauge.SERVER_CPU_FRACTION: 0.05})
    assert unavailable == {WATCH_CPU: "the target's SPANNER_SYS gave no minute of this run"} | {
        g: "the target's SPANNER_SYS gave no minute of this run"
        for g in (Gauge.SERVER_POLL_AVG_LATENCY_S, Gauge.SERVER_POLL_CPU_FRACTION)
    }


def test_a_run_that_does_not_watch_wants_no_cost_per_change() -> None:
    _, unavailable = _summary(TargetKind.EMULATOR, 0, watches=False)
    assert CPU not in unavailable and WATCH_CPU not in unavailable


@pytest.mark.timeout(120)
@pytest.mark.parametrize("runtime", ["python", "go"])
def test_a_run_that_received_no_change_says_so_end_to_end(local_spanner: LocalTarget, runtime: str) -> None:
    """Against the local Spanner, whose counters give the server's CPU: a watch over a table nothing
    writes has no change to divide it by."""
    definition = validate_data(
        {
            "name": "quiet",
            "ddl": [TABLE],
            "operations": {"noop": {"rate": 5, "steps": [{"sql": "SELECT 1"}]}},
            "watch": {"table": "T", "timestamp": "Ts", "poll_interval": "200ms"},
        }
    )
    config = local_spanner.config(
        {"workload": "definition", "definition": definition.model_dump(mode="json"), "duration_s": 2.0},
        runtime=WorkerRuntime(runtime),
    )
    create_schema(local_spanner, config, definition)
    summary, _ = run(config, f"quiet-{runtime}")
    assert summary.totals.received_changes == 0 and summary.totals.polls > 0
    assert (summary.unavailable[CPU], summary.unavailable[WATCH_CPU]) == (
        "no changes were received",
        "no changes were received",
    )
