"""A stored config this version of Spanload cannot read whole (a field an older version wrote, a
bound since tightened) must not take the runs list, the run's page, compare or export down with it:
the run is shown with what can be read, and what was left out is named (``config_problem``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from spanload.main import create_app
from spanload.model.config import RunConfig
from tests.api.conftest import local_client, make_settings
from tests.store.stored_run import store_finished_run, store_url

DEFAULT_INTERVAL = RunConfig().report_interval_s


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data_dir: Path = tmp_path_factory.mktemp("stored-config")
    store_finished_run(data_dir, "readable", intervals=5)
    store_finished_run(data_dir, "older", intervals=5, seed=3)
    path = store_url(data_dir).removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        (raw,) = db.execute("SELECT config FROM runs WHERE id = 'older'").fetchone()
        config = json.loads(raw)
        assert config["report_interval_s"] != -5
        config |= {"retired_knob": 3, "report_interval_s": -5}  # a removed field; a bound it breaks
        db.execute("UPDATE runs SET config = ?, current_config = ? WHERE id = 'older'", (json.dumps(config),) * 2)
    with local_client(create_app(make_settings(data_dir))) as test_client:
        yield test_client


def test_the_runs_list_shows_a_run_whose_stored_config_this_version_cannot_read(client: TestClient) -> None:
    response = client.get("/api/runs")
    assert response.status_code == 200, response.text
    runs = {r["id"]: r for r in response.json()["data"]}
    assert sorted(runs) == ["older", "readable"]
    assert runs["readable"]["config_problem"] is None
    problem = runs["older"]["config_problem"]
    assert problem.startswith("this version of Spanload cannot read part of the stored config: ")
    assert "retired_knob: Extra inputs are not permitted" in problem
    assert "report_interval_s: Input should be greater than" in problem
    # what could be read is kept; what could not takes its default
    assert runs["older"]["config"]["report_interval_s"] == DEFAULT_INTERVAL
    assert runs["older"]["config"]["definition"] == runs["readable"]["config"]["definition"]


def test_the_runs_page_compare_and_export_read_it_too(client: TestClient) -> None:
    run = client.get("/api/runs/older")
    assert run.status_code == 200, run.text
    assert "retired_knob" in run.json()["config_problem"]
    compare = client.get("/api/compare", params={"ids": "readable,older"})
    assert compare.status_code == 200, compare.text
    assert [r["id"] for r in compare.json()["runs"]] == ["readable", "older"]
    export = client.get("/api/runs/older/export", params={"format": "json"})
    assert export.status_code == 200, export.text
    assert export.json()["run"]["config_problem"] == run.json()["config_problem"]
    report = client.get("/api/runs/older/report")
    assert report.status_code == 200, report.text
