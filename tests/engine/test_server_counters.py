"""Issue 14: the local Spanner's running totals turned into per-interval server gauges, the
latency model's config (local targets only) and the ``2pc-participants`` preset."""

from __future__ import annotations

import pytest

from spanload.model.config import LatencyModel, RunConfig, SchemaKind, UpdaterMode
from spanload.model.errors import RunInvalid
from spanload.model.presets import TWO_PC_DATABASE, TWO_PC_PARTICIPANTS, get_preset, make_config
from spanload.model.samples import Gauge
from spanload.spanner.stats import Counters, counter_gauges


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
        ({"runtime": "go", "target": {"latency_model": "production_like"}}, "", "runtime 'python'"),
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
    assert config.schema_ is SchemaKind.USERTABLE
    assert (config.target.database, config.target.latency_model) == (TWO_PC_DATABASE, LatencyModel.PRODUCTION_LIKE)
    u = config.updater
    assert (u.mode, u.batch_rows, u.transactions_per_second, u.parallelism) == (UpdaterMode.BATCH_INSERT, 6, 42.0, 1)
    assert config.client.session_pool_size == 1 and not config.watcher.enabled
    # the model can be turned off for the same lab
    off = make_config(TWO_PC_PARTICIPANTS, {"target": {"latency_model": "none"}})
    assert off.target.latency_model is LatencyModel.NONE and off.target.database == TWO_PC_DATABASE
