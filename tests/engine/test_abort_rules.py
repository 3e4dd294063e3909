"""Abort rules (``--abort-on``): judged interval by interval, on a fake stream of samples and on
the real engine against the local Spanner."""

from __future__ import annotations

import asyncio

import pytest

from spanload.cli.headless import build_config
from spanload.cli.run_command import parse
from spanload.engine.abort_rules import AbortWatch
from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.errors import RunInvalid
from spanload.model.events import EventKind
from spanload.model.samples import Op, Percentiles, Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_profiles import Sink


def _sample(seq: int, p99: float | None) -> Sample:
    latency = {} if p99 is None else {Op.UPDATER_TXN.value: Percentiles(count=10, p99=p99)}
    return Sample(seq=seq, t=1000.0 + seq, elapsed_s=seq + 1.0, interval_s=1.0, latency=latency)


def test_a_rule_fires_once_its_condition_held_for_its_time_in_intervals_in_a_row() -> None:
    watch = AbortWatch(["updater.p99_ms>500 for 3s"])
    # breached twice, then a good interval, then an interval with nothing measured: both break the streak
    stream = [600, 700, 100, 800, None, 900, 900]
    assert [watch.observe(_sample(i, p)) for i, p in enumerate(stream)] == [None] * 7
    fired = watch.observe(_sample(7, 501))  # the third breached interval in a row
    assert fired is not None
    assert (fired["metric"], fired["value"], fired["for_s"], fired["breached_s"]) == ("updater.txn.p99_ms", 501, 3, 3)
    assert fired["reason"] == "aborted by 'updater.p99_ms>500 for 3s': updater.txn.p99_ms was 501 for 3.0 s"
    assert AbortWatch(["updater.p99_ms>500"]).observe(_sample(0, 501)) is not None  # no 'for': one interval


def test_a_rule_that_cannot_be_read_is_refused_with_the_config() -> None:
    with pytest.raises(ValueError, match=r"abort rule 'nonsense.p99_ms>5 for 3s': threshold name"):
        RunConfig.model_validate({"abort_on": ["nonsense.p99_ms>5 for 3s"]})
    with pytest.raises(ValueError, match=r"abort rule 'updater.p99_ms>5 for soon': after 'for'"):
        RunConfig.model_validate({"abort_on": ["updater.p99_ms>5 for soon"]})
    config = build_config(parse(["--abort-on", "updater.p99_ms>500 for 30s", "--abort-on", "errors_ps>1"]))
    assert config.abort_on == ["updater.p99_ms>500 for 30s", "errors_ps>1"]
    with pytest.raises(RunInvalid, match="abort_on"):
        build_config(parse(["--abort-on", "nonsense"]))


class _OrderedSink(Sink):
    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []

    def on_sample(self, run_id: str, sample: Sample) -> None:
        super().on_sample(run_id, sample)
        self.order.append("p50" if Op.UPDATER_TXN.value in sample.latency else "none")

    def on_event(self, run_id: str, kind: EventKind, changes: dict[str, object]) -> None:
        super().on_event(run_id, kind, changes)
        self.order.append(kind.value)


def test_a_rule_breached_at_once_stops_the_run_after_its_intervals_with_the_reason(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    config = local_spanner.config(
        {
            "updater": {"transactions_per_second": 20, "mutations_per_transaction": 1},
            "watcher": {"enabled": False},
            "abort_on": ["updater.p50_ms>0 for 2s"],  # any commit takes more than 0 ms: breached at once
            "duration_s": 600,
        },
        runtime=runtime,
    )

    async def scenario() -> _OrderedSink:
        sink = _OrderedSink()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("abort", config)
        await asyncio.wait_for(supervisor.wait_finished("abort"), 120)
        return sink

    sink = asyncio.run(scenario())
    state, reason = sink.states[-1]
    assert state is RunState.FAILED and reason is not None
    assert reason.startswith("aborted by 'updater.p50_ms>0 for 2s': updater.txn.p50_ms was "), reason
    # the abort came right after the second interval in a row with a p50 (intervals without one break the streak)
    before = sink.order[: sink.order.index(EventKind.ABORTED.value)]
    assert before[-2:] == ["p50", "p50"], sink.order
    (aborted,) = [c for k, c in sink.events if k is EventKind.ABORTED]
    assert aborted["breached_s"] == 2.0 and aborted["rule"] == "updater.p50_ms>0 for 2s"
    assert sink.summary is not None and sink.summary.stop is not None and sink.summary.stop.graceful
