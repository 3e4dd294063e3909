"""`spanload run` for CI: the run is saved in the run store (so `spanload runs` and serve see it),
it takes a saved config, its --json carries the run id and each threshold's verdict, --html writes
its report, and threshold names are checked before anything starts; and `--server URL` runs it
through a running serve."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx

from spanload.engine.thresholds import known_metrics, metrics_of
from spanload.model.config import RunConfig
from spanload.model.presets import make_config
from spanload.model.samples import Summary
from tests.api.conftest import make_settings
from tests.cli.inprocess import serving, spanload
from tests.engine.conftest import LocalTarget


def test_a_run_from_a_config_file_is_saved_and_reports_each_thresholds_verdict(
    local_spanner: LocalTarget, tmp_path: Path
) -> None:
    config = make_config("very-light", {"name": "from a file", "updater": {"transactions_per_second": 7}})
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps({"config": config.model_dump(mode="json", by_alias=True)}))  # a --json's shape
    document, report = tmp_path / "run.json", tmp_path / "run.html"
    database = f"cli-{uuid.uuid4().hex[:10]}"
    result = spanload(
        tmp_path,
        "run", "--config", str(config_file), "--duration", "3s", "--quiet",
        "--target", "local", "--emulator-host", local_spanner.address, "--database", database,
        "--threshold", "errors==0", "--threshold", "updater.p99_ms<1000000", "--threshold", "updater.tps>1000000",
        "--json", str(document), "--html", str(report),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr  # the last threshold cannot hold
    doc = json.loads(document.read_text())
    summary = Summary.model_validate(doc["summary"])
    figures = metrics_of(summary)
    assert [(v["expression"], v["passed"]) for v in doc["thresholds"]] == [
        ("errors==0", True),
        ("updater.p99_ms<1000000", True),
        ("updater.tps>1000000", False),
    ]
    assert [v["figure"] for v in doc["thresholds"]] == [
        summary.totals.errors,
        summary.latency["updater.txn"].p99,
        summary.rates["updater.tps"],
    ]
    assert doc["passed"] is False and f"run {doc['run_id']} saved in" in result.stdout
    assert set(figures) <= set(known_metrics(RunConfig.model_validate(doc["config"])))  # names checked up front

    shown = spanload(tmp_path, "runs", "show", doc["run_id"], "--json")
    assert shown.returncode == 0, shown.stderr
    run = json.loads(shown.stdout)
    assert (run["name"], run["status"], run["sample_count"]) == ("from a file", "finished", len(doc["samples"]))
    assert run["config"]["knobs"]["transactions_per_second"] == 7.0  # stored as the definition it ran
    assert run["summary"]["totals"] == doc["summary"]["totals"]
    html = report.read_text()
    assert "<title>Spanload run from a file</title>" in html
    assert "<code>updater.tps&gt;1000000</code>" in html  # the verdicts head the report
    assert html.count('badge ok">pass') == 2 and html.count('badge bad">fail') == 1


def test_an_unknown_threshold_name_exits_2_before_the_run_listing_the_names(tmp_path: Path) -> None:
    result = spanload(tmp_path, "run", "--threshold", "updater.tpz>1", "--duration", "3s")
    assert result.returncode == 2 and result.stdout == ""  # nothing started
    assert len(result.stderr.strip().splitlines()) == 1
    assert "'updater.tpz>1' names no figure of this run" in result.stderr and "updater.tps" in result.stderr
    assert not (tmp_path / "spanload.db").exists()  # not even the store was opened
    listed = spanload(tmp_path, "run", "--preset", "tpcc-1w", "--list-metrics")
    assert listed.returncode == 0
    names = listed.stdout.split()
    assert "tpcc.new_order.p99_ms" in names and "tpcc.tpmc" in names and "totals.errors" in names
    assert "updater.txn.p99_ms" not in names  # TPC-C has no updater
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"updater": {"transactions_per_second": -1}}))
    refused = spanload(tmp_path, "run", "--config", str(bad), "--list-metrics")
    assert refused.returncode == 2 and "updater.transactions_per_second" in refused.stderr


def test_run_through_a_serve_shows_there_and_is_listed_with_the_token(
    local_spanner: LocalTarget, tmp_path: Path
) -> None:
    token = "ci-token"
    host, _, port = local_spanner.address.rpartition(":")
    settings = make_settings(tmp_path / "serve", api_token=token)
    settings = settings.model_copy(update={"local_spanner_host": host, "local_spanner_port": int(port)})
    with serving(settings) as url:
        document, report = tmp_path / "remote.json", tmp_path / "remote.html"
        database = f"cli-{uuid.uuid4().hex[:10]}"
        result = spanload(
            tmp_path, "run", "--server", url, "--token", token, "--preset", "very-light", "--duration", "3s",
            "--database", database, "--threshold", "errors==0", "--json", str(document), "--quiet",
            "--html", str(report),
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
        doc = json.loads(document.read_text())
        assert doc["server"] == url and doc["thresholds"][0]["passed"] is True
        html = report.read_text()  # the serve's report, with the verdicts as the local --html has them
        assert "<code>errors==0</code>" in html and html.count('badge ok">pass') == 1
        stored = httpx.get(
            f"{url}/api/runs/{doc['run_id']}", headers={"Authorization": f"Bearer {token}"}, timeout=10
        ).json()
        assert stored["status"] == "finished" and stored["summary"]["totals"] == doc["summary"]["totals"]
        listed = spanload(tmp_path, "runs", "list", "--server", url, "--token", token, "--json")
        assert [r["id"] for r in json.loads(listed.stdout)["data"]] == [doc["run_id"]]
        refused = spanload(tmp_path, "runs", "list", "--server", url)
        assert refused.returncode == 1 and "give --token" in refused.stderr
