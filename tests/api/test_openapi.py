"""`spanload openapi`: the schema the frontend generates its types from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from spanload.cli import main

LIVE_TYPES = {
    "snapshot": "SnapshotMessage",
    "sample": "SampleMessage",
    "status": "StatusMessage",
    "config_change": "ConfigChangeMessage",
    "event": "EventMessage",
    "preload": "PreloadMessage",
    "summary": "SummaryMessage",
    "dropped": "DroppedMessage",
}


def _schema(capsys: Any) -> dict[str, Any]:
    assert main(["openapi"]) == 0
    schema: dict[str, Any] = json.loads(capsys.readouterr().out)
    return schema


def test_openapi_names_every_live_message_with_its_type(capsys: Any) -> None:
    components = _schema(capsys)["components"]["schemas"]
    mapping = components["LiveMessage"]["discriminator"]["mapping"]
    assert mapping == {kind: f"#/components/schemas/{name}" for kind, name in LIVE_TYPES.items()}
    for kind, name in LIVE_TYPES.items():
        assert components[name]["properties"]["type"]["const"] == kind


def test_openapi_refs_all_resolve(capsys: Any) -> None:
    schema = _schema(capsys)
    components = schema["components"]["schemas"]
    refs = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                refs.add(ref.removeprefix("#/components/schemas/"))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert refs - set(components) == set()
    assert {"/api/runs", "/api/runs/{run_id}/config"} <= set(schema["paths"])


def test_openapi_command_runs_without_a_store_or_spanner(tmp_path: Any) -> None:
    env = {"SPANLOAD_DATA_DIR": str(tmp_path / "absent"), "SPANLOAD_DATABASE_URL": "postgresql://nowhere.invalid/x"}
    done = subprocess.run(
        [sys.executable, "-m", "spanload.cli", "openapi"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["info"]["title"] == "Spanload"
    assert not (tmp_path / "absent").exists()
