"""POST /api/runs with an inline definition checks it against the target before any load, as
``spanload validate`` does (issue 22): a misspelt column is a 422 listing the problem, and no run
and no database are left behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from google.cloud import spanner

from spanload.model.config import Target
from spanload.model.workload_file import parse_definition
from spanload.spanner.client import make_client
from tests.api.conftest import fresh_database

SHOP = (Path(__file__).parents[2] / "workloads" / "shop.yaml").read_text()


def _inline(text: str) -> dict[str, Any]:
    return parse_definition(text).model_dump(mode="json", exclude_unset=True)


def test_an_inline_definition_with_a_misspelt_column_is_a_422_before_load(client: TestClient) -> None:
    broken = SHOP.replace("ORDER BY Created DESC", "ORDER BY Createdd DESC")
    target = fresh_database()["target"]
    before = client.get("/api/runs").json()["count"]
    response = client.post(
        "/api/runs",
        json={"overrides": {"workload": "definition", "definition": _inline(broken), "target": target}},
    )
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["detail"].startswith("shop: 1 problem")
    ((problem,),) = [body["problems"]]
    assert problem["path"] == "operations.recent_orders.steps.0.sql"
    assert problem["message"].startswith("INVALID_ARGUMENT: Unrecognized name: Createdd")
    assert client.get("/api/runs").json()["count"] == before  # no run recorded
    settings = client.app.state.settings  # type: ignore[attr-defined]
    host = f"{settings.local_spanner_host}:{settings.local_spanner_port}"
    spanner_client: spanner.Client = make_client(Target(kind="local", emulator_host=host), host)
    try:
        database = spanner_client.instance(Target().instance).database(target["database"])
        assert not database.exists()  # nothing was created on the target
    finally:
        spanner_client.close()
