"""The load profile's model: its stage syntax, its schedule, and the bounds it is held to."""

from __future__ import annotations

from pathlib import Path

import pytest

from spanload.cli.headless import build_config
from spanload.cli.run_command import parse
from spanload.model.config import RunConfig
from spanload.model.errors import RunInvalid
from spanload.model.profile import HoldStage, RampStage, StepStage, at, parse_stages
from spanload.model.workload_file import parse_definition

INVENTORY = parse_definition((Path(__file__).parents[2] / "workloads" / "inventory.yaml").read_text())


def test_the_stage_syntax_reads_holds_ramps_and_steps() -> None:
    stages = parse_stages("100:30s, ramp:100-2000:5m,step:100/30s:2500,step:500+50/1m:600,2000:1m")
    assert stages == [
        HoldStage(rate=100, duration_s=30),
        RampStage(from_rate=100, to_rate=2000, duration_s=300),
        StepStage(increment=100, every_s=30, to_rate=2500),
        StepStage(from_rate=500, increment=50, every_s=60, to_rate=600),
        HoldStage(rate=2000, duration_s=60),
    ]
    with pytest.raises(ValueError, match=r"stage 2 'ramp:100:5m' is not RATE:DURATION"):
        parse_stages("100:30s,ramp:100:5m")


def test_the_schedule_places_every_stage_and_steps_from_where_the_last_ended() -> None:
    config = RunConfig.model_validate(
        {"profile": {"stages": parse_stages("100:30s,ramp:100-2000:5m,step:100/30s:2450")}}
    )
    assert config.profile is not None
    plan = config.profile.plan()
    assert [(p.start_s, p.duration_s) for p in plan] == [(0, 30), (30, 300), (330, 150)]
    assert plan[2].levels() == [2100, 2200, 2300, 2400, 2450]  # the last level stops at to_rate
    assert plan[1].rate(150) == 1050
    assert at(plan, 29.9) is plan[0] and at(plan, 30) is plan[1] and at(plan, 480) is None
    assert config.profile_peak() == 2450


def test_a_profile_is_refused_where_it_cannot_drive_anything() -> None:
    with pytest.raises(ValueError, match="a step stage goes up, but it starts at 100 and its to_rate is 50"):
        RunConfig.model_validate({"profile": {"stages": parse_stages("100:1s,step:10/1s:50")}})
    with pytest.raises(ValueError, match=r"updater\.enabled is false"):
        RunConfig.model_validate({"updater": {"enabled": False}, "profile": {"stages": parse_stages("1:1s")}})
    with pytest.raises(ValueError, match="operations belong to a workload definition"):
        RunConfig.model_validate({"profile": {"operation": "write", "stages": parse_stages("1:1s")}})
    base = {"workload": "definition", "definition": INVENTORY.model_dump(mode="json")}
    with pytest.raises(
        ValueError,
        match=r"name the operation of workload 'inventory' it drives \(one of transfer, stock_report",
    ):
        RunConfig.model_validate({**base, "profile": {"stages": parse_stages("1:1s")}})
    # closed loop: the stages are executors, and must fit operations.<op>.concurrency's bounds
    with pytest.raises(ValueError, match=r"profile: it sets operations.stock_report.concurrency to 5000: .*4096"):
        too_many = {"operation": "stock_report", "stages": parse_stages("5000:1s")}
        RunConfig.model_validate({**base, "profile": too_many})
    ok = RunConfig.model_validate(
        {**base, "profile": {"operation": "stock_report", "stages": parse_stages("ramp:1-64:1m")}}
    )
    assert ok.profile_peak() is None  # executors are not a rate: SPANLOAD_MAX_TPS does not apply


def test_the_cli_takes_stages_a_file_and_the_operation(tmp_path: Path) -> None:
    config = build_config(parse(["--stages", "5:10s,ramp:5-50:1m"]))
    assert config.profile is not None and config.profile.total_s() == 70
    path = tmp_path / "profile.yaml"
    path.write_text("ramp_step_s: 5\nstages:\n  - {kind: hold, rate: 3, duration_s: 2}\n")
    config = build_config(parse(["--stages-file", str(path)]))
    assert config.profile is not None and config.profile.ramp_step_s == 5
    with pytest.raises(RunInvalid, match="--stages: stage 1 'x' is not"):
        build_config(parse(["--stages", "x"]))
    with pytest.raises(RunInvalid, match="--profile-operation goes with --stages"):
        build_config(parse(["--profile-operation", "write"]))
