"""Issue 14's Proof, participants half: the ``2pc-participants`` preset against the local Spanner with
small splits and the production_like latency model, for about a minute. As the empty table grows its
splits divide, a commit of 6 rows spread over the key space touches more of them, and the report's
findings show in the run's own samples: participants rise from 1 to 2 and more, a commit with two or
more participants takes two commit rounds at the server and at the client, and the server charges
CPU per participant.

What a slow interval cannot break is asserted: the run lasts until enough intervals of each kind were
measured (at most MAX_RUN_S), and latency and CPU are held to the model's floors (a round of
COMMIT_ROUND_MS, CPU_PER_PARTICIPANT_MS a participant), which a loaded machine only adds to. How much
2PC costs on top, measured, is printed."""

from __future__ import annotations

import asyncio
import statistics

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.op_metrics import OpHistogram, name
from spanload.model.presets import TWO_PC_PARTICIPANTS, make_config
from spanload.model.samples import Gauge, Sample
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas
from tests.engine.conftest import LocalTarget, set_split_rows
from tests.engine.test_preload import PreloadRecorder
from tests.engine.test_supervisor import Recorder

pytestmark = pytest.mark.timeout(300)
MAX_RUN_S = 150.0
ENOUGH = 4  # measured intervals of each kind (one participant, two or more) before the run is stopped
# 42 commits/s x 6 rows: the table's one split divides after ~10 s, then every ~10 s each split does
SPLIT_ROWS = 2500
ONE = 1.0
MANY = 2.0  # two or more participants: 2PC
COMMIT_ROUND_MS = 3.0  # the model's commit round (localspanner/txn/latency.go)
COMMIT = name(OpHistogram.LATENCY, "batch_insert")  # the definition's one operation: a commit of 6 rows
CPU_PER_PARTICIPANT_MS = 1.0  # and the CPU it charges a participant


def _prepare(config: RunConfig, split_rows: int = SPLIT_ROWS) -> None:
    """The run's database, created empty beforehand so that its small split threshold is set first."""
    client = spanner_client.make_client(config.target, None)
    try:
        assert config.definition is not None  # the preset runs workloads/participants.yaml
        schemas.ensure_ddl(client, config.target, config.definition.ddl, config.definition.name)
    finally:
        client.close()
    set_split_rows(config, split_rows)


def _kinds(samples: list[Sample]) -> tuple[list[Sample], list[Sample]]:
    """The measured intervals with one participant, and those with two or more."""
    measured = [s for s in samples if Gauge.SERVER_COMMIT_PARTICIPANTS in s.gauges and COMMIT in s.latency]
    one = [s for s in measured if s.gauges[Gauge.SERVER_COMMIT_PARTICIPANTS] == ONE]
    many = [s for s in measured if s.gauges[Gauge.SERVER_COMMIT_PARTICIPANTS] >= MANY]
    return one, many


async def _run(config: RunConfig, run_id: str = "two-pc", enough: int | None = ENOUGH) -> Recorder:
    """Run until ``enough`` intervals of each kind were measured (None: to its end), or config.duration_s."""
    sink = PreloadRecorder()
    supervisor = Supervisor(Settings(), sink)
    await supervisor.start(run_id, config)
    while supervisor.state(run_id).is_active:
        one, many = _kinds(sink.samples)
        if enough is not None and len(one) >= enough and len(many) >= enough:
            await supervisor.stop(run_id)
        await asyncio.sleep(0.5)
    await asyncio.wait_for(supervisor.wait_finished(run_id), 120)
    return sink


def _mean(samples: list[Sample], value: object) -> float:
    return statistics.fmean(value(s) for s in samples)  # type: ignore[operator]


def _median(samples: list[Sample], value: object) -> float:
    """The median interval: a machine shared with other work stalls some intervals' commits."""
    return statistics.median(value(s) for s in samples)  # type: ignore[operator]


def _preset_on(local_spanner: LocalTarget, overrides: dict[str, object]) -> RunConfig:
    """The preset on the test's local Spanner (a database of its own), with ``overrides`` (as the
    command line's flags give them)."""
    target = local_spanner.config().target.model_dump(include={"emulator_host", "database"})
    return make_config(TWO_PC_PARTICIPANTS, {"target": target, **overrides})


def test_participants_rise_and_cost_a_commit_round_and_cpu(local_spanner: LocalTarget) -> None:
    config = _preset_on(local_spanner, {"duration_s": MAX_RUN_S})
    _prepare(config)
    sink = asyncio.run(_run(config))
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None and sink.summary.totals.errors == 0

    measured = [s for s in sink.samples if Gauge.SERVER_COMMIT_PARTICIPANTS in s.gauges and COMMIT in s.latency]
    participants = [s.gauges[Gauge.SERVER_COMMIT_PARTICIPANTS] for s in measured]
    one, many = _kinds(sink.samples)
    figures = {
        "participants": [round(p, 2) for p in participants],
        "splits": [s.gauges.get(Gauge.SERVER_SPLITS) for s in sink.samples],
    }
    assert len(one) >= ENOUGH and len(many) >= ENOUGH, figures
    assert participants[0] == ONE and max(participants) >= MANY, figures

    server_one = _median(one, lambda s: s.gauges[Gauge.SERVER_COMMIT_LATENCY_S])
    server_many = _median(many, lambda s: s.gauges[Gauge.SERVER_COMMIT_LATENCY_S])
    client_one = _median(one, lambda s: s.latency[COMMIT].p50)
    client_many = _median(many, lambda s: s.latency[COMMIT].p50)
    cpu_one = _mean(one, lambda s: s.gauges[Gauge.SERVER_CPU_PER_COMMIT_MS])
    cpu_many = _mean(many, lambda s: s.gauges[Gauge.SERVER_CPU_PER_COMMIT_MS])
    most = [s for s in many if s.gauges[Gauge.SERVER_COMMIT_PARTICIPANTS] >= max(participants) - 1]
    cpu_most = _mean(most, lambda s: s.gauges[Gauge.SERVER_CPU_PER_COMMIT_MS])
    figures |= {
        "server_ms": (server_one * 1000, server_many * 1000),
        "client_p50_ms": (client_one, client_many),
        "cpu_ms_per_commit": (cpu_one, cpu_many, cpu_most),
    }
    print(figures)
    # Commit latency as Spanner reports it (TXN_STATS' AVG_COMMIT_LATENCY_SECONDS: the server's own
    # timing); the client adds its own costs to both, so there the second round shows as a difference.
    # The model's floors, interval by interval (a machine too busy to run the load on time adds to
    # each, never takes): a commit takes one round with one participant and two with more, and costs
    # CPU_PER_PARTICIPANT_MS a participant. A commit touches at most every split the table has by the
    # run's end (S), so an interval averaging p participants had at least (p - 1) / (S - 1) of its
    # commits in two rounds.
    most_splits = max(s.gauges.get(Gauge.SERVER_SPLITS, 1.0) for s in sink.samples)
    for sample in one + many:
        p = sample.gauges[Gauge.SERVER_COMMIT_PARTICIPANTS]
        two_rounds = min(1.0, (p - 1) / (most_splits - 1)) if most_splits > 1 else 0.0
        server_floor_ms = COMMIT_ROUND_MS * (1 + two_rounds)
        assert sample.gauges[Gauge.SERVER_COMMIT_LATENCY_S] * 1000 >= server_floor_ms - 1e-6, (sample.seq, figures)
        assert sample.latency[COMMIT].p50 >= COMMIT_ROUND_MS, (sample.seq, figures)
        assert sample.gauges[Gauge.SERVER_CPU_PER_COMMIT_MS] >= p * CPU_PER_PARTICIPANT_MS - 1e-6, (sample.seq, figures)


PRELOAD_ROWS = 3000
PRELOAD_SPLIT_ROWS = 500  # the loaded table: about 6 splits before the first commit


def test_a_preloaded_table_shows_several_participants_from_the_first_interval(local_spanner: LocalTarget) -> None:
    """Issue 22: with ``--preload-rows``, the load draws its keys over the range the inserts' fresh
    keys spread over (workloads/participants.yaml), so the loaded splits cover the key range the
    inserts land in and a commit of 6 rows has several participants from its first interval. (The
    hand-written preload wrote keys [0, N) and the inserts landed beyond them: 1.00 over 6 splits.)"""
    config = _preset_on(local_spanner, {"duration_s": 3.0, "preload": {"rows": PRELOAD_ROWS}})
    assert config.knobs["preload_rows"] == PRELOAD_ROWS  # the flag's field, mapped to the definition's knob
    _prepare(config, PRELOAD_SPLIT_ROWS)
    sink = asyncio.run(_run(config, "two-pc-preloaded", enough=None))
    assert sink.states[-1] == (RunState.FINISHED, None)
    measured = [s for s in sink.samples if Gauge.SERVER_COMMIT_PARTICIPANTS in s.gauges and COMMIT in s.latency]
    figures = {
        "participants": [s.gauges[Gauge.SERVER_COMMIT_PARTICIPANTS] for s in measured],
        "splits": [s.gauges.get(Gauge.SERVER_SPLITS) for s in sink.samples],
    }
    assert measured, figures
    assert measured[0].gauges[Gauge.SERVER_SPLITS] >= 4, figures
    print(figures)
    assert measured[0].gauges[Gauge.SERVER_COMMIT_PARTICIPANTS] >= MANY, figures
