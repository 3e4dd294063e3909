"""One source of bounds: the Patch models are checked against the config, the CLI flags are
generated from its fields, and the OpenAPI schema carries the bounds."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any, get_args

import pytest

from spanload.cli.commands import main
from spanload.cli.flags import ALIASES, SWITCHES, knob_parameters, knobs, overrides_from
from spanload.cli.headless import build_config
from spanload.cli.run_command import parse
from spanload.main import create_app
from spanload.model.config import ConfigPatch, InFlight, Rate, UpdaterConfig, _Patch
from spanload.model.presets import get_preset
from spanload.model.settings import Settings


def _parse(*argv: str) -> SimpleNamespace:
    return parse(argv)


def test_every_config_field_but_preset_has_a_flag() -> None:
    names = set(vars(_parse()))
    leaves = {k.dotted for k in knobs()}
    assert {k.dotted for k in knobs() if k.param in names} == leaves
    assert {n for n in names if n.startswith("knob__")} == {k.param for k in knobs()} | {"knob__schema_alias"}
    assert len(leaves) == 51 and "preset" not in leaves and "workload" in leaves and "tpcc.warehouses" in leaves
    assert not {leaf for leaf in leaves if leaf.startswith("definition_origin")}  # set by the API, not a knob
    assert {"target.latency_model", "target.commit_knee.rate", "target.commit_knee.delay_ms"} <= leaves
    assert {"client.interface", "client.pgadapter_host"} <= leaves
    assert {"seed", "create_schema", "warmup_s"} <= leaves and not {"definition", "knobs", "operations"} & leaves
    assert {"placement.address", "placement.cpus_per_worker"} <= leaves  # an optional section; --ray implies kind


def test_old_and_generated_flag_names_set_the_same_fields() -> None:
    old = build_config(
        _parse(
            "--tps", "3", "--mutations", "7", "--poll-interval", "2s", "--think-time", "150",
            "--staleness", "500ms", "--target", "emulator", "--emulator-host", "h:1", "--duration", "1m",
            "--interval", "2", "--no-updater", "--no-watcher", "--reader", "--no-table-hint",
            "--no-multiplexed-sessions", "--schema", "tweets",
        )
    )  # fmt: skip
    new = build_config(
        _parse(
            "--transactions-per-second", "3", "--mutations-per-transaction", "7", "--poll-interval-ms", "2s",
            "--think-time-ms", "150", "--staleness-s", "500ms", "--kind", "emulator", "--emulator-host", "h:1",
            "--duration-s", "1m", "--report-interval-s", "2", "--no-updater-enabled", "--no-watcher-enabled",
            "--reader-enabled", "--no-table-hint", "--no-multiplexed-sessions", "--workload", "write_benchmark",
        )
    )  # fmt: skip
    assert old == new
    assert (old.updater.transactions_per_second, old.updater.mutations_per_transaction) == (3.0, 7)
    assert (old.watcher.poll_interval_ms, old.reader.think_time_ms, old.reader.staleness_s) == (2000, 150, 0.5)
    assert (old.target.kind.value, old.target.emulator_host, old.duration_s, old.report_interval_s) == (
        "emulator", "h:1", 60.0, 2.0,
    )  # fmt: skip
    assert (old.updater.enabled, old.watcher.enabled, old.reader.enabled) == (False, False, True)
    assert (old.watcher.table_hint, old.client.multiplexed_sessions, old.schema_.value) == (False, False, "tweets")
    assert old.workload.value == "write_benchmark"
    assert set(ALIASES) | set(SWITCHES) <= {k.dotted for k in knobs()}


def test_flags_not_given_leave_the_preset_alone() -> None:
    assert overrides_from(_parse()) == {}
    assert build_config(_parse("--preset", "light")) == get_preset("light").config


def test_help_shows_the_bounds_from_the_config() -> None:
    helps = {p.name: get_args(p.annotation)[1].help for p in knob_parameters()}
    assert helps["knob__updater__transactions_per_second"] == (
        "transactions per second (may be below 1) (> 0, <= 100,000; default 1.0)"
    )
    assert helps["knob__watcher__watchers"] == "watchers splitting the shard values (>= 1, <= 37; default 1)"


def test_a_duration_flag_gives_its_examples_and_the_field_a_unit_alone() -> None:
    # The UI shows a field's description beside a number box in the field's unit: "How long to run,
    # e.g. 60s, 2m, 1h" there, a box that takes no "2m" (found typing one into the New run page).
    # The examples are the flag's, whose parser reads them.
    helps = {p.name: get_args(p.annotation)[1].help for p in knob_parameters()}
    assert helps["knob__duration_s"] == "how long to run (default: until stopped); e.g. 60s, 2m, 1h"
    assert (
        helps["knob__watcher__poll_interval_ms"]
        == "time between polls; e.g. 1s or 500ms (>= 10, <= 3,600,000; default 1000)"
    )
    with_units = re.compile(r"\d+(ms|s|m|h)\b")
    durations = [k for k in knobs() if k.path[-1].endswith(("_s", "_ms"))]
    assert len(durations) > 5
    described = [k.dotted for k in durations if k.field.description and with_units.search(k.field.description)]
    assert described == []


def test_a_patch_that_drifts_from_its_config_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="type and bounds"):

        class LoosePatch(_Patch):  # parallelism's bound differs from UpdaterConfig's
            config_model = UpdaterConfig
            enabled: bool | None = None
            transactions_per_second: Rate | None = None
            mutations_per_transaction: InFlight | None = None
            parallelism: InFlight | None = None
            mode: None = None
            batch_rows: InFlight | None = None
            key_space: InFlight | None = None

    with pytest.raises(TypeError, match="exactly the live fields"):

        class ShortPatch(_Patch):
            config_model = UpdaterConfig
            enabled: bool | None = None


def _property(schema: dict[str, Any], model: str, field: str) -> dict[str, Any]:
    found: dict[str, Any] = schema["components"]["schemas"][model]["properties"][field]
    return found


def test_the_openapi_schema_carries_the_bounds_of_config_and_patch() -> None:
    schema = create_app(Settings()).openapi()
    tps = _property(schema, "UpdaterConfig", "transactions_per_second")
    assert (tps["exclusiveMinimum"], tps["maximum"], tps["default"]) == (0, 100_000, 1.0)
    patch_tps = _property(schema, "UpdaterPatch", "transactions_per_second")["anyOf"][0]
    assert (patch_tps["exclusiveMinimum"], patch_tps["maximum"]) == (0, 100_000)
    watchers = _property(schema, "WatcherPatch", "watchers")["anyOf"][0]
    assert (watchers["minimum"], watchers["maximum"]) == (1, 37)
    assert ConfigPatch.model_fields.keys() == {
        "duration_s", "updater", "watcher", "reader", "client", "tpcc", "knobs", "operations"
    }  # fmt: skip


def test_preload_rows_has_a_qualified_flag_and_is_fixed_once_the_run_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = build_config(_parse("--preload-rows", "200000"))
    assert config.preload.rows == 200_000
    assert main(["run", "--rows", "5"]) == 2  # only the qualified name: a bare --rows would not say what it counts
    assert capsys.readouterr().err.startswith("spanload run: No such option: --rows")
    assert "preload" not in ConfigPatch.model_fields
