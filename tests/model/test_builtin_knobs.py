"""The one mapping from the fixed config sections (the documented flags --tps, --mutations,
--poll-interval, --no-watcher, --reader, --preload-rows...) to the built-in definitions' knobs and
operations (model/builtin_knobs.py): every knob and operation it names exists in its definition
file, and a flag's value lands where the old field's meaning now lives."""

from __future__ import annotations

import pytest

from spanload.model.builtin_convert import builtin_definition
from spanload.model.builtin_knobs import LEGACY_KNOBS, LEGACY_OPERATIONS, UNHINTED, WATCH, ToKnob
from spanload.model.config import ConfigPatch, RunConfig
from spanload.model.errors import RunInvalid
from spanload.model.presets import make_config


def _on(name: str) -> RunConfig:
    definition = builtin_definition(name).model_dump(mode="json", exclude_unset=True)
    interface = "postgresql" if name.endswith("_pg") else "googlesql"
    return RunConfig.model_validate(
        {"workload": "definition", "definition": definition, "client": {"interface": interface}}
    )


@pytest.mark.parametrize("name", sorted(LEGACY_KNOBS))
def test_every_mapped_knob_and_operation_is_in_its_definition(name: str) -> None:
    definition = builtin_definition(name)
    assert definition.name == name
    knobs = {t.knob for t in LEGACY_KNOBS[name].values() if isinstance(t, ToKnob)}
    assert knobs - set(definition.knobs) == set()
    operations = {op for group in LEGACY_OPERATIONS[name] for op in group.among}
    assert operations - set(definition.operations) == set()
    if WATCH in LEGACY_KNOBS[name].values():  # the hand-written watcher's default: on, reconciling
        assert definition.watch is not None and definition.watch.versions is not None
    if UNHINTED in LEGACY_KNOBS[name].values():  # the table has no index to force
        assert definition.watch is not None and definition.watch.index is None


@pytest.mark.parametrize("name", ["change_watcher", "change_watcher_pg"])
def test_the_change_watcher_flags_become_its_knobs(name: str) -> None:
    config = _on(name).merged(
        {
            "updater": {"transactions_per_second": 25.0, "mutations_per_transaction": 100, "parallelism": 4},
            "watcher": {"watchers": 2, "poll_interval_ms": 500, "limit": 50, "table_hint": False},
            "preload": {"rows": 1000},
        }
    )
    assert config.knobs == {
        "transactions_per_second": 25.0,
        "max_mutations": 200,  # a uniform 1..2m has mean m
        "parallelism": 4,
        "watchers": 2,
        "poll_interval": 500,
        "limit": 50,
        "table_hint": False,  # --no-table-hint: the poll is not forced through the index
        "preload_rows": 1000,
    }
    definition = config.definition
    assert definition is not None and definition.watch is not None
    assert definition.watch.hinted(config.knob_values(), definition.knobs) is None
    hinted = config.apply(ConfigPatch.model_validate({"watcher": {"table_hint": True}}))  # live
    index = "singers_by_shard_last_updated" if name.endswith("_pg") else "SingersByShardLastUpdated"
    assert definition.watch.hinted(hinted.knob_values(), definition.knobs) == index
    assert config.operations == {}
    assert config.definition is not None and config.definition.watch is not None


@pytest.mark.parametrize("name", ["write_benchmark", "session_pool", "participants", "participants_pg"])
def test_the_watcher_and_preload_flags_reach_every_builtins_watch(name: str) -> None:
    """--watchers, --poll-interval, --limit, --no-table-hint and --preload-rows drive the watch of the
    other built-ins as they drive the Change Watcher's; participants' table has no index, so its
    watch is never hinted and the hint's field (false, the one value its legacy watcher took) sets
    nothing."""
    watcher = {"watchers": 3, "poll_interval_ms": 250, "limit": 77, "table_hint": False}
    config = _on(name).merged({"watcher": watcher, "preload": {"rows": 40}})
    expected = {"watchers": 3, "poll_interval": 250, "limit": 77, "preload_rows": 40}
    hinted = not name.startswith("participants")
    assert config.knobs == ({**expected, "table_hint": False} if hinted else expected)
    definition = config.definition
    assert definition is not None and definition.watch is not None
    assert definition.watch.hinted(config.knob_values(), definition.knobs) is None
    if hinted:
        on = config.apply(ConfigPatch.model_validate({"watcher": {"table_hint": True}}))
        assert definition.watch.index is not None
        assert definition.watch.hinted(on.knob_values(), definition.knobs) == definition.watch.index
    dropped = _on(name).merged({"watcher": {"enabled": False}})
    assert dropped.definition is not None and dropped.definition.watch is None


def test_mode_reader_and_no_watcher_pick_operations() -> None:
    config = _on("change_watcher").merged(
        {
            "updater": {"mode": "dml"},
            "reader": {"enabled": True, "query": "recent_changes"},
            "watcher": {"enabled": False},
        }
    )
    enabled = {op: pacing.enabled for op, pacing in config.operations.items()}
    assert enabled == {
        "write": False,
        "write_dml": True,
        "batch_insert": False,
        "point_read": False,
        "recent_changes": True,
    }
    assert config.definition is not None and config.definition.watch is None
    reader_on = _on("change_watcher").merged({"reader": {"enabled": True}})
    assert {op: p.enabled for op, p in reader_on.operations.items()} == {"point_read": True, "recent_changes": False}
    no_writes = _on("write_benchmark").merged({"updater": {"enabled": False, "mode": "batch_insert"}})
    assert {op: p.enabled for op, p in no_writes.operations.items()} == {
        "write": False,
        "write_dml": False,
        "batch_insert": False,
    }


def test_a_field_with_no_counterpart_is_refused_by_name() -> None:
    with pytest.raises(RunInvalid, match=r"^updater\.mutations_per_transaction: workload 'participants'") as err:
        make_config("2pc-participants", {"updater": {"mutations_per_transaction": 3}})
    assert err.value.field == "updater.mutations_per_transaction"
    with pytest.raises(RunInvalid, match=r"^updater\.mode: workload 'participants' takes 'batch_insert' \(got 'dml'\)"):
        make_config("2pc-participants", {"updater": {"mode": "dml"}})


def test_a_live_patch_of_the_updater_rate_reaches_the_knob() -> None:
    config = make_config("2pc-participants")
    assert config.knobs["commits_per_second"] == 42.0
    patched = config.apply(ConfigPatch.model_validate({"updater": {"transactions_per_second": 7.5}}))
    assert patched.knobs == {**config.knobs, "commits_per_second": 7.5}
    assert patched.updater == config.updater  # the fixed section is not what the run follows


def test_a_report_workloads_config_keeps_its_sections_until_it_runs() -> None:
    legacy = RunConfig.model_validate({"workload": "change_watcher", "updater": {"transactions_per_second": 3.0}})
    config = make_config(None, {"updater": {"transactions_per_second": 2.0}}, base=legacy)
    assert config.updater.transactions_per_second == 2.0 and config.knobs == {}  # converted at its start


def test_the_cloud_rate_cap_holds_for_a_builtin_definitions_operations() -> None:
    """Named as given: the legacy field whose knob paces the operation, or the operation's own rate."""
    cloud = make_config("write-benchmark", {"target": {"kind": "cloud"}, "updater": {"transactions_per_second": 101}})
    with pytest.raises(
        RunInvalid, match=r"^updater\.transactions_per_second = 101 exceeds SPANLOAD_MAX_TPS = 100"
    ) as bad:
        cloud.check_rate_cap(100)
    assert bad.value.field == "updater.transactions_per_second"
    cloud.check_rate_cap(101)
    direct = make_config("write-benchmark", {"target": {"kind": "cloud"}, "operations": {"write": {"rate": 102}}})
    with pytest.raises(RunInvalid, match=r"^operations\.write\.rate = 102 exceeds SPANLOAD_MAX_TPS = 100") as bad:
        direct.check_rate_cap(100)
    assert bad.value.field == "operations.write.rate"
    # an operation that does not run is not capped (the writes off: only the 50 point reads/s run)
    off = {"target": {"kind": "cloud"}, "updater": {"transactions_per_second": 150, "enabled": False}}
    make_config("write-benchmark", off).check_rate_cap(100)


def test_a_built_in_definition_is_parsed_once_but_each_caller_gets_its_own_copy() -> None:
    first = builtin_definition("change_watcher")
    first.knobs.clear()  # a caller that changes what it got
    again = builtin_definition("change_watcher")
    assert again is not first and "transactions_per_second" in again.knobs
    assert again == builtin_definition("change_watcher")


def test_the_report_fields_set_a_file_copy_of_a_builtin_and_are_refused_for_a_users_definition() -> None:
    """`spanload run --workload-file workloads/write_benchmark.yaml --mode dml --tps 40` drives the
    copy's write_dml at 40 tx/s (it ran write at 100, the flags unused); a user's own definition has
    no such fields: refused naming the one given, not silently left unused."""
    copy = builtin_definition("write_benchmark").model_dump(mode="json")
    given = {"workload": "definition", "definition": copy, "updater": {"mode": "dml", "transactions_per_second": 40}}
    config = make_config(None, given)
    assert config.knobs["transactions_per_second"] == 40
    assert (config.operations["write"].enabled, config.operations["write_dml"].enabled) == (False, True)
    own = {**copy, "name": "sensors"}
    with pytest.raises(RunInvalid, match=r"updater\.transactions_per_second: a field of the built-in report") as bad:
        make_config(None, {"workload": "definition", "definition": own, "updater": {"transactions_per_second": 40}})
    assert bad.value.field == "updater.transactions_per_second"
