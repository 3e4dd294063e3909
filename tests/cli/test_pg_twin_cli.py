"""``spanload run --preset light-poll --interface pgadapter --runtime go`` (issue 24), as a user types
it: the preset's GoogleSQL definition gives way to its PG twin (model/pg_twin.py), pgx in the Go worker
through the PGAdapter the run starts, on ``spanload-change-streams-pg``, a PostgreSQL-dialect database
beside light-poll's GoogleSQL one (its own instance here, so the preset's database names are its
own), and the Change Watcher reconciles exactly; the same preset on GoogleSQL afterwards still runs
on its GoogleSQL database."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from google.cloud.spanner_admin_database_v1 import DatabaseDialect

from spanload.model.config import Target
from spanload.model.samples import Summary
from spanload.spanner.client import make_client
from tests.cli.inprocess import spanload
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly

pytestmark = pytest.mark.timeout(300)


def run_preset(local: LocalTarget, tmp_path: Path, instance: str, *flags: str) -> dict:
    document = tmp_path / f"run-{uuid.uuid4().hex[:6]}.json"
    result = spanload(
        tmp_path,
        "run", "--preset", "light-poll", *flags, "--duration", "4s", "--quiet", "--no-save",
        "--target", "local", "--emulator-host", local.address, "--instance", instance, "--json", str(document),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(document.read_text())


def dialects(local: LocalTarget, instance: str) -> dict[str, DatabaseDialect]:
    client = make_client(Target(kind="local", emulator_host=local.address, instance=instance), local.address)
    try:
        return {d.name.rsplit("/", 1)[-1]: d.database_dialect for d in client.instance(instance).list_databases()}
    finally:
        client.close()


def test_light_poll_on_pgadapter_in_go_runs_its_twin_beside_the_googlesql_database(
    local_spanner: LocalTarget, tmp_path: Path
) -> None:
    instance = f"twin-{uuid.uuid4().hex[:8]}"
    doc = run_preset(local_spanner, tmp_path, instance, "--interface", "pgadapter", "--runtime", "go")
    config = doc["config"]
    assert (config["definition"]["name"], config["client"]["interface"], config["runtime"]) == (
        "change_watcher_pg",
        "pgadapter",
        "go",
    )
    assert config["target"]["database"] == "spanload-change-streams-pg"
    summary = Summary.model_validate(doc["summary"])
    assert [w.runtime for w in summary.workers] == ["go"]
    assert summary.totals.errors == 0, summary.errors_by_code
    assert_reconciled_exactly(summary)

    again = run_preset(local_spanner, tmp_path, instance)  # light-poll as it is: GoogleSQL, its own database
    assert (again["config"]["definition"]["name"], again["config"]["target"]["database"]) == (
        "change_watcher",
        "spanload-change-streams",
    )
    assert_reconciled_exactly(Summary.model_validate(again["summary"]))
    assert dialects(local_spanner, instance) == {
        "spanload-change-streams-pg": DatabaseDialect.POSTGRESQL,
        "spanload-change-streams": DatabaseDialect.GOOGLE_STANDARD_SQL,
    }
