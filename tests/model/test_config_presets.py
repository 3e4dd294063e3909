"""Run config validation, presets and thresholds: bad input is rejected naming the field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from spanload.engine import thresholds
from spanload.model import presets
from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.errors import RunInvalid, UnknownPreset
from spanload.model.samples import Op, Percentiles, Reconciliation, Summary
from spanload.spanner.schemas import missing_statements, object_names
from spanload.workers.interp.watch import poll_statements


def test_the_change_watcher_load_table_is_reproduced() -> None:
    expected = {
        "very-light": (1, 5, 1),
        "light": (5, 20, 1),
        "medium": (10, 50, 1),
        "high": (25, 100, 1),
        "very-high": (50, 200, 1),
        "very-high-2": (50, 200, 2),
        "very-high-4": (50, 200, 4),
        "very-high-8": (50, 200, 8),
    }
    for name, (w, m, n) in expected.items():
        config = presets.get_preset(name).config
        # the run of workloads/change_watcher.yaml: m mutations on average are a uniform 1..2m
        assert config.definition is not None and config.definition.name == "change_watcher"
        knobs = config.knob_values()
        assert (knobs["transactions_per_second"], knobs["max_mutations"], knobs["watchers"]) == (w, 2 * m, n)
        assert (knobs["poll_interval"], knobs["limit"], knobs["table_hint"]) == (1000, 10_000, True)
        assert presets.get_preset(f"{name}-no-hint").config.knob_values()["table_hint"] is False
        if n == 1:
            not_null = presets.get_preset(f"{name}-not-null").config.definition
            assert not_null is not None and not_null.watch is not None
            assert not_null.watch.filter == "ShardId IS NOT NULL"


def test_each_change_watcher_load_has_a_poll_and_a_change_stream_preset_on_one_load_and_database() -> None:
    """Issue 29: workloads/change_watcher.yaml, its watch either way, on the load of the hand-written preset."""
    for name, _, w, m, n in presets.CHANGE_WATCHER_LOADS:
        pair = [presets.get_preset(f"{name}-{suffix}").config for suffix in ("poll", "change-stream")]
        assert [c.watch_mode() for c in pair] == [
            "poll",
            "change_stream",
        ]
        assert all(c.definition is not None and c.definition.name == "change_watcher" for c in pair)
        knobs = [c.knob_values() for c in pair]
        assert [k.pop("watch_mode") for k in knobs] == ["poll", "change_stream"]
        assert knobs[0] == knobs[1]  # the same load, heartbeat and readers: only the mode differs
        load = ("transactions_per_second", "max_mutations", "watchers", "poll_interval", "limit", "heartbeat")
        assert tuple(knobs[0][k] for k in load) == (w, 2 * m, n, 1000, 10_000, 1000)
        assert {c.target.database for c in pair} == {presets.CHANGE_STREAMS_DATABASE}
        assert pair[0].preload == pair[1].preload and knobs[0]["preload_rows"] == knobs[1]["preload_rows"]
    # heartbeat and readers are knobs of the run, as every knob is
    live = presets.make_config("light-change-stream", {"knobs": {"heartbeat": 250, "watchers": 3}})
    assert (live.knob_values()["heartbeat"], live.knob_values()["watchers"]) == (250, 3)


def test_the_other_reports_have_presets() -> None:
    batch = presets.get_preset("2pc-batch-insert").config
    assert batch.definition is not None and batch.definition.name == "participants"
    assert batch.knob_values()["batch_rows"] == 6 and batch.knob_values()["commits_per_second"] == 20
    agents = [presets.get_preset(f"session-pool-agents-{n}").config for n in presets.SESSION_POOL_CONCURRENCY]
    assert [a.knob_values()["agents"] for a in agents] == list(presets.SESSION_POOL_CONCURRENCY)
    assert all(a.definition is not None and a.definition.name == "session_pool" for a in agents)
    assert all(a.knob_values()["think_time"] == 100 for a in agents)
    assert all(not a.client.multiplexed_sessions for a in agents)
    bench = presets.get_preset("write-benchmark").config
    assert bench.definition is not None and bench.definition.name == "write_benchmark"
    assert bench.knob_values()["transactions_per_second"] == 100 and bench.knob_values()["reads_per_second"] == 50


def test_the_presets_whose_report_ran_no_watcher_drop_the_definitions_watch() -> None:
    """write_benchmark, session_pool and participants watch and reconcile by default, as the
    hand-written watcher did; their reports' presets ran with the watcher off (its polls would take a
    session of the 10-session pool, or server CPU from the 2PC figures), and still do."""
    unwatched = [
        "write-benchmark",
        "capacity-write-benchmark",
        "2pc-batch-insert",
        presets.TWO_PC_PARTICIPANTS,
        presets.TWO_PC_PRELOADED,
        *(f"session-pool-agents-{n}" for n in presets.SESSION_POOL_CONCURRENCY),
    ]
    for name in unwatched:
        config = presets.get_preset(name).config
        assert config.definition is not None and config.definition.watch is None, name
        assert builtin_definition(config.definition.name).watch is not None, name
    watched = presets.get_preset("light-poll").config.definition
    assert watched is not None and watched.watch is not None


def test_a_preset_of_a_built_in_definition_names_it_as_its_origin() -> None:
    """So its run is not checked again before load, and answers to the updater's names (issue 22)."""
    origins = {
        p.name: (p.config.definition_origin.source.value, p.config.definition_origin.definition)
        for p in presets.all_presets()
        if p.config.definition is not None and p.config.definition_origin is not None
    }
    with_definition = [p.name for p in presets.all_presets() if p.config.definition is not None]
    assert sorted(origins) == sorted(with_definition)
    assert origins["write-benchmark"] == ("builtin", "write_benchmark")
    assert origins["shop-pg-pgadapter"] == ("builtin", "shop_pg")
    assert origins["light-change-stream"] == ("builtin", "change_watcher")


def test_an_unknown_preset_names_the_valid_ones() -> None:
    with pytest.raises(UnknownPreset, match="light"):
        presets.get_preset("nope")


def test_preset_overrides_are_validated() -> None:
    config = presets.make_config("light", {"updater": {"transactions_per_second": 7}})
    assert config.knob_values()["transactions_per_second"] == 7 and config.knob_values()["max_mutations"] == 40
    assert config.preset == "light"
    with pytest.raises(RunInvalid) as bad:
        presets.make_config("light", {"updater": {"transactions_per_second": -1}}, prefix="flags: ")
    assert (bad.value.field, bad.value.status_code, bad.value.exit_code) == ("updater.transactions_per_second", 422, 2)
    assert str(bad.value).startswith("flags: updater.transactions_per_second: ")


def test_a_whole_config_wins_over_the_preset_and_takes_the_overrides() -> None:
    base = RunConfig(name="mine")
    config = presets.make_config("light", {"watcher": {"limit": 5}}, base=base)
    assert (config.name, config.preset, config.watcher.limit) == ("mine", None, 5)


def test_the_cloud_rate_cap_names_the_field_and_spares_other_targets() -> None:
    cloud = RunConfig.model_validate({"target": {"kind": "cloud"}, "reader": {"reads_per_second": 101}})
    with pytest.raises(RunInvalid, match="SPANLOAD_MAX_TPS = 100") as bad:
        cloud.check_rate_cap(100)
    assert bad.value.field == "reader.reads_per_second"
    cloud.check_rate_cap(101)
    RunConfig.model_validate({"reader": {"reads_per_second": 5000}}).check_rate_cap(100)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"watcher": {"watchers": 2, "shard_filter": "none"}}, "watcher.shard_filter"),
        ({"reader": {"query": "leaderboard"}}, "reader.query"),
        ({"updater": {"transactions_per_second": 0}}, "updater.transactions_per_second"),
        ({"watcher": {"watchers": 38}}, "watcher.watchers"),
        ({"target": {"kind": "emulator"}}, "target.emulator_host"),
    ],
)
def test_invalid_combinations_name_the_field(body: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as err:
        RunConfig.model_validate(body)
    refused = RunInvalid.from_validation(err.value)
    assert field in str(refused)
    # The API answers 422 with this field, and the New run form places the sentence on it.
    assert refused.field == field


def test_a_patch_is_validated_against_the_whole_config() -> None:
    config = RunConfig.model_validate({"watcher": {"watchers": 4}})
    with pytest.raises(RunInvalid, match="shard_filter"):
        config.apply(ConfigPatch.model_validate({"watcher": {"shard_filter": "not_null"}}))
    assert (
        config.apply(
            ConfigPatch.model_validate({"updater": {"transactions_per_second": 20}})
        ).updater.transactions_per_second
        == 20
    )


def test_the_poll_query_follows_hint_and_shard_filter() -> None:
    """medium polls change_watcher.yaml's watch through its index over the 37 shard values;
    medium-no-hint without the index; medium-not-null (one watcher) reads ShardId IS NOT NULL."""
    index = "SingersByShardLastUpdated"
    cases = {"medium": (index, False), "medium-no-hint": (None, False), "medium-not-null": (index, True)}
    for preset, (hint, filtered) in cases.items():
        config = presets.get_preset(preset).config
        definition = config.definition
        assert definition is not None and definition.watch is not None
        assert definition.watch.hinted(config.knob_values(), definition.knobs) == hint, preset
        assert definition.watch.filter == ("ShardId IS NOT NULL" if filtered else None), preset
        shards = definition.watch.shards
        assert (shards is None) if filtered else (shards is not None and shards.values == list(range(-18, 19)))
    watch = presets.get_preset("medium").config.definition.watch  # type: ignore[union-attr]
    assert watch is not None
    first, _ = poll_statements(watch, ["SingerId"], False, index, [-1, 0, 1])
    assert first == (
        "SELECT SingerId, LastUpdated, Version, WriterId, ShardId FROM Singers@{FORCE_INDEX=SingersByShardLastUpdated}"
        " WHERE ShardId IN (-1, 0, 1) AND LastUpdated > @ts ORDER BY LastUpdated, SingerId LIMIT @limit"
    )


def test_missing_ddl_is_found_by_object_name() -> None:
    ddl = builtin_definition("change_watcher").ddl
    existing = [ddl[0].replace("CREATE TABLE Singers", "CREATE TABLE singers")]
    assert object_names(existing) == {"SINGERS"}
    assert missing_statements(ddl, existing) == [ddl[1]]


def test_thresholds_parse_check_and_name_the_failure() -> None:
    summary = Summary(
        latency={Op.UPDATER_TXN: Percentiles(count=10, p50=3.0, p99=60.0)},
        rates={"updater.tps": 4.9},
        reconciliation=Reconciliation(ok=True),
    )
    figures = thresholds.metrics_of(summary)
    assert thresholds.parse("updater.p99_ms<100").check(figures) is None
    failure = thresholds.parse("updater.p99_ms<50").check(figures)
    assert failure is not None and "updater.p99_ms<50" in failure and "60" in failure
    assert thresholds.parse("reconciliation.ok==1").check(figures) is None
    assert thresholds.parse("updater.tps>=4.5").check(figures) is None
    missing = thresholds.parse("reader.p99_ms<5").check(figures)
    assert missing is not None and "no figure" in missing


@pytest.mark.parametrize("text", ["updater.p99_ms", "updater.p99_ms<<5", "bogus.p99_ms<5", "x<abc"])
def test_malformed_thresholds_are_refused(text: str) -> None:
    with pytest.raises(thresholds.ThresholdError):
        thresholds.parse(text)


def test_the_capacity_presets_search_the_write_benchmark_and_the_change_watcher() -> None:
    from spanload.model.presets import get_preset

    write = get_preset("capacity-write-benchmark").config
    assert write.definition is not None and write.definition.name == "write_benchmark" and write.capacity is not None
    assert write.capacity.operation == "write" and write.operations["point_read"].enabled is False
    assert (write.capacity.step, write.capacity.server_cpu_pct, write.capacity.also) == (200, 65, [])
    watcher = get_preset("capacity-change-watcher").config
    assert watcher.definition is not None and watcher.definition.name == "change_watcher"
    assert watcher.definition.watch is not None and watcher.knob_values()["max_mutations"] == 10
    assert watcher.capacity is not None and watcher.capacity.also == ["notify.p99_ms>2000"]
    assert watcher.capacity.operation == "write"  # the updater's rate


def test_the_pg_tpcc_presets_are_tpcc_1w_on_the_other_interfaces() -> None:
    """Issue 24: the report's experiment, the same warehouses, terminals and duration three ways."""
    base = presets.get_preset("tpcc-1w").config
    for name, interface in (("pg-tpcc-client", "postgresql"), ("pg-tpcc-pgadapter", "pgadapter")):
        config = presets.get_preset(name).config
        assert (config.client.interface.value, config.target.database) == (interface, "spanload-tpcc-pg")
        assert config.tpcc == base.tpcc and config.duration_s == base.duration_s
        assert config.warmup_s == base.warmup_s == 10.0  # the three skip PGAdapter's cold JVM alike
        assert (config.workload, config.processes, config.runtime) == (base.workload, base.processes, base.runtime)
