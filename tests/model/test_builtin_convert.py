"""A report workload's config (the presets light..very-high and their variants, old configs, the
documented flags) as the run of its built-in definition (model/builtin_convert.py): the knob values
are the legacy fields' meanings, the operations the legacy modes', the watch the legacy watcher's."""

from __future__ import annotations

import pytest

from spanload.model.builtin_convert import _watch_filter, as_definition, builtin_definition
from spanload.model.builtin_knobs import legacy_figures
from spanload.model.config import RunConfig
from spanload.model.definition_origin import OriginKind
from spanload.model.errors import RunInvalid
from spanload.model.presets import get_preset


def _enabled(config: RunConfig) -> set[str]:
    assert config.definition is not None
    return {
        op
        for op, spec in config.definition.operations.items()
        if (config.operations[op].enabled if op in config.operations else spec.enabled)
    }


def test_the_light_preset_runs_the_change_watcher_definition_at_its_load() -> None:
    config = as_definition(get_preset("light").config)
    assert config.definition == builtin_definition("change_watcher")
    assert config.definition_origin is not None and config.definition_origin.source is OriginKind.BUILTIN
    assert config.definition_origin.definition == "change_watcher"
    knobs = config.knob_values()
    # the report's light load: 5 tx/s of 20 mutations on average (uniform 1..40), one watcher, 1 s polls
    assert (knobs["transactions_per_second"], knobs["max_mutations"]) == (5.0, 40)
    assert (knobs["watchers"], knobs["poll_interval"], knobs["limit"], knobs["table_hint"]) == (1, 1000, 10_000, True)
    assert _enabled(config) == {"write"}
    watch = config.definition.watch
    # the 37 ShardId values split between the pollers, and each change's version and writer read
    assert watch is not None and watch.filter is None and watch.shards is not None
    assert (watch.shards.column, watch.shards.values) == ("ShardId", list(range(-18, 19)))
    assert watch.versions is not None and (watch.versions.version, watch.versions.writer) == ("Version", "WriterId")
    assert config.preset == "light" and config.seed == get_preset("light").config.seed


def test_the_variants_keep_their_hint_and_shard_filter() -> None:
    no_hint = as_definition(get_preset("medium-no-hint").config)
    assert no_hint.knob_values()["table_hint"] is False
    not_null = as_definition(get_preset("medium-not-null").config)
    assert not_null.definition is not None and not_null.definition.watch is not None
    assert not_null.definition.watch.filter == "ShardId IS NOT NULL" and not_null.definition.watch.shards is None
    none = as_definition(RunConfig.model_validate({"watcher": {"shard_filter": "none", "table_hint": False}}))
    assert none.definition is not None and none.definition.watch is not None and none.definition.watch.filter is None


def test_the_documented_flags_land_on_the_knobs_and_operations() -> None:
    legacy = RunConfig.model_validate(
        {
            "workload": "change_watcher",
            "updater": {"transactions_per_second": 7, "mutations_per_transaction": 3, "mode": "dml"},
            "watcher": {"enabled": False},
            "reader": {"enabled": True, "reads_per_second": 4, "query": "recent_changes"},
            "preload": {"rows": 500},
        }
    )
    config = as_definition(legacy)
    knobs = config.knob_values()
    assert (knobs["transactions_per_second"], knobs["max_mutations"], knobs["reads_per_second"]) == (7, 6, 4)
    assert knobs["preload_rows"] == 500
    assert _enabled(config) == {"write_dml", "recent_changes"}
    assert config.definition is not None and config.definition.watch is None  # --no-watcher


def test_a_legacy_default_without_a_counterpart_is_the_definitions_own() -> None:
    # participants' legacy updater ran batch inserts whatever the (default) mode said; session_pool's
    # reader read the leaderboard
    participants = as_definition(RunConfig.model_validate({"workload": "participants", "watcher": {"enabled": False}}))
    assert _enabled(participants) == {"batch_insert"}
    assert participants.knob_values()["commits_per_second"] == 1.0  # the legacy updater's default rate
    pool = as_definition(
        RunConfig.model_validate({"workload": "session_pool", "reader": {"enabled": True, "concurrency": 40}})
    )
    assert _enabled(pool) == {"insert_score", "leaderboard"}
    assert pool.knob_values()["agents"] == 40


def test_a_field_the_definition_cannot_take_is_refused_by_name() -> None:
    legacy = RunConfig.model_validate({"workload": "change_watcher", "reader": {"staleness_s": 5}})
    with pytest.raises(RunInvalid, match=r"reader\.staleness_s: workload 'change_watcher'") as err:
        as_definition(legacy)
    assert err.value.field == "reader.staleness_s"
    with pytest.raises(RunInvalid, match=r"updater\.mode: workload 'participants' takes 'batch_insert'"):
        as_definition(
            RunConfig.model_validate(
                {"workload": "participants", "updater": {"mode": "dml"}, "watcher": {"enabled": False}}
            )
        )


def test_a_profile_or_capacity_search_of_the_updater_drives_its_operation() -> None:
    stages = [{"kind": "hold", "rate": 5, "duration_s": 10}]
    config = as_definition(
        RunConfig.model_validate({"updater": {"mode": "batch_insert"}, "profile": {"stages": stages}})
    )
    assert config.profile is not None and config.profile.operation == "batch_insert"
    capacity = as_definition(get_preset("capacity-change-watcher").config)
    assert capacity.capacity is not None and capacity.capacity.operation == "write"
    assert capacity.capacity.also == ["notify.p99_ms>2000"]


def test_tpcc_and_definitions_are_left_as_they_are() -> None:
    for name in ("tpcc-1w", "write-benchmark", "shop-googlesql"):
        config = get_preset(name).config
        assert as_definition(config) is config


def test_the_legacy_figures_are_the_operations_that_took_their_roles() -> None:
    figures = legacy_figures("change_watcher", {"write_dml", "point_read"})
    assert figures["updater.txn"] == "op.write_dml"
    assert figures["updater.txn_intended"] == "op.write_dml_intended"
    assert figures["updater.target_tps"] == "op.write_dml.target_ps"
    assert figures["reader.read"] == "op.point_read"
    assert legacy_figures("participants", {"batch_insert"})["updater.txn.failed"] == "op.batch_insert.failed"
    assert "reader.read" not in legacy_figures("participants", {"batch_insert"})
    assert legacy_figures("shop", {"place_order"}) == {}


@pytest.mark.parametrize(("name", "column"), [("change_watcher", "ShardId"), ("change_watcher_pg", "shard_id")])
def test_shard_filter_not_null_names_the_definitions_own_shard_column(name: str, column: str) -> None:
    """The filter is the definition's column, so a PostgreSQL twin's (shard_id) is not given GoogleSQL's name."""
    definition = builtin_definition(name).model_dump(mode="json", exclude_unset=True)
    _watch_filter(RunConfig.model_validate({"watcher": {"shard_filter": "not_null"}}), definition)
    assert (definition["watch"]["filter"], definition["watch"].get("shards")) == (f"{column} IS NOT NULL", None)
    definition = builtin_definition(name).model_dump(mode="json", exclude_unset=True)
    _watch_filter(RunConfig.model_validate({"watcher": {"shard_filter": "none"}}), definition)
    assert (definition["watch"]["filter"], definition["watch"].get("shards")) == (None, None)
