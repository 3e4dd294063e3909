"""Issue 14: the local Spanner's running totals turned into per-interval server gauges, the
latency model's config (local targets only) and the ``2pc-participants`` preset."""

from __future__ import annotations

import asyncio
import time

import pytest

from spanload.model.config import LatencyModel, RunConfig, WorkerRuntime
from spanload.model.errors import RunInvalid
from spanload.model.presets import TWO_PC_DATABASE, TWO_PC_PARTICIPANTS, get_preset, make_config
from spanload.model.samples import Gauge
from spanload.model.state import RunState
from spanload.spanner import client as spanner_client
from spanload.spanner.stats import COUNTERS_SQL, Counters, counter_gauges
from tests.engine.conftest import LocalTarget
from tests.engine.counters_recording_proxy import CountersRecordingProxy
from tests.engine.test_e2e_local import _run_to_end

COMMIT_ROUND_S = 0.003  # the production_like model's commit round (localspanner txn.CommitRound)
CPU_PER_PARTICIPANT_S = 0.001  # and the CPU it charges per participant (txn.CPUPerParticipant)


def _read_counters(config: RunConfig) -> tuple[int, int, float, float, float, int]:
    """SPANLOAD_COUNTERS of the run's database, read directly: commits, participants, commit
    seconds, model CPU seconds, process CPU seconds, splits."""
    client = spanner_client.make_client(config.target, None)
    try:
        database = client.instance(config.target.instance).database(config.target.database)
        with database.snapshot() as snapshot:
            c, p, s, m, cpu, splits = next(iter(snapshot.execute_sql(COUNTERS_SQL)))
        return int(c), int(p), float(s), float(m), float(cpu), int(splits)
    finally:
        client.close()


def _counters(at: float, commits: int, participants: int, commit_s: float, model: float, process: float) -> Counters:
    return Counters(at, commits, participants, commit_s, model, process, splits=4)


def test_counter_gauges_are_the_interval_differences() -> None:
    prev = _counters(10.0, 100, 150, 0.5, 0.15, 2.0)
    cur = _counters(12.0, 140, 230, 0.74, 0.23, 2.1)
    assert counter_gauges(prev, cur) == pytest.approx(
        {
            Gauge.SERVER_SPLITS: 4.0,
            Gauge.SERVER_COMMIT_PARTICIPANTS: 2.0,  # 80 participants over 40 commits
            Gauge.SERVER_COMMIT_LATENCY_S: 0.006,  # 0.24 s over 40 commits
            Gauge.SERVER_CPU_FRACTION: 0.09,  # (0.1 process + 0.08 model) CPU s over 2 s
            Gauge.SERVER_CPU_PER_COMMIT_MS: 4.5,  # 0.18 CPU s over 40 commits
        }
    )


def test_counter_gauges_without_commits_restart_or_first_read() -> None:
    prev = _counters(10.0, 100, 150, 0.5, 0.15, 2.0)
    idle = _counters(11.0, 100, 150, 0.5, 0.15, 2.05)
    assert counter_gauges(prev, idle) == pytest.approx({Gauge.SERVER_SPLITS: 4.0, Gauge.SERVER_CPU_FRACTION: 0.05})
    restarted = _counters(11.0, 3, 3, 0.01, 0.0, 0.2)
    assert counter_gauges(prev, restarted) == {Gauge.SERVER_SPLITS: 4.0}
    assert counter_gauges(None, prev) == {Gauge.SERVER_SPLITS: 4.0}


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"target": {"kind": "cloud", "latency_model": "production_like"}}, "target", "needs target.kind 'local'"),
        ({"target": {"latency_model": "fast"}}, "target.latency_model", "none"),
        ({"schema": "usertable"}, "", "has no index to force"),
    ],
)
def test_bad_latency_model_and_usertable_configs_name_the_field(
    body: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(RunInvalid) as err:
        RunConfig().merged(body)
    assert words in str(err.value)
    assert (err.value.field or "").startswith(field)


def test_the_2pc_participants_preset_is_the_reports_lab() -> None:
    config = get_preset(TWO_PC_PARTICIPANTS).config
    assert config.definition is not None and config.definition.name == "participants"
    assert config.definition.watch is None and "UserTable" in config.definition.ddl[0]
    assert (config.target.database, config.target.latency_model) == (TWO_PC_DATABASE, LatencyModel.PRODUCTION_LIKE)
    knobs = config.knob_values()
    assert (knobs["batch_rows"], knobs["commits_per_second"], knobs["in_flight"]) == (6, 42.0, 1)
    assert config.client.session_pool_size == 1
    # the model can be turned off for the same lab
    off = make_config(TWO_PC_PARTICIPANTS, {"target": {"latency_model": "none"}})
    assert off.target.latency_model is LatencyModel.NONE and off.target.database == TWO_PC_DATABASE


PER_COMMIT = (Gauge.SERVER_COMMIT_PARTICIPANTS, Gauge.SERVER_COMMIT_LATENCY_S, Gauge.SERVER_CPU_PER_COMMIT_MS)
COUNTER_GAUGES = {*PER_COMMIT, Gauge.SERVER_CPU_FRACTION, Gauge.SERVER_SPLITS}


def _server_gauges(config: RunConfig, run_id: str) -> tuple[list[dict[str, float]], int]:
    """The SPANLOAD_COUNTERS gauges of each sample of a run to its end, and the transactions the
    run committed (each is one commit of the server: there are no errors)."""
    sink = asyncio.run(_run_to_end(config, run_id))
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None and sink.summary.totals.errors == 0
    gauges = [{k: v for k, v in s.gauges.items() if k in COUNTER_GAUGES} for s in sink.samples]
    return gauges, sink.summary.totals.transactions


def _interval_matches(
    gauges: dict[str, float], prev: Counters | None, cur: Counters, interval_s: float, run_s: float
) -> bool:
    """Are ``gauges`` those of the interval between the reads ``prev`` and ``cur`` of the server's
    running totals? Per commit: the differences over the commits between them, exactly. The CPU
    fraction divides the CPU between them by the reader's own clock, which this test cannot read:
    that clock's interval is at least ``interval_s`` (the reader waits that long after a read
    before the next) and at most ``run_s`` (the whole run), so the fraction lies between."""
    exact = {Gauge.SERVER_SPLITS: float(cur.splits)}
    if prev is None:
        return gauges == exact
    commits = cur.commits - prev.commits
    cpu = (cur.process_cpu_s - prev.process_cpu_s) + (cur.model_cpu_s - prev.model_cpu_s)
    if commits:
        exact[Gauge.SERVER_COMMIT_PARTICIPANTS] = (cur.participants - prev.participants) / commits
        exact[Gauge.SERVER_COMMIT_LATENCY_S] = (cur.commit_s - prev.commit_s) / commits
        exact[Gauge.SERVER_CPU_PER_COMMIT_MS] = cpu / commits * 1000
    fraction = gauges.pop(Gauge.SERVER_CPU_FRACTION, None)
    return (
        fraction is not None
        and cpu / run_s * (1 - 1e-9) <= fraction <= cpu / interval_s * (1 + 1e-6)
        and gauges == pytest.approx(exact, rel=1e-9, abs=0)
    )


def assert_intervals_of(
    gauges: list[dict[str, float]], readings: list[Counters], interval_s: float, run_s: float
) -> None:
    """Each sample's counter gauges are those of two consecutive reads of the server's running
    totals, in the order of the reads (a sample repeats the last read when no new one came in its
    interval; samples before the first read have none)."""
    pairs = list(zip([None, *readings], readings, strict=False))
    assert readings, "the worker never read SPANLOAD_COUNTERS"
    first = next(i for i, g in enumerate(gauges) if g)
    assert all(gauges[first:]), gauges  # none is missing after the first read
    at = 0
    for sample in gauges[first:]:
        while at < len(pairs) and not _interval_matches(dict(sample), *pairs[at], interval_s, run_s):
            at += 1
        assert at < len(pairs), (sample, gauges, readings)


@pytest.mark.timeout(120)
def test_worker_0_reports_the_servers_counters_per_interval(local_spanner: LocalTarget, runtime: WorkerRuntime) -> None:
    """Both runtimes: every interval after the first read has the five gauges, and each is what the
    server's own totals, as the worker read them (recorded on the wire), make of that interval."""
    with CountersRecordingProxy(local_spanner.address) as proxy:
        config = LocalTarget(proxy.address).config(
            {"duration_s": 4.0, "updater": {"transactions_per_second": 40, "mutations_per_transaction": 2}},
            runtime=runtime,
        )
        began = time.monotonic()
        gauges, transactions = _server_gauges(config, f"counters-{runtime.value}")
        run_s = time.monotonic() - began
        readings = list(proxy.readings)
        commits, participants, _, _, _, splits = _read_counters(config)
    # counts, not a throughput floor: the server counted each of the run's commits, of 2 participants
    assert (commits, participants) == (transactions, 2 * transactions), (commits, participants, transactions)
    measured = [g for g in gauges if Gauge.SERVER_COMMIT_PARTICIPANTS in g]
    assert len(measured) >= 2, gauges
    assert [g[Gauge.SERVER_COMMIT_PARTICIPANTS] for g in measured] == [2.0] * len(measured)
    assert {g[Gauge.SERVER_SPLITS] for g in gauges if g} == {float(splits)} == {2.0}
    # each interval's commit latency, CPU per commit and CPU fraction: differences of the totals
    assert_intervals_of(gauges, readings, config.report_interval_s, run_s)


@pytest.mark.timeout(120)
def test_intervals_without_commits_have_no_per_commit_gauges(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """Reads only: the server's CPU and splits are reported, the per-commit gauges are missing, not 0."""
    with CountersRecordingProxy(local_spanner.address) as proxy:
        config = LocalTarget(proxy.address).config(
            {"duration_s": 3.0, "updater": {"enabled": False}, "reader": {"enabled": True, "reads_per_second": 40}},
            runtime=runtime,
        )
        began = time.monotonic()
        gauges, _ = _server_gauges(config, f"no-commits-{runtime.value}")
        run_s = time.monotonic() - began
        readings = list(proxy.readings)
        commits, *_, splits = _read_counters(config)
    assert commits == 0
    read = [g for g in gauges if Gauge.SERVER_CPU_FRACTION in g]
    assert len(read) >= 1, gauges
    assert not [g for g in gauges if set(PER_COMMIT) & g.keys()], gauges
    # each interval's CPU fraction: the server's CPU between two of the worker's reads, over its clock
    assert_intervals_of(gauges, readings, config.report_interval_s, run_s)
    assert {g[Gauge.SERVER_SPLITS] for g in read} == {float(splits)}


@pytest.mark.timeout(120)
def test_a_run_sets_its_latency_model_and_the_next_run_resets_it(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    """Both runtimes set ``target.latency_model`` on the local Spanner's database at start: with
    production_like the server charges 1 ms of CPU per participant and a 2-participant commit takes
    two 3 ms rounds; the next run (model none) on the same database resets it, charging nothing."""
    config = local_spanner.config(
        {"duration_s": 3.0, "updater": {"transactions_per_second": 30}, "watcher": {"enabled": False}},
        runtime=runtime,
    )
    modelled = config.model_copy(
        update={"target": config.target.model_copy(update={"latency_model": LatencyModel.PRODUCTION_LIKE})}
    )
    gauges, transactions = _server_gauges(modelled, f"model-{runtime.value}")
    commits, participants, _, model_cpu_s, _, _ = _read_counters(config)
    assert (commits, participants) == (transactions, 2 * transactions), (commits, participants, transactions)
    assert model_cpu_s == pytest.approx(participants * CPU_PER_PARTICIPANT_S)
    measured = [g for g in gauges if Gauge.SERVER_COMMIT_PARTICIPANTS in g]
    assert measured, gauges
    for g in measured:  # the model's floors, not timings: two rounds, and 2 ms of CPU charged per commit
        assert g[Gauge.SERVER_COMMIT_LATENCY_S] >= 2 * COMMIT_ROUND_S, g
        assert g[Gauge.SERVER_CPU_PER_COMMIT_MS] >= 2 * CPU_PER_PARTICIPANT_S * 1000, g

    _, more_transactions = _server_gauges(config, f"no-model-{runtime.value}")
    more_commits, _, _, model_cpu_after_s, _, _ = _read_counters(config)
    assert more_commits == commits + more_transactions > commits, (more_commits, commits, more_transactions)
    assert model_cpu_after_s == model_cpu_s
