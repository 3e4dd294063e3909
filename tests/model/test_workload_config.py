"""The ``workload`` field (issue 15): the old ``schema`` values still load, as their workload."""

from __future__ import annotations

import pytest

from spanload.control.compare import config_diff
from spanload.model.config import ConfigPatch, RunConfig, SchemaKind, Workload
from spanload.model.errors import RunInvalid


@pytest.mark.parametrize(
    ("schema", "workload"),
    [("singers", "change_watcher"), ("tweets", "write_benchmark"), ("leaderboard", "session_pool")],
)
def test_an_old_config_that_says_schema_loads_as_its_workload(schema: str, workload: str) -> None:
    config = RunConfig.model_validate({"schema": schema, "updater": {"transactions_per_second": 2}})
    assert config.workload.value == workload and config.schema_.value == schema
    dumped = config.model_dump(mode="json", by_alias=True)
    assert dumped["workload"] == workload and "schema" not in dumped
    assert RunConfig.model_validate(dumped) == config


def test_schema_and_workload_must_agree_and_unknown_schemas_are_named() -> None:
    assert (
        RunConfig.model_validate({"schema": "tweets", "workload": "write_benchmark"}).workload
        is Workload.WRITE_BENCHMARK
    )
    with pytest.raises(ValueError, match="schema 'tweets' means workload 'write_benchmark', but workload is 'tpcc'"):
        RunConfig.model_validate({"schema": "tweets", "workload": "tpcc"})
    with pytest.raises(ValueError, match="schema 'tpcc' is not one of 'singers', 'tweets', 'leaderboard'"):
        RunConfig.model_validate({"schema": "tpcc"})
    with pytest.raises(ValueError, match="is not one of"):
        RunConfig.model_validate({"schema": ["singers"]})  # not a string: refused, not a crash


def test_an_override_that_says_schema_replaces_the_base_workload() -> None:
    base = RunConfig.model_validate({"workload": "tpcc"})
    assert base.merged({"schema": "leaderboard"}).workload is Workload.SESSION_POOL
    with pytest.raises(RunInvalid, match="schema 'nope' is not one of") as err:
        base.merged({"schema": "nope"}, "overrides: ")
    assert err.value.field == "schema" and str(err.value).startswith("overrides: ")


def test_tpcc_has_no_report_schema_and_runs_on_python_only() -> None:
    config = RunConfig.model_validate({"workload": "tpcc", "tpcc": {"warehouses": 2}})
    assert config.tpcc.warehouses == 2
    with pytest.raises(ValueError, match="no report schema"):
        _ = config.schema_
    assert RunConfig().schema_ is SchemaKind.SINGERS
    with pytest.raises(RunInvalid, match="workload 'tpcc' runs on runtime 'python' only"):
        config.merged({"runtime": "go"})


def test_the_data_shape_of_tpcc_cannot_change_live_but_its_pace_can() -> None:
    config = RunConfig.model_validate({"workload": "tpcc"})
    changed = config.apply(ConfigPatch.model_validate({"tpcc": {"terminals": 3, "transactions_per_second": 7}}))
    assert (changed.tpcc.terminals, changed.tpcc.transactions_per_second) == (3, 7.0)
    for fixed in ({"warehouses": 2}, {"items": 1000}, {"customers_per_district": 30}, {"mode": "open"}):
        (name,) = fixed
        with pytest.raises(ValueError, match=f"{name} is fixed for the run: it is chosen when the run starts"):
            ConfigPatch.model_validate({"tpcc": fixed})
    with pytest.raises(ValueError, match="workload is fixed for the run: it is chosen when the run starts"):
        ConfigPatch.model_validate({"workload": "tpcc"})


def test_compare_diffs_an_old_saved_config_against_a_new_one_by_meaning() -> None:
    old = {"schema": "tweets", "updater": {"transactions_per_second": 5}}
    new = RunConfig.model_validate({"workload": "write_benchmark", "updater": {"transactions_per_second": 6}})
    diff = {f: v for f, v, _ in config_diff([old, new.model_dump(mode="json", by_alias=True)])}
    assert diff == {"updater.transactions_per_second": [5.0, 6.0]}
