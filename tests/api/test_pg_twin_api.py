"""POST /api/runs (what the New run page sends: a preset and its overrides) with a GoogleSQL built-in's
preset on a PostgreSQL interface runs the built-in's PG twin (model/pg_twin.py, issue 24): light-poll
on ``postgresql`` runs workloads/change_watcher_pg.yaml against the local Spanner on a
PostgreSQL-dialect database and reconciles exactly; a built-in without a twin is a 422 naming
client.interface, and nothing is recorded."""

from __future__ import annotations

import uuid
from pathlib import Path

from fastapi.testclient import TestClient
from google.cloud.spanner_admin_database_v1 import DatabaseDialect

from spanload.main import create_app
from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import Target
from spanload.model.samples import Summary
from spanload.spanner.client import make_client
from spanload.spanner.local_server import LocalSpanner
from tests.api.conftest import local_client, make_settings, wait_run
from tests.api.loadless_engine import LoadlessEngine
from tests.engine.conftest import assert_reconciled_exactly


def test_light_poll_on_postgresql_runs_its_twin_on_a_pg_database_and_reconciles(
    client: TestClient, local_spanner: LocalSpanner
) -> None:
    database = f"api-pg-{uuid.uuid4().hex[:10]}"
    overrides = {
        "client": {"interface": "postgresql"},
        "target": {"kind": "local", "database": database},
        "duration_s": 3,
    }
    response = client.post("/api/runs", json={"preset": "light-poll", "overrides": overrides})
    assert response.status_code == 201, response.text
    config = response.json()["config"]
    assert config["definition"]["name"] == "change_watcher_pg"
    assert config["definition_origin"] == {
        "source": "builtin",
        "definition": "change_watcher_pg",
        "saved_version": None,
    }
    assert config["knobs"]["transactions_per_second"] == 5 and config["knobs"]["max_mutations"] == 40  # light's
    assert (config["client"]["interface"], config["target"]["database"]) == ("postgresql", database)

    run = wait_run(client, response.json()["id"], lambda r: r["status"] == "finished", "the twin's run to finish")
    summary = Summary.model_validate(run["summary"])
    assert summary.totals.errors == 0, summary.errors_by_code
    assert_reconciled_exactly(summary)
    spanner = make_client(Target(kind="local", emulator_host=local_spanner.address), local_spanner.address)
    try:
        db = spanner.instance(Target().instance).database(database)
        db.reload()
        assert db.database_dialect == DatabaseDialect.POSTGRESQL
    finally:
        spanner.close()


def test_a_builtin_without_a_twin_is_a_422_naming_client_interface(tmp_path: Path) -> None:
    definition = builtin_definition("inventory").model_dump(mode="json", exclude_unset=True)
    config = {
        "workload": "definition",
        "definition": definition,
        "definition_origin": {"source": "builtin", "definition": "inventory"},
    }
    app = create_app(make_settings(tmp_path), engine_factory=LoadlessEngine)
    with local_client(app) as api:
        refused = api.post("/api/runs", json={"config": config, "overrides": {"client": {"interface": "pgadapter"}}})
        assert refused.status_code == 422, refused.text
        assert refused.json() == {
            "detail": "client.interface: 'pgadapter' runs PostgreSQL-dialect definitions, and the built-in "
            "'inventory' has no PostgreSQL twin (workloads/inventory_pg.yaml); "
            "run it with client.interface 'googlesql'",
            "field": "client.interface",
        }
        assert api.get("/api/runs").json()["count"] == 0  # nothing recorded
