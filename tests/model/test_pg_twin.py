"""The twin rule (model/pg_twin.py, issue 24): a GoogleSQL built-in's preset asked for on a
PostgreSQL interface runs its twin workloads/<name>_pg.yaml, with the preset's knobs and watch
changes, on ``<database>-pg``; no twin, or a change the twin cannot take, is refused naming
client.interface. Expected definitions are the twin files themselves, read apart from the rule."""

from __future__ import annotations

from typing import Any

import pytest

from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import RunConfig, Workload
from spanload.model.errors import RunInvalid
from spanload.model.presets import all_presets, get_preset, make_config
from spanload.model.workload import Dialect, WatchMode

PG = ("postgresql", "pgadapter")


def on(interface: str, **more: Any) -> dict[str, Any]:
    return {"client": {"interface": interface}, **more}


def twin_dump(name: str) -> dict[str, Any]:
    return builtin_definition(name).model_dump(mode="json")


@pytest.mark.parametrize("interface", PG)
def test_light_poll_on_a_pg_interface_runs_change_watcher_pg_on_its_own_database(interface: str) -> None:
    preset = get_preset("light-poll").config
    config = make_config("light-poll", on(interface))
    assert config.client.interface.value == interface
    assert config.definition is not None and config.definition_origin is not None
    assert config.definition.model_dump(mode="json") == twin_dump("change_watcher_pg")  # the file, whole
    origin = config.definition_origin
    assert (origin.source.value, origin.definition) == ("builtin", "change_watcher_pg")
    assert (
        config.knobs
        == preset.knobs
        == {
            "transactions_per_second": 5,
            "max_mutations": 40,
            "watchers": 1,
            "poll_interval": 1000,
            "limit": 10000,
            "watch_mode": "poll",
        }
    )
    # light-poll's GoogleSQL database, spanload-change-streams, cannot be opened as PostgreSQL
    assert (preset.target.database, config.target.database) == ("spanload-change-streams", "spanload-change-streams-pg")
    assert config.preset == "light-poll"


def test_the_watch_mode_a_preset_sets_is_carried_to_the_twin() -> None:
    """The preset sets the definition's watch_mode knob (watch.mode: $watch_mode): the twin, whole,
    takes it with the other knobs."""
    config = make_config("light-change-stream", on("pgadapter"))
    assert config.definition is not None and config.definition.watch is not None
    assert config.definition.model_dump(mode="json") == twin_dump("change_watcher_pg")
    assert config.definition.watch.mode == "$watch_mode"
    assert config.knobs["watch_mode"] == WatchMode.CHANGE_STREAM.value


def test_a_shard_filter_is_written_in_the_twins_column_names() -> None:
    # light-not-null: watcher.shard_filter not_null, one poller over ShardId IS NOT NULL, no shard split
    config = make_config("light-not-null", on("postgresql"))
    assert config.definition is not None and config.definition.watch is not None
    assert config.definition.name == "change_watcher_pg"
    assert config.definition.watch.filter == "shard_id IS NOT NULL"  # change_watcher_pg.yaml's generated column
    assert config.definition.watch.shards is None
    assert config.knobs["transactions_per_second"] == 5.0 and config.knobs["max_mutations"] == 40  # light's 2m
    assert config.target.database == "spanload-pg"


def test_the_requests_other_fields_apply_to_the_twin() -> None:
    config = make_config(
        "light-poll",
        on("pgadapter", updater={"transactions_per_second": 7}, target={"database": "mine"}, runtime="go"),
    )
    assert config.definition is not None and config.definition.name == "change_watcher_pg"
    assert config.knobs["transactions_per_second"] == 7  # the flag's knob, as on the original
    assert config.target.database == "mine"  # a database the request names is its own
    assert config.runtime.value == "go"


@pytest.mark.parametrize(
    ("preset", "twin", "database"),
    [
        ("write-benchmark", "write_benchmark_pg", "spanload-pg"),
        ("2pc-participants", "participants_pg", "spanload-2pc-pg"),
        ("session-pool-agents-10", "session_pool_pg", "spanload-pg"),
        ("shop-googlesql", "shop_pg", "spanload-shop-pg"),  # the database shop-pg-* run on
        ("light", "change_watcher_pg", "spanload-pg"),  # a report workload's config: its definition's twin
    ],
)
def test_each_googlesql_builtin_preset_takes_its_twin(preset: str, twin: str, database: str) -> None:
    config = make_config(preset, on("pgadapter"))
    assert config.definition is not None and config.definition.name == twin
    assert config.definition.dialect is Dialect.POSTGRESQL
    assert config.target.database == database


def test_every_preset_runs_on_every_interface() -> None:
    for preset in all_presets():
        for interface in ("googlesql", *PG):
            if preset.config.client.interface.value in PG and interface == "googlesql":
                continue  # a PostgreSQL preset on GoogleSQL: no rule, the config's own refusal
            config = make_config(preset.name, on(interface))
            # no definition: TPC-C (both dialects' statements), or a report workload's sections (GoogleSQL)
            dialect = config.definition.dialect if config.definition is not None else None
            if interface in PG:
                assert dialect is Dialect.POSTGRESQL or config.workload is Workload.TPCC, preset.name
            else:
                assert dialect in (Dialect.GOOGLESQL, None), preset.name


@pytest.mark.parametrize("preset", ["light-poll", "shop-pg-pgadapter", "tpcc-1w", "pg-tpcc-client"])
def test_a_config_on_its_own_dialect_is_left_as_it_is(preset: str) -> None:
    base = get_preset(preset).config
    same = make_config(preset, on(base.client.interface.value))
    assert same.model_dump() == base.model_dump()


def builtin_run(name: str, **body: Any) -> RunConfig:
    definition = builtin_definition(name).model_dump(mode="json", exclude_unset=True)
    origin = {"source": "builtin", "definition": name}
    run = {"workload": "definition", "definition": definition, "definition_origin": origin}
    return RunConfig.model_validate({**run, **body})


def test_a_builtin_without_a_twin_is_refused_naming_client_interface() -> None:
    with pytest.raises(RunInvalid) as err:
        make_config(base=builtin_run("inventory"), overrides=on("pgadapter"), prefix="invalid run configuration: ")
    assert err.value.field == "client.interface"
    assert str(err.value) == (
        "invalid run configuration: client.interface: 'pgadapter' runs PostgreSQL-dialect definitions, and the "
        "built-in 'inventory' has no PostgreSQL twin (workloads/inventory_pg.yaml); run it with client.interface "
        "'googlesql'"
    )


def test_a_changed_definition_or_watch_is_refused_not_dropped() -> None:
    base = get_preset("light-poll").config
    assert base.definition is not None and base.definition.watch is not None
    edited = base.model_copy(update={"definition": base.definition.model_copy(update={"description": "mine"})})
    with pytest.raises(RunInvalid, match=r"changed from workloads/change_watcher.yaml beyond its watch") as err:
        make_config(base=edited, overrides=on("postgresql"))
    assert err.value.field == "client.interface"
    watch = base.definition.watch.model_copy(update={"index": "SomeOtherIndex"})
    renamed = base.model_copy(update={"definition": base.definition.model_copy(update={"watch": watch})})
    with pytest.raises(RunInvalid, match=r"cannot take this run's changed watch.index") as err:
        make_config(base=renamed, overrides=on("postgresql"))
    assert err.value.field == "client.interface"


def test_a_twin_database_over_spanners_30_characters_is_refused_naming_target_database() -> None:
    base = builtin_run("write_benchmark", target={"database": "d" * 28})
    with pytest.raises(RunInvalid) as err:
        make_config(base=base, overrides=on("pgadapter"))
    assert err.value.field == "target.database" and f"'{'d' * 28}-pg'" in str(err.value)
    named = make_config(base=base, overrides=on("pgadapter", target={"database": "short-pg"}))
    assert named.target.database == "short-pg"
