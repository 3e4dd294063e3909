"""The capacity search's logic against synthetic sample streams whose knee is known exactly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from spanload.cli.headless import build_config
from spanload.cli.render import capacity_table
from spanload.cli.run_command import parse
from spanload.engine.capacity import CapacitySearch, InFlightCap, Names, in_flight_cap
from spanload.model import metrics
from spanload.model.capacity import CapacityConfig, CapacityResult, Limit
from spanload.model.config import RunConfig
from spanload.model.errors import RunInvalid
from spanload.model.presets import get_preset
from spanload.model.samples import Gauge, Op, Sample

NAMES = Names.of(RunConfig())
KNEE = 300.0


def _histogram(latency_ms: float) -> str:
    histogram = metrics.new_histogram()
    for i in range(100):
        histogram.record_value(int(latency_ms * 1000 * (0.9 + 0.002 * i)))  # the same spread each interval
    return metrics.encode(histogram)


def _sample(
    seq: int, target: float, achieved: float, latency_ms: float, behind: float = 0.0, service_ms: float | None = None
) -> Sample:
    """An interval: ``latency_ms`` from the intended start, ``service_ms`` (default the same) from the actual."""
    return Sample(
        seq=seq,
        t=seq + 1.0,
        elapsed_s=seq + 1.0,
        interval_s=1.0,
        gauges={Gauge.UPDATER_TARGET_TPS: target, Gauge.UPDATER_TPS: achieved, Gauge.UPDATER_BEHIND: behind},
        hdr={
            Op.UPDATER_TXN_INTENDED: _histogram(latency_ms),
            Op.UPDATER_TXN: _histogram(latency_ms if service_ms is None else service_ms),
        },
    )


Target = Callable[[float, int], tuple[float, float, float]]  # (rate, interval of the step) -> achieved, ms, behind


def _search(
    target: Target,
    cpu: Callable[[int], list[float] | None] = lambda _: None,
    machine_cores: int | None = None,
    server_cpu: float | None = None,
    machine: Callable[[int], float | None] = lambda _: None,
    **overrides: object,
) -> tuple[CapacityResult, list[int]]:
    config = CapacityConfig.model_validate(
        {"start_rate": 100, "step": 100, "max_rate": 1000, "min_step_s": 3, "max_step_s": 10, "latency_ms": 20}
        | overrides
    )
    search = CapacitySearch(config, NAMES, machine_cores)
    intervals: list[int] = []  # intervals each step took, the one the change landed in included
    rate, in_step = search.rate, 0
    for seq in range(1000):
        if search.result is not None:
            break
        achieved, latency, behind = target(rate, in_step)
        in_step += 1
        sample = _sample(seq, rate, achieved, latency, behind)
        if server_cpu is not None:
            sample.gauges[Gauge.SERVER_CPU_FRACTION] = server_cpu
        following = search.observe(sample, cpu(seq), machine(seq))
        if following is not None or search.result is not None:
            intervals.append(in_step)
            rate, in_step = following or rate, 0
    assert search.result is not None
    return search.result, intervals


def _database(rate: float, _: int) -> tuple[float, float, float]:
    """Keeps up at every rate; commits take 5 ms up to the knee, 80 ms past it."""
    return rate, 5.0 if rate <= KNEE else 80.0, 0.0


def test_the_knee_is_the_last_step_that_held_and_the_next_step_says_what_broke() -> None:
    result, intervals = _search(_database)
    assert (result.knee, result.limited_by) == (KNEE, Limit.DATABASE)
    assert [s.rate for s in result.steps] == [100, 200, 300, 400]
    assert [s.held for s in result.steps] == [True, True, True, False]
    assert result.broke_by == result.steps[-1].broke_by == ["p99 87.7 ms is above 20 ms"]
    assert intervals == [4, 4, 4, 4]  # stable at once: the landing interval, then min_step_s of intervals
    first = result.steps[0]
    assert (first.achieved, first.seconds, first.stable, first.errors_pct) == (100, 3, True, 0)
    assert first.p50 is not None and 4.9 < first.p50 < 5.1


def test_a_step_holds_until_its_percentile_settles_or_max_step_s() -> None:
    def settling(rate: float, in_step: int) -> tuple[float, float, float]:  # 40, 30, 20, 10 ms, then 10 ms
        return rate, max(40.0 - 10 * (in_step - 1), 10.0) if rate <= KNEE else 80.0, 0.0

    result, intervals = _search(settling, latency_ms=50)
    assert result.knee == KNEE and all(s.stable for s in result.steps)
    assert intervals[0] > 4  # held past min_step_s until its latest intervals matched the ones before
    assert result.steps[0].seconds == intervals[0] - 1

    def restless(rate: float, in_step: int) -> tuple[float, float, float]:  # never settles
        return rate, 5.0 if in_step % 2 else 40.0 * (in_step + 1), 0.0

    result, intervals = _search(restless, latency_ms=10_000, max_rate=200)
    assert [s.stable for s in result.steps] == [False, False] and intervals == [11, 11]  # judged at max_step_s
    assert (result.knee, result.limited_by, result.note) == (200, Limit.MAX_RATE, "nothing broke up to max_rate 200/s")


def test_a_client_that_cannot_produce_the_load_is_named_instead_of_the_database() -> None:
    def short(rate: float, _: int) -> tuple[float, float, float]:
        achieved = min(rate, 250.0)
        return achieved, 5.0, rate - achieved  # arrivals pile up behind the schedule

    # the workers idle: the shortfall is the database's, whatever is behind
    result, _ = _search(short, cpu=lambda seq: [0.1 * seq, 0.1 * seq])
    assert (result.knee, result.limited_by) == (200, Limit.DATABASE)
    assert result.broke_by == ["achieved 250.0/s is below 90 % of 300/s"]
    assert result.note == "the database broke at 300/s, up to 50 arrivals behind the schedule"
    last = result.steps[-1]
    assert last.client_cpu == pytest.approx(0.1) and last.client_cpu_total == pytest.approx(0.2)
    # the busiest worker at a core: the client's
    result, _ = _search(short, cpu=lambda seq: [0.95 * seq, 0.1 * seq])
    assert (result.knee, result.limited_by) == (200, Limit.CLIENT)
    assert result.note.startswith("the workers could not produce 300/s (the busiest worker used 95% of a core")
    assert "the limit is the client, not the database" in result.note
    # the workers and a local Spanner sharing 2 cores used them up: the machine's
    result, _ = _search(short, cpu=lambda seq: [0.5 * seq, 0.5 * seq], machine_cores=2, server_cpu=0.9)
    assert result.limited_by is Limit.MACHINE and "1.90 of this machine's 2 cores in use" in result.note
    # the workers and the local Spanner idle, but other processes kept the machine busy: the machine's
    result, _ = _search(
        short, cpu=lambda seq: [0.1 * seq, 0.1 * seq], machine_cores=2, server_cpu=0.3, machine=lambda seq: 1.9 * seq
    )
    assert result.limited_by is Limit.MACHINE, result.note
    assert "the local Spanner (0.30), other processes 1.40: 1.90 of this machine's 2 cores in use" in result.note
    assert result.steps[-1].machine_cpu == pytest.approx(1.9)


def test_intervals_still_at_the_previous_rate_are_not_counted() -> None:
    config = CapacityConfig(start_rate=100, step=100, max_rate=1000, min_step_s=2, latency_ms=20)
    search = CapacitySearch(config, NAMES)
    stream = [_sample(0, 1.0, 1.0, 99.0), _sample(1, 1.0, 1.0, 99.0)]  # before the first patch landed
    stream += [_sample(2 + i, 100.0, 100.0, 5.0) for i in range(3)]
    assert [search.observe(s) for s in stream] == [None, None, None, None, 200.0]
    result: CapacityResult = search.final()
    assert result.limited_by is Limit.STOPPED and result.knee == 100


def test_more_conditions_break_a_step_on_another_histogram_or_a_gauge_mean() -> None:
    result, _ = _search(_database, latency_ms=None, also=["updater_intended.p50_ms>50"])
    assert result.knee == KNEE
    assert result.broke_by == ["updater.txn_intended.p50_ms 79.871 (updater_intended.p50_ms>50)"]

    def behind(rate: float, _: int) -> tuple[float, float, float]:
        return rate, 5.0, 0.0 if rate <= KNEE else 20.0

    result, _ = _search(behind, also=["updater.behind>10"])
    assert result.knee == KNEE and result.broke_by == ["updater.behind 20 (updater.behind>10)"]
    with pytest.raises(ValueError, match=r"threshold name 'nothing\.p99_ms'"):
        CapacityConfig(start_rate=1, step=1, max_rate=2, also=["nothing.p99_ms>1"])


def test_the_cli_takes_a_search_and_prints_its_step_table(tmp_path: Path) -> None:
    path = tmp_path / "capacity.yaml"
    path.write_text("start_rate: 5\nstep: 5\nmax_rate: 50\nlatency_ms: 20\nmin_step_s: 2\n")
    config = build_config(parse(["--capacity-file", str(path), "--capacity", "100:100:1000"]))
    assert config.capacity is not None
    assert (config.capacity.start_rate, config.capacity.max_rate, config.capacity.min_step_s) == (100, 1000, 2)
    with pytest.raises(RunInvalid, match="is not START:STEP:MAX"):
        build_config(parse(["--capacity", "100:100"]))
    result, _ = _search(_database)
    table = capacity_table(result)
    assert table[1:4] == [
        "capacity: knee 300/s, limited by database",
        "  the next step broke: p99 87.7 ms is above 20 ms",
        "  the database broke at 400/s",
    ]
    assert table[-1].split() == ["400", "400.0", "79.9", "ms", "87.1", "ms", "87.7", "ms", "0.00%", "-", "-", "broke"]
    assert len(table) == 6 + len(result.steps)


def test_the_in_flight_cap_of_a_definitions_operation_reads_its_knob() -> None:
    """The write benchmark's write runs at most $parallelism in flight: the search names that knob
    when the client is the limit (before, a knob reference left the client's limit unknown)."""
    config = get_preset("capacity-write-benchmark").config  # parallelism 64 over 2 processes
    assert in_flight_cap(config) == InFlightCap(64, "knobs.parallelism")
    overridden = config.merged({"operations": {"write": {"max_in_flight": 5}}})
    assert in_flight_cap(overridden) == InFlightCap(5, "operations.write.max_in_flight")  # 3 + 2 over the processes
