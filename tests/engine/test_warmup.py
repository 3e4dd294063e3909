"""Issue 24's warm-up: ``warmup_s``'s intervals (model.warmup) are sampled and charted but stay out of
the summary's percentiles, rates and breakdown; the totals count every interval."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from spanload.engine.aggregator import Aggregator
from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.presets import get_preset
from spanload.model.samples import Gauge, Op
from spanload.model.state import RunState
from spanload.model.warmup import is_warmup
from tests.engine.conftest import LocalTarget
from tests.engine.test_aggregator import T0, _report
from tests.engine.test_e2e_local import _run_to_end, _with_target


def test_an_interval_that_starts_inside_the_warmup_is_warmup() -> None:
    assert [is_warmup(seq, 1.0, 2.0) for seq in range(4)] == [True, True, False, False]
    assert [is_warmup(seq, 1.0, 1.5) for seq in range(3)] == [True, True, False]  # seq 1 starts at 1.0 < 1.5
    assert [is_warmup(seq, 0.5, 0.0) for seq in range(2)] == [False, False]


def test_the_summary_leaves_the_warmup_out_of_latency_and_rates_but_counts_it_in_totals() -> None:
    agg = Aggregator(T0, 1.0, workers=1, warmup_s=2.0)
    samples = [
        s
        for seq, (n, us) in enumerate([(5, 90_000), (6, 80_000), (10, 1000), (20, 2000)])
        for s in agg.add(_report(0, seq, n, [us] * n))
    ]
    assert [s.warmup for s in samples] == [True, True, False, False]
    assert [s.latency[Op.UPDATER_TXN].count for s in samples] == [5, 6, 10, 20]  # charted all the same
    summary = agg.summary()
    assert summary.latency[Op.UPDATER_TXN].count == 30  # 10 + 20, not the 11 cold ones
    assert summary.latency[Op.UPDATER_TXN].max == pytest.approx(2.0, rel=1e-3)  # ms: the 90 ms are gone
    assert summary.rates[Gauge.UPDATER_TPS] == pytest.approx(15.0)  # 30 transactions over the 2 s after
    assert summary.totals.transactions == 41  # every transaction
    assert summary.duration_s == pytest.approx(4.0) and summary.warmup_s == pytest.approx(2.0)


def test_a_warmup_as_long_as_the_run_is_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError, match="warmup_s"):
        RunConfig.model_validate({"duration_s": 5, "warmup_s": 5})
    with pytest.raises(ValidationError, match="warmup_s"):
        RunConfig.model_validate({"warmup_s": -1})


@pytest.mark.timeout(180)
def test_a_runs_summary_counts_exactly_the_intervals_after_its_warmup(local_spanner: LocalTarget) -> None:
    config = _with_target(get_preset("light").config, local_spanner, WorkerRuntime.PYTHON).model_copy(
        update={"duration_s": 5.0, "warmup_s": 2.0}
    )
    sink = asyncio.run(_run_to_end(config, "warmup"))
    assert sink.states[-1] == (RunState.FINISHED, None)
    summary = sink.summary
    assert summary is not None
    warm = [s for s in sink.samples if s.warmup]
    after = [s for s in sink.samples if not s.warmup]
    assert [s.seq for s in warm] == [0, 1] and after
    for op in (Op.UPDATER_TXN, Op.WATCHER_POLL):
        expected = sum(s.latency[op].count for s in after if op in s.latency)
        assert summary.latency[op].count == expected > 0
        assert sum(s.latency[op].count for s in warm if op in s.latency) > 0  # the warm-up did run them
    assert summary.totals.transactions == sink.samples[-1].totals.transactions
