"""The same definition and seed load the same rows whichever runtime runs it (issue 22: "a run is
then reproducible across runtimes"): a user's own schema (tests/fixtures/telemetry.yaml) loaded by
Python workers into one database and by Go workers into another, two processes each, compared row
by row with the official client. The control plane creates each database's schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spanload.model.config import WorkerRuntime
from spanload.model.workload_file import parse_definition
from tests.engine.conftest import LocalTarget
from tests.engine.test_definition_e2e import query, run

pytestmark = pytest.mark.timeout(300)

DEVICES = 300


def _telemetry() -> dict[str, Any]:
    """telemetry.yaml, its Devices.Model drawn through a value of ``values`` (a row draws the values
    its columns name before its own generators: the order both runtimes must keep)."""
    definition = parse_definition((Path(__file__).parents[1] / "fixtures" / "telemetry.yaml").read_text())
    data = definition.model_dump(mode="json", exclude_unset=True)
    data["values"]["model"] = {"string": {"length": [4, 12], "alphabet": "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"}}
    data["load"]["Devices"]["columns"]["Model"] = "$model"
    return data


TELEMETRY = _telemetry()


def _loaded(local: LocalTarget, runtime: WorkerRuntime) -> list[list[Any]]:
    config = local.config(
        {
            "workload": "definition",
            "definition": TELEMETRY,
            "knobs": {"devices": DEVICES},
            "operations": {op: {"enabled": False} for op in TELEMETRY["operations"]},
            "seed": 42,
            "processes": 2,
            "duration_s": 1,
        },
        runtime=runtime,
    )
    run(config, f"cross-{runtime.value}")
    return query(local, config, "SELECT DeviceId, Site, Model FROM Devices ORDER BY DeviceId")


def test_python_and_go_workers_load_the_same_rows_from_the_same_seed(local_spanner: LocalTarget) -> None:
    python_rows = _loaded(local_spanner, WorkerRuntime.PYTHON)
    go_rows = _loaded(local_spanner, WorkerRuntime.GO)
    assert [r[0] for r in python_rows] == list(range(1, DEVICES + 1))
    assert {r[1] for r in python_rows} == {"ams", "fra", "iad", "sin"}  # the choice's four sites
    assert go_rows == python_rows
