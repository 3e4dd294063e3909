"""Issue 23: compare tells a difference from noise. The bootstrap over report intervals
(control/noise.py) is checked for calibration on runs drawn from known distributions: two runs of
one distribution are rarely called different, two runs a few standard errors apart nearly always."""

from __future__ import annotations

import random

from spanload.control.compare import metric_deltas
from spanload.model.samples import Gauge, Op, Percentiles, Sample, Summary

INTERVALS = 30
TPS_SD = 3.0  # interval-to-interval spread of achieved tx/s at a 10 tx/s Poisson target
P50_SD = 0.8  # and of an interval's p50 in ms


def _run(rng: random.Random, tps: float, p50: float) -> tuple[Summary, list[Sample]]:
    samples = []
    for seq in range(INTERVALS):
        rate = max(0.0, rng.gauss(tps, TPS_SD))
        latency = {Op.UPDATER_TXN: Percentiles(count=max(1, round(rate)), p50=max(0.1, rng.gauss(p50, P50_SD)))}
        samples.append(
            Sample(
                seq=seq,
                t=seq + 1.0,
                elapsed_s=seq + 1.0,
                interval_s=1.0,
                latency=latency,
                gauges={Gauge.UPDATER_TPS: rate},
            )
        )
    count = sum(s.latency[Op.UPDATER_TXN].count for s in samples)
    mean_p50 = sum(s.latency[Op.UPDATER_TXN].p50 * s.latency[Op.UPDATER_TXN].count for s in samples) / count  # type: ignore[operator]
    summary = Summary(
        duration_s=INTERVALS,
        latency={Op.UPDATER_TXN: Percentiles(count=count, p50=mean_p50)},
        rates={Gauge.UPDATER_TPS: sum(s.gauges[Gauge.UPDATER_TPS] for s in samples) / INTERVALS},
    )
    return summary, samples


def _significant(seed: int, tps: tuple[float, float], p50: tuple[float, float]) -> dict[str, bool | None]:
    rng = random.Random(seed)
    (sa, xa), (sb, xb) = _run(rng, tps[0], p50[0]), _run(rng, tps[1], p50[1])
    wanted = {"rates.updater.tps", "latency.updater.txn.p50"}
    out = {}
    for m in metric_deltas([sa, sb], [xa, xb]):
        if m.metric in wanted:
            assert m.significant[0] is None and m.uncertainty[0] is None  # the baseline is not judged
            assert m.uncertainty[1] is not None and m.uncertainty[1] > 0
            out[m.metric] = m.significant[1]
    assert set(out) == wanted
    return out


def test_two_runs_of_one_config_are_rarely_called_different() -> None:
    trials = [_significant(seed, (10.0, 10.0), (5.0, 5.0)) for seed in range(40)]
    for metric in ("rates.updater.tps", "latency.updater.txn.p50"):
        called = sum(1 for t in trials if t[metric])
        assert called <= 3, (
            f"{metric}: {called} of 40 same-config pairs called significant (99 % intervals: ~0.4 expected)"
        )


def test_a_real_difference_is_called_significant() -> None:
    # 4 tx/s and 1.2 ms apart: about 5.2 and 5.8 standard errors of the difference over 30 intervals
    trials = [_significant(seed, (10.0, 14.0), (5.0, 6.2)) for seed in range(40)]
    for metric in ("rates.updater.tps", "latency.updater.txn.p50"):
        called = sum(1 for t in trials if t[metric])
        assert called >= 36, f"{metric}: only {called} of 40 pairs with a real difference called significant"


def test_too_few_intervals_are_not_judged() -> None:
    rng = random.Random(1)
    (sa, xa), (sb, xb) = _run(rng, 10.0, 5.0), _run(rng, 30.0, 5.0)
    [tps] = [m for m in metric_deltas([sa, sb], [xa[:4], xb[:4]]) if m.metric == "rates.updater.tps"]
    assert tps.significant == [None, None] and tps.uncertainty == [None, None]
    # totals grow with the run's length: never judged against interval noise
    [tx] = [m for m in metric_deltas([sa, sb], [xa, xb]) if m.metric == "totals.transactions"]
    assert tx.significant == [None, None]


def test_server_latencies_are_better_lower_so_a_significant_change_is_coloured() -> None:
    rates = {"server.poll_avg_latency_s": 0.022, "server.commit_latency_s": 0.004, "server.cpu_per_commit_ms": 0.1}
    better = {m.metric: m.better for m in metric_deltas([Summary(rates=rates), Summary(rates=rates)])}
    assert {name: better[f"rates.{name}"] for name in rates} == dict.fromkeys(rates, "lower")


def test_a_difference_skewed_by_a_stalled_interval_is_still_significant() -> None:
    """A run 16x slower whose 20 intervals hold one stalled 4 s p50 (a shared machine's pause): the
    stall makes the replicates' deltas skewed ([~+100, ~+500] ms), half their width exceeds the delta,
    but every replicate has the run slower, so the delta is significant and its uncertainty, the
    interval's reach towards zero, is below it. The same stall in both runs of one config is noise."""

    def run(p50s: list[float]) -> tuple[Summary, list[Sample]]:
        samples = [
            Sample(
                seq=i,
                t=i + 1.0,
                elapsed_s=i + 1.0,
                interval_s=1.0,
                latency={Op.UPDATER_TXN: Percentiles(count=5, p50=v)},
            )
            for i, v in enumerate(p50s)
        ]
        summary = Summary(
            duration_s=len(p50s), latency={Op.UPDATER_TXN: Percentiles(count=5 * len(p50s), p50=sum(p50s) / len(p50s))}
        )
        return summary, samples

    rng = random.Random(7)
    hinted = run([rng.gauss(7.0, 1.0) for _ in range(20)])
    unhinted = run([rng.gauss(115.0, 20.0) for _ in range(19)] + [4000.0])
    [p50] = [
        m
        for m in metric_deltas([hinted[0], unhinted[0]], [hinted[1], unhinted[1]])
        if m.metric == "latency.updater.txn.p50"
    ]
    delta, margin = p50.delta[1], p50.uncertainty[1]
    assert delta is not None and margin is not None
    assert p50.significant[1] is True and 0 < margin < delta, (delta, margin)
    again = run([rng.gauss(115.0, 20.0) for _ in range(19)] + [4000.0])
    [same] = [
        m
        for m in metric_deltas([unhinted[0], again[0]], [unhinted[1], again[1]])
        if m.metric == "latency.updater.txn.p50"
    ]
    assert same.significant[1] is False
